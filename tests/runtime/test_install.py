"""`make install` of libtl_runtime: installs into a temporary prefix, then links a C and a C++
program through pkg-config and through CMake's find_package (shared and static), runs them on the
fixture package, and checks that the shared library exports only tl_* symbols."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rt_helpers import REPO

PROGRAMS = Path(__file__).with_name("programs")


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    pre = tmp_path_factory.mktemp("prefix")
    build = tmp_path_factory.mktemp("rtbuild")
    subprocess.run(["make", "-s", "-C", str(REPO / "libtl_runtime"), "install", f"BUILD={build}", f"PREFIX={pre}"],
                   check=True, capture_output=True)
    return pre


def _pkgconfig(prefix, *flags):
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    out = subprocess.run(["pkg-config", *flags, "tl_runtime"], check=True, capture_output=True, text=True, env=env)
    return out.stdout.split()


def test_layout(prefix):
    for rel in ("lib/libtl_runtime.so", "lib/libtl_runtime.a", "include/tl/runtime.h", "include/tl/bundle_abi.h",
                "include/tl/dlpack_compat.h", "lib/pkgconfig/tl_runtime.pc",
                "lib/cmake/tl_runtime/tl_runtime-config.cmake", "lib/cmake/tl_runtime/tl_runtime-config-version.cmake"):
        assert (prefix / rel).is_file(), rel
    out = subprocess.run(["nm", "-D", "--defined-only", str(prefix / "lib/libtl_runtime.so")], check=True,
                         capture_output=True, text=True).stdout
    names = [ln.split()[-1] for ln in out.splitlines() if ln.strip()]
    assert names and all(n.startswith("tl_") for n in names), names
    out = subprocess.run(["nm", "-g", "--defined-only", str(prefix / "lib/libtl_runtime.a")], check=True,
                         capture_output=True, text=True).stdout
    syms = [ln.split()[-1] for ln in out.splitlines() if len(ln.split()) == 3]
    assert all(s.startswith(("tl_", "tl__")) for s in syms), [s for s in syms if not s.startswith("tl_")]


@pytest.mark.parametrize("lang", ["c", "c++"])
def test_pkgconfig_link(prefix, tmp_path, package_path, lang):
    cc = "gcc" if lang == "c" else "g++"
    if shutil.which(cc) is None:
        pytest.skip(f"no {cc}")
    src = tmp_path / ("p.c" if lang == "c" else "p.cpp")
    src.write_text((PROGRAMS / "link_check.c").read_text())
    exe = tmp_path / "p"
    std = "-std=c11" if lang == "c" else "-std=c++17"
    subprocess.run([cc, std, "-Wall", "-Werror", str(src), "-o", str(exe), *_pkgconfig(prefix, "--cflags", "--libs")],
                   check=True)
    env = dict(os.environ, LD_LIBRARY_PATH=str(prefix / "lib"))
    out = subprocess.run([str(exe), str(package_path)], check=True, capture_output=True, text=True, env=env).stdout
    assert out.startswith("version 0.1.0 kernels 8 target x86_64-fixture"), out
    # libtl_runtime.a with the shared system libraries it needs (Requires.private of the .pc)
    exe_s = tmp_path / "ps"
    deps = subprocess.run(["pkg-config", "--libs", "libarchive", "jansson", "libcrypto"], check=True,
                          capture_output=True, text=True).stdout.split()
    subprocess.run([cc, std, str(src), "-o", str(exe_s), *_pkgconfig(prefix, "--cflags"),
                    str(prefix / "lib/libtl_runtime.a"), *deps, "-lpthread", "-ldl"], check=True)
    out = subprocess.run([str(exe_s), str(package_path)], check=True, capture_output=True, text=True).stdout
    assert "kernels 8" in out


def test_cmake_find_package(prefix, tmp_path, package_path):
    if shutil.which("cmake") is None:
        pytest.skip("no cmake")
    b = tmp_path / "b"
    subprocess.run(["cmake", "-S", str(PROGRAMS), "-B", str(b), f"-DCMAKE_PREFIX_PATH={prefix}"], check=True,
                   capture_output=True)
    subprocess.run(["cmake", "--build", str(b), "-j2"], check=True, capture_output=True)
    for exe in ("check_c", "check_cxx_static"):
        out = subprocess.run([str(b / exe), str(package_path)], check=True, capture_output=True, text=True).stdout
        assert "kernels 8 target x86_64-fixture" in out, (exe, out)
