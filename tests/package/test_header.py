"""The generated package header compiles as C and C++, and its wrappers launch kernels."""
import subprocess
import zipfile
from pathlib import Path

import pytest

from tlc.package import pack
from tlc.package.header import c_identifier, render_header

REPO = Path(__file__).resolve().parents[2]
INC = REPO / "libtl_runtime" / "include"
RUNTIME = REPO / "build" / "runtime"

KERNELS = [{"name": "softmax__DT_float16", "source": "ops/softmax.py:3", "params": [
    {"name": "x", "kind": "tensor", "dtype": "float16", "rank": 2, "access": "read"},
    {"name": "eps", "kind": "scalar", "dtype": "float32", "rank": 0},
    {"name": "n", "kind": "scalar", "dtype": "int64", "rank": 0},
    {"name": "flag", "kind": "scalar", "dtype": "bool", "rank": 0}]},
    {"name": "noargs", "source": "a.py:1", "params": []}]


def test_header_text():
    h = render_header("my-ops", KERNELS)
    assert "#define MY_OPS_KERNEL_SOFTMAX__DT_FLOAT16 \"softmax__DT_float16\"" in h
    assert ("static inline tl_status_t my_ops_softmax__DT_float16(tl_kernel_t* kernel, const DLTensor* x, "
            "double eps, int64_t n, int64_t flag)") in h
    assert "{NULL, 0, eps}," in h and "{NULL, flag, 0.0}\n" in h and "{x, 0, 0.0}," in h
    assert "#define MY_OPS_NUM_KERNELS 2" in h
    assert c_identifier("3d-conv") == "_3d_conv"


