"""tl_kernel_check (libtl_runtime/src/check.c) and the generated header's wrappers: the signature
hash tlc computes from the manifest (tlc/package/header.py) is the one the runtime computes from
the descriptor; a handle of another kernel, of another build of the kernel, or NULL is
TL_ERROR_INVALID_ARGUMENT, and the message names both kernels (C and C++)."""
from __future__ import annotations

import copy
import shutil
import subprocess
from pathlib import Path

import pytest

import tl._runtime as R
from rt_helpers import INCLUDE, KERNELS, REPO, manifest_for
from tlc.package.header import render_header, signature_hash, signature_string

LIBDIR = REPO / "build" / "runtime"
STRICT = ["-Wall", "-Wextra", "-Werror", "-pedantic"]
ENTRIES = manifest_for([])["kernels"]


def _check(kernel, name: str, h: int):
    lib = R._library()
    st = lib.tl_kernel_check(kernel._handle if kernel is not None else None, name.encode(), h)
    msg = R._text(lib.tl_runtime_last_error(kernel._runtime._handle)) if kernel is not None else ""
    return st, msg


def test_signature_string_is_the_documented_one():
    axpy = next(k for k in ENTRIES if k["name"] == "axpy")
    assert signature_string(axpy) == "axpy|x:0:6:1:1|y:0:6:1:3|alpha:1:6:0:0"   # the example in tl/runtime.h
    # FNV-1a 64 of "a": the published test vector
    assert signature_hash({"name": "a", "params": []}) == 0xaf63dc4c8601ec8c


@pytest.mark.parametrize("entry", ENTRIES, ids=[k["name"] for k in ENTRIES])
def test_runtime_hash_equals_tlc_hash(pkg, entry):
    k = pkg.kernel(entry["name"])
    assert _check(k, entry["name"], signature_hash(entry))[0] == R.TL_OK


def test_mismatches_name_both_kernels(pkg):
    add = pkg.kernel("add")
    axpy = next(k for k in ENTRIES if k["name"] == "axpy")
    st, msg = _check(add, "axpy", signature_hash(axpy))
    assert st == R.TL_ERROR_INVALID_ARGUMENT
    assert msg == "wrong kernel: the wrapper for kernel axpy was called with a handle of kernel add"
    entry = next(k for k in ENTRIES if k["name"] == "add")
    changed = copy.deepcopy(entry)
    changed["params"][2]["access"] = "readwrite"            # another build of the same kernel
    st, msg = _check(add, "add", signature_hash(changed))
    assert st == R.TL_ERROR_INVALID_ARGUMENT
    assert f"0x{signature_hash(entry):016x}" in msg and f"0x{signature_hash(changed):016x}" in msg
    assert msg.startswith("kernel add: the package's kernel has signature hash")
    assert _check(None, "add", 0)[0] == R.TL_ERROR_INVALID_ARGUMENT


WRONG_C = r"""
#include <stdio.h>
#include <string.h>
#include "fixture.h"
int main(int argc, char** argv) {
  tl_runtime_t* rt; tl_package_t* pkg; fixture_kernels_t k;
  if (argc != 2 || tl_runtime_create(NULL, &rt) || tl_package_open(rt, argv[1], &pkg)) return 2;
  if (fixture_kernels_resolve(pkg, &k)) return 3;
  float x[4] = {1, 2, 3, 4}, y[4] = {0};
  int64_t n = 4;
  DLTensor tx = {x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &n, NULL, 0}, ty = tx;
  ty.data = y;
  if (fixture_axpy(k.rowsum, &tx, &ty, 2.0) != TL_ERROR_INVALID_ARGUMENT) return 4;
  printf("wrong: %s\n", tl_runtime_last_error(rt));
  if (y[0] != 0.0f) return 5;                              /* nothing ran */
  if (fixture_axpy(NULL, &tx, &ty, 2.0) != TL_ERROR_INVALID_ARGUMENT) return 6;
  if (fixture_axpy(k.axpy, &tx, &ty, 2.0) != TL_OK || y[3] != 8.0f) return 7;
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return 0;
}
"""


def _compile(cc, src: Path, out: Path, *extra):
    if shutil.which(cc[0]) is None:
        pytest.skip(f"no {cc[0]}")
    subprocess.run([*cc, *STRICT, f"-I{src.parent}", f"-I{INCLUDE}", *extra, str(src), "-o", str(out),
                    f"-L{LIBDIR}", f"-Wl,-rpath,{LIBDIR}", "-ltl_runtime"], check=True)


@pytest.mark.parametrize("cc", [["gcc", "-std=c99"], ["g++", "-x", "c++", "-std=c++11"]], ids=["c99", "c++11"])
def test_generated_wrapper_refuses_another_kernels_handle(tmp_path, package_path, cc):
    (tmp_path / "fixture.h").write_text(render_header("fixture", ENTRIES))
    (tmp_path / "wrong.c").write_text(WRONG_C)
    _compile(cc, tmp_path / "wrong.c", tmp_path / "wrong")
    r = subprocess.run([str(tmp_path / "wrong"), str(package_path)], capture_output=True, text=True)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    assert r.stdout.strip() == "wrong: wrong kernel: the wrapper for kernel axpy was called with a handle of kernel rowsum"


def test_header_of_another_build_is_refused(tmp_path, package_path):
    """A header generated for a different signature of axpy (alpha an int32) fails the check
    instead of passing alpha as an integer to a float kernel."""
    other = copy.deepcopy(ENTRIES)
    axpy = next(k for k in other if k["name"] == "axpy")
    axpy["params"][2]["dtype"] = "int32"
    (tmp_path / "fixture.h").write_text(render_header("fixture", other))
    src = tmp_path / "stale.c"
    src.write_text(r"""
#include <stdio.h>
#include "fixture.h"
int main(int argc, char** argv) {
  tl_runtime_t* rt; tl_package_t* pkg; tl_kernel_t* k;
  float x[2] = {1, 2}, y[2] = {0};
  int64_t n = 2;
  DLTensor tx = {x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &n, NULL, 0}, ty = tx;
  ty.data = y;
  if (argc != 2 || tl_runtime_create(NULL, &rt) || tl_package_open(rt, argv[1], &pkg) ||
      tl_package_kernel(pkg, FIXTURE_KERNEL_AXPY, &k)) return 2;
  tl_status_t st = fixture_axpy(k, &tx, &ty, 3);
  printf("%d %s\n", (int)st, tl_runtime_last_error(rt));
  tl_package_release(pkg);
  tl_runtime_release(rt);
  return 0;
}
""")
    _compile(["gcc", "-std=c11"], src, tmp_path / "stale")
    r = subprocess.run([str(tmp_path / "stale"), str(package_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"{R.TL_ERROR_INVALID_ARGUMENT} kernel axpy: the package's kernel has signature hash")
    assert "header and the package come from different builds" in r.stdout
