"""The operator library's shape contracts (ops/*.py ``tl.tensor(DT, ("M", "N"))`` annotations): a
C++ or Python caller launching a library kernel directly with mismatched shapes gets
TL_ERROR_INVALID_ARGUMENT naming both arguments (it used to run and return a wrong or partial
result), matching shapes still run, and the deliberately unconstrained parameters (linear's
``res`` dummy) stay unconstrained."""
import os

import numpy as np
import pytest

import tl
from ops_helpers import PKG

pytestmark = pytest.mark.skipif(os.environ.get("TL_OPS_BACKEND", "").lower() == "interp",
                                reason="launches the compiled package's kernels directly")


@pytest.fixture(scope="module")
def pkg():
    p = tl.load(PKG)
    yield p
    p.close()


def f32(*shape):
    return np.ones(shape, np.float32)


CASES = [
    ("softmax__DT_float32", lambda: (f32(32, 256), f32(16, 128)),
     "kernel softmax__DT_float32: argument 'out' axis 0 (R) is 16 but argument 'x' axis 0 (R) is 32"),
    ("linear__ACT_0__RES_0", lambda: (f32(8, 64), f32(32, 16), f32(16), f32(1, 1), f32(8, 16)),
     "kernel linear__ACT_0__RES_0: argument 'w' axis 0 (K) is 32 but argument 'a' axis 1 (K) is 64"),
    ("linear__ACT_0__RES_0", lambda: (f32(8, 64), f32(64, 16), f32(15), f32(1, 1), f32(8, 16)),
     "kernel linear__ACT_0__RES_0: argument 'bias' axis 0 (N) is 15 but argument 'w' axis 1 (N) is 16"),
    ("layer_norm__DT_float32", lambda: (f32(4, 32), f32(31), f32(32), f32(4, 32), 1e-5),
     "kernel layer_norm__DT_float32: argument 'w' axis 0 (N) is 31 but argument 'x' axis 1 (N) is 32"),
    ("row_sum__DT_float32", lambda: (f32(4, 32), f32(5)),
     "kernel row_sum__DT_float32: argument 'out' axis 0 (R) is 5 but argument 'x' axis 0 (R) is 4"),
    ("transpose__DT_float32", lambda: (f32(4, 32), f32(4, 32)),
     "kernel transpose__DT_float32: argument 'out' axis 0 (N) is 4 but argument 'x' axis 1 (N) is 32"),
    ("add__DT_float32", lambda: (f32(4, 32), f32(4, 33), f32(4, 32)),
     "kernel add__DT_float32: argument 'y' axis 1 (N) is 33 but argument 'x' axis 1 (N) is 32"),
    ("matmul__DT_float32", lambda: (f32(2, 8, 16), f32(3, 16, 4), f32(2, 8, 4)),
     "kernel matmul__DT_float32: argument 'b' axis 0 (Z) is 3 but argument 'a' axis 0 (Z) is 2"),
    ("copy6__DT_int32", lambda: (np.zeros((1, 1, 1, 1, 4, 7), np.int32), np.zeros((1, 1, 1, 1, 4, 8), np.int32)),
     "kernel copy6__DT_int32: argument 'out' axis 5 (F) is 8 but argument 'x' axis 5 (F) is 7"),
]


@pytest.mark.parametrize("name,args,msg", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_direct_launch_with_mismatched_shapes_is_refused(pkg, name, args, msg):
    a = args()
    out = a[-2] if name.startswith("layer_norm") else a[-1]
    out[...] = 7.0
    with pytest.raises(tl.TLError) as e:
        pkg[name](*a)
    assert str(e.value) == msg and e.value.status_name == "TL_ERROR_INVALID_ARGUMENT"
    assert (out == 7.0).all(), "the kernel ran"


def test_matching_shapes_run_and_res_is_unconstrained(pkg):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 64), dtype=np.float32)
    w = rng.standard_normal((64, 16), dtype=np.float32)
    b = rng.standard_normal(16, dtype=np.float32)
    c = np.zeros((8, 16), np.float32)
    pkg["linear__ACT_0__RES_0"](a, w, b, f32(1, 1), c)      # res: a 1 x 1 dummy (RES=0 reads none)
    np.testing.assert_allclose(c, a @ w + b, rtol=1e-5, atol=1e-5)
    x = rng.standard_normal((3, 40), dtype=np.float32)
    out = np.zeros_like(x)
    pkg["softmax__DT_float32"](x, out)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