@pytest.mark.parametrize("cc", [["gcc", "-std=c11"], ["g++", "-x", "c++", "-std=c++17"]])
def test_header_compiles(tmp_path, cc):
    (tmp_path / "my_ops.h").write_text(render_header("my_ops", KERNELS))
    (tmp_path / "t.c").write_text('#include "my_ops.h"\nint main(void) { return 0; }\n')
    r = subprocess.run([*cc, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", f"-I{INC}", f"-I{tmp_path}",
                        str(tmp_path / "t.c")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


MAIN_C = r"""
#include <stdio.h>
#include "ops.h"
int main(int argc, char** argv) {
  tl_runtime_t* rt; tl_package_t* pkg; tl_kernel_t* k;
  if (tl_runtime_create(NULL, &rt) || tl_package_open(rt, argv[1], &pkg) ||
      tl_package_kernel(pkg, OPS_KERNEL_ADD2, &k)) { printf("error %s\n", tl_runtime_last_error(rt)); return 1; }
  float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {10, 20, 30, 40, 50, 60}, o[6] = {0};
  int64_t shape[2] = {2, 3};
  DLTensor tx = {x, {kDLCPU, 0}, 2, {kDLFloat, 32, 1}, shape, NULL, 0}, ty = tx, to = tx;
  ty.data = y; to.data = o;
  if (ops_add2(k, &tx, &ty, &to)) { printf("launch %s\n", tl_runtime_last_error(rt)); return 1; }
  for (int i = 0; i < 6; ++i) printf("%g ", o[i]);
  tl_package_release(pkg); tl_runtime_release(rt);
  return 0;
}
"""


@pytest.mark.skipif(not (RUNTIME / "libtl_runtime.so").exists(), reason="runtime not built")
def test_header_wrapper_launches(kernel_dir, tmp_path, stub_driver):
    out = tmp_path / "ops.tlpkg"
    pack.build_package([kernel_dir], "host", out, jobs=1, progress=False)
    (tmp_path / "ops.h").write_bytes(zipfile.ZipFile(out).read("include/ops.h"))
    (tmp_path / "main.c").write_text(MAIN_C)
    exe = tmp_path / "main"
    r = subprocess.run(["gcc", "-std=c11", "-Wall", "-Werror", f"-I{INC}", f"-I{tmp_path}", str(tmp_path / "main.c"),
                        f"-L{RUNTIME}", "-ltl_runtime", f"-Wl,-rpath,{RUNTIME}", "-o", str(exe)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(exe), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.split() == ["11", "22", "33", "44", "55", "66"]


DOC_KERNELS = [
    {"name": "linear__ACT_1__RES_0", "base_name": "linear", "source": "ops/mm.py:7", "constexprs": {"ACT": 1, "RES": 0},
     "doc": "c = act(a @ w + bias).\n\nw: (K, N). ACT: 0 none, 1 relu.", "params": KERNELS[0]["params"][:1]},
    {"name": "linear__ACT_0__RES_0", "base_name": "linear", "source": "ops/mm.py:7", "constexprs": {"ACT": 0, "RES": 0},
     "doc": "c = act(a @ w + bias).\n\nw: (K, N). ACT: 0 none, 1 relu.", "params": KERNELS[0]["params"][:1]},
    {"name": "evil", "source": "ops/x*/y.py:1", "constexprs": {"S": "*/"},
     "doc": "ends */ static int injected_ = 1; /* and ??/\nmore ??= trigraphs\x0c", "params": []},
]


def _code_only(header: str) -> str:
    """The header with its /* */ comments removed as a C compiler removes them."""
    import re
    return re.sub(r"/\*.*?\*/", " ", header, flags=re.S)


def test_header_carries_docs_once_per_base_kernel():
    h = render_header("m", DOC_KERNELS, file_docs={"ops/mm.py": "Fused linear layers.\n\nMore about them."})
    assert "/* ==== ops/mm.py ====\n * Fused linear layers.\n *\n * More about them.\n */" in h
    assert ("/* linear__ACT_1__RES_0(x: float16[2])  from ops/mm.py:7\n * constexprs: ACT=1, RES=0\n"
            " *   c = act(a @ w + bias).\n *\n *   w: (K, N). ACT: 0 none, 1 relu.\n */") in h
    assert ("/* linear__ACT_0__RES_0(x: float16[2])  from ops/mm.py:7\n * constexprs: ACT=0, RES=0\n"
            " *   (as linear__ACT_1__RES_0 above)\n */") in h
    assert h.count("w: (K, N)") == 1


def test_docstrings_cannot_end_the_comment(tmp_path):
    h = render_header("m", DOC_KERNELS)
    code = _code_only(h)
    assert "injected_" not in code and "trigraphs" not in code and "y.py" not in code
    assert "ends * / static int injected_ = 1; / * and ? ?/" in h
    (tmp_path / "m.h").write_text(h)
    (tmp_path / "t.c").write_text('#include "m.h"\nint main(void) { return 0; }\n')
    for cc in (["gcc", "-std=c99"], ["g++", "-x", "c++", "-std=c++11"]):
        r = subprocess.run([*cc, "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wunused", "-fsyntax-only", f"-I{INC}",
                            f"-I{tmp_path}", str(tmp_path / "t.c")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr


def test_every_wrapper_checks_its_kernel():
    from tlc.package.header import signature_hash
    h = render_header("my-ops", KERNELS)
    assert h.count("tl_kernel_check(kernel, ") == len(KERNELS)
    assert f"#define MY_OPS_SIGNATURE_SOFTMAX__DT_FLOAT16 UINT64_C(0x{signature_hash(KERNELS[0]):016x})" in h
    body = h.split("my_ops_softmax__DT_float16(tl_kernel_t* kernel")[1]
    assert body.index("tl_kernel_check") < body.index("tl_kernel_launch")


OPS = REPO / "build" / "ops.tlpkg"


@pytest.mark.skipif(not OPS.exists(), reason="build/ops.tlpkg not built (make ops)")
def test_ops_header_documents_linear_and_softmax():
    """What a C/C++ caller needs beyond names and dtypes is in include/ops.h (issue 21)."""
    h = zipfile.ZipFile(OPS).read("include/ops.h").decode()
    linear = h.split("/* linear__ACT_0__RES_0(")[1].split("*/")[0]
    assert "w: (K, N), in_features x out_features" in linear and "nn.Linear.weight is" in linear
    assert "(N, K), so pass its transpose" in linear
    assert "ACT (activation after the bias): 0 none, 1 relu, 2 gelu (erf form), 3 gelu (tanh form)," in linear
    assert "with RES == 0 it must still be a float32 rank-2" in linear
    assert "constexprs: ACT=0, BK=128, BM=256, BN=128, RES=0" in linear
    softmax = h.split("/* softmax__DT_float32(")[1].split("*/")[0]
    assert "Softmax along the last axis (axis 1: each row i on its own)" in softmax
    assert "x, out: (R, N) of dtype DT" in softmax
    assert "/* ==== ops/softmax.py ====\n * Row softmax and log_softmax over the last axis" in h
    affine = h.split("/* channel_affine__ACT_0__DT_float32__RES_0(")[1].split("*/")[0]
    assert "ACT: 0 none, 1 relu" in affine
    assert "/Users/" not in h and "/work/" not in h and "/home/" not in h   # sources relative to the build root
    assert h.count("tl_kernel_check(kernel, ") == h.count("static inline tl_status_t ops_") - 1   # minus resolve
