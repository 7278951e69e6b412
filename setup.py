"""Build of the optional C extension tl._fastcall (tl/_fastcall.c, the kernel-call fast path);
the rest of the project metadata is in pyproject.toml. `pip install -e .` builds it in place with
the CPython headers (Debian: python3-dev); when it cannot be built the install still succeeds and
tl._runtime calls kernels through ctypes instead (optional=True)."""
from setuptools import Extension, setup

setup(ext_modules=[Extension("tl._fastcall", ["tl/_fastcall.c"], include_dirs=["libtl_runtime/include"],
                             extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra"], optional=True)])
