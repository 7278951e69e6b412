"""Build of tl-compiler's compiled parts; the project metadata is in pyproject.toml.

* tl._fastcall (tl/_fastcall.c, the kernel-call fast path): an optional C extension built with the
  CPython headers (Debian: python3-dev); when it cannot be built the install still succeeds and
  tl._runtime calls kernels through ctypes instead (optional=True). `pip install -e .` builds it
  in place.
* A wheel (``python -m build``, ``pip wheel .``; not the editable install, which uses the
  checkout's build/ directory) also carries, made here by build_py (BuildWithRuntime):
  ``tl/_lib/libtl_runtime.so`` (``make -C libtl_runtime``: needs cc, make and the -dev packages
  of libarchive, jansson and OpenSSL), the public C headers ``tl/include/tl/*.h``, the operator
  sources ``tl/_data/ops/*.py`` (ops/) and the operator package ``tl/_data/ops.tlpkg``
  (``tlc build --no-sources`` of those sources for ``$TL_WHEEL_OPS_TARGET``, default ``host``; the build
  cache makes it cheap when ``make ops`` ran). ``TL_WHEEL_OPS=0`` leaves the package out; the
  user then builds it with ``tlc build-ops``. ``make dist`` then vendors the runtime's shared
  libraries into the wheel with auditwheel (docs/design.md, "Distribution").
"""
import os
import shutil
import subprocess
import sys

from setuptools import Distribution, Extension, setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
PUBLIC_HEADERS = ("runtime.h", "bundle_abi.h", "dlpack_compat.h", "runtime.hpp")


class BinaryDistribution(Distribution):
    """The wheel holds native code (libtl_runtime.so) even when the optional extension is skipped."""

    def has_ext_modules(self):
        return True


class BuildWithRuntime(build_py):
    """build_py, plus (outside editable mode) the runtime, headers and operator package in tl/."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        tl_dir = os.path.join(os.path.abspath(self.build_lib), "tl")
        self._runtime(tl_dir)
        self._headers(tl_dir)
        self._ops(tl_dir)

    def _runtime(self, tl_dir):
        temp = os.path.join(os.path.abspath(self.get_finalized_command("build").build_temp), "runtime")
        lib = os.path.join(temp, "libtl_runtime.so")
        self.announce(f"building libtl_runtime into {temp}", level=2)
        subprocess.run(["make", "-s", "-C", os.path.join(HERE, "libtl_runtime"), f"BUILD={temp}", lib], check=True)
        os.makedirs(os.path.join(tl_dir, "_lib"), exist_ok=True)
        shutil.copy2(lib, os.path.join(tl_dir, "_lib", "libtl_runtime.so"))

    def _headers(self, tl_dir):
        dest = os.path.join(tl_dir, "include", "tl")
        os.makedirs(dest, exist_ok=True)
        for name in PUBLIC_HEADERS:
            shutil.copy2(os.path.join(HERE, "libtl_runtime", "include", "tl", name), dest)

    def _ops(self, tl_dir):
        src = os.path.join(tl_dir, "_data", "ops")   # named ops/: unit names as in a checkout
        shutil.rmtree(src, ignore_errors=True)
        shutil.copytree(os.path.join(HERE, "ops"), src, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        out = os.path.join(tl_dir, "_data", "ops.tlpkg")
        if os.environ.get("TL_WHEEL_OPS", "1") == "0":
            if os.path.exists(out):
                os.remove(out)
            return
        os.makedirs(os.path.dirname(out), exist_ok=True)
        target = os.environ.get("TL_WHEEL_OPS_TARGET", "host")
        # the tlc just copied into build_lib (it finds tl/include there), so the wheel's package is
        # built by the compiler the wheel ships and its cache keys match a checkout's `make ops`
        # in front of the PYTHONPATH pip's isolated build sets (its build requirements: click, ...)
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (os.path.dirname(tl_dir), os.environ.get("PYTHONPATH")) if p))
        self.announce(f"building the operator package {out} (-t {target})", level=2)
        # --no-sources: the generated C and IR (for tlc inspect) would make it 68 MB instead of 14
        subprocess.run([sys.executable, "-m", "tlc", "build", src, "-t", target, "-o", out, "--no-sources"],
                       check=True, env=env)


setup(distclass=BinaryDistribution, cmdclass={"build_py": BuildWithRuntime},
      ext_modules=[Extension("tl._fastcall", ["tl/_fastcall.c"], include_dirs=["libtl_runtime/include"],
                             extra_compile_args=["-std=c11", "-O2", "-Wall", "-Wextra"], optional=True)])
