"""tl/runtime.hpp end to end on the real operator package (build/ops.tlpkg, `make ops`):
programs/mlp.cpp runs y = softmax(gelu(x @ w1 + b1) @ w2^T + b2) with the package's linear
(w2 in PyTorch's (N, H) layout as a transposed strided view), gelu and softmax kernels; the result
is checked against NumPy in float64 on the same float32 inputs. The program also calls the
generated header's softmax wrapper with the gelu handle (refused, naming both kernels)."""
from __future__ import annotations

import math
import shutil
import subprocess
import zipfile
from pathlib import Path

import numpy as np
import pytest

from rt_helpers import INCLUDE, REPO

OPS = REPO / "build" / "ops.tlpkg"
LIBDIR = REPO / "build" / "runtime"
PROGRAMS = Path(__file__).with_name("programs")
# float32 kernels vs float64 on the same inputs: softmax outputs lie in (0, 1); the bound covers
# the float32 rounding of two K <= 140 products, gelu (<= 4.6 ulp) and softmax (<= 6 ulp); measured:
# at most 8.7e-7 absolute, 2.5e-6 relative on these shapes
ATOL, RTOL = 2e-6, 1e-5

pytestmark = pytest.mark.skipif(not OPS.exists(), reason="build/ops.tlpkg not built (make ops)")


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    d = tmp_path_factory.mktemp("mlp")
    with zipfile.ZipFile(OPS) as zf:
        (d / "ops.h").write_bytes(zf.read("include/ops.h"))
    exe = d / "mlp"
    subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{d}", f"-I{INCLUDE}",
                    str(PROGRAMS / "mlp.cpp"), "-o", str(exe), f"-L{LIBDIR}", f"-Wl,-rpath,{LIBDIR}", "-ltl_runtime"],
                   check=True)
    return exe


def _reference(x, w1, b1, w2, b2):
    x, w1, b1, w2, b2 = (a.astype(np.float64) for a in (x, w1, b1, w2, b2))
    h = x @ w1 + b1
    g = 0.5 * h * (1.0 + np.vectorize(math.erf)(h / math.sqrt(2.0)))
    z = g @ w2.T + b2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("shape", [(37, 50, 70, 10), (1, 3, 5, 1), (300, 20, 140, 33)])
def test_mlp_matches_numpy_float64(mlp, tmp_path, shape):
    M, K, H, N = shape
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal((M, K), dtype=np.float32)
    w1 = (rng.standard_normal((K, H)) / math.sqrt(K)).astype(np.float32)
    b1 = rng.standard_normal(H).astype(np.float32) * 0.1
    w2 = (rng.standard_normal((N, H)) * 2 / math.sqrt(H)).astype(np.float32)   # PyTorch layout (N, H)
    b2 = rng.standard_normal(N).astype(np.float32)
    inp, out = tmp_path / "in.bin", tmp_path / "out.bin"
    inp.write_bytes(b"".join(a.tobytes() for a in (x, w1, b1, w2, b2)))
    r = subprocess.run([str(mlp), str(Path(OPS)), str(inp), str(out), *map(str, shape)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    assert ("wrong kernel: [1] wrong kernel: the wrapper for kernel softmax__DT_float32 was called with a handle "
            "of kernel gelu__DT_float32") in r.stdout
    y = np.fromfile(out, dtype=np.float32).reshape(M, N)
    ref = _reference(x, w1, b1, w2, b2)
    np.testing.assert_allclose(y, ref, atol=ATOL, rtol=RTOL)
    # a w2 passed in (N, H) layout untransposed would be a different answer, not within the bound
    assert N == 1 or not np.allclose(ref, _reference(x, w1, b1, w2.reshape(H, N).T, b2), atol=1e-3)
