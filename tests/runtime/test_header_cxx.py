"""The generated package header (tlc/package/header.py) from C++17 and C99 with -Wall -Wextra
-Werror -pedantic: typed wrappers and <pkg>_kernels_resolve drive the fixture package's kernels."""
from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from rt_helpers import INCLUDE, KERNELS, REPO, manifest_for
from tlc.package.header import render_header

PROGRAMS = Path(__file__).with_name("programs")
LIBDIR = REPO / "build" / "runtime"
STRICT = ["-Wall", "-Wextra", "-Werror", "-pedantic"]


@pytest.fixture(scope="module")
def header_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("hdr")
    (d / "fixture.h").write_text(render_header("fixture", manifest_for([])["kernels"]))
    return d


def test_cxx_wrappers_run(header_dir, tmp_path, package_path):
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    exe = tmp_path / "header_use"
    subprocess.run(["g++", "-std=c++17", *STRICT, f"-I{header_dir}", f"-I{INCLUDE}", str(PROGRAMS / "header_use.cpp"),
                    "-o", str(exe), f"-L{LIBDIR}", f"-Wl,-rpath,{LIBDIR}", "-ltl_runtime"], check=True)
    out = subprocess.run([str(exe), str(package_path)], capture_output=True, text=True)
    assert out.returncode == 0, (out.returncode, out.stderr)
    assert "ok: kernel fill_i32: argument 'out' (#0): expected dtype int32, got float32" in out.stdout


@pytest.mark.parametrize("std", ["c99", "c11", "c++17", "c++11"])
def test_header_compiles(header_dir, tmp_path, std):
    headers = [header_dir / "fixture.h"]
    ops = REPO / "build" / "ops.tlpkg"
    if ops.exists():
        with zipfile.ZipFile(ops) as zf:
            (tmp_path / "ops.h").write_bytes(zf.read("include/ops.h"))
        headers.append(tmp_path / "ops.h")
    cxx = std.startswith("c++")
    src = tmp_path / ("t.cpp" if cxx else "t.c")
    src.write_text("".join(f'#include "{h.name}"\n' for h in headers) + "int main(void) { return 0; }\n")
    cc = "g++" if cxx else "gcc"
    subprocess.run([cc, f"-std={std}", *STRICT, f"-I{header_dir}", f"-I{tmp_path}", f"-I{INCLUDE}", "-c", str(src),
                    "-o", str(tmp_path / "t.o")], check=True)
