"""The compiled package against the NumPy reference interpreter (tlc.interp), same inputs."""
import os

import numpy as np
import pytest

import tl.ops as ops
from tl.ops._interp import InterpPackage
from ops_helpers import BF16, f64, rand

pytestmark = pytest.mark.skipif(os.environ.get("TL_OPS_BACKEND", "").lower() == "interp",
                                reason="TL_OPS_BACKEND=interp: no compiled package to compare")


def _both(name, inputs, outs, scalars=()):
    """Runs instance ``name`` compiled and interpreted; returns the two output lists."""
    res = []
    for pkg in (ops.package(), InterpPackage()):
        o = [np.full_like(t, np.nan) if t.dtype.kind == "f" or t.dtype == BF16 else np.zeros_like(t)
             for t in outs]
        getattr(pkg, name)(*inputs, *o, *scalars)
        res.append(o)
    return res


@pytest.mark.parametrize("name,rtol", [("softmax__DT_float32", 2e-6), ("gelu__DT_float32", 2e-6),
                                       ("log_softmax__DT_float32", 2e-6), ("exp__DT_float16", 0),
                                       ("div__DT_bfloat16", 0), ("row_sum__DT_float32", 2e-6),
                                       ("transpose__DT_float32", 0)])
def test_compiled_matches_interp(name, rtol, rng_seed):
    rng, seed = rng_seed
    dt = {"float32": np.float32, "float16": np.float16, "bfloat16": BF16}[name.split("DT_")[1]]
    x = rand(rng, (13, 300), dt, -4, 4)[:, ::-1]
    base = name.split("__")[0]
    if base == "div":
        inputs, outs = [x, rand(rng, (13, 300), dt, 0.5, 2)], [np.empty((13, 300), dt)]
    elif base == "row_sum":
        inputs, outs = [x], [np.empty(13, dt)]
    elif base == "transpose":
        inputs, outs = [x], [np.empty((300, 13), dt)]
    else:
        inputs, outs = [x], [np.empty((13, 300), dt)]
    (c,), (i,) = _both(name, inputs, outs)
    # row_sum: float32 lane accumulation vs the interpreter's float64 sum: atol 1e-5 x length
    atol = 1e-5 * 300 if base == "row_sum" else (1e-6 if rtol else 0)
    np.testing.assert_allclose(f64(c), f64(i), rtol=rtol, atol=atol,
                               err_msg=f"{name} seed={seed}")


def test_compiled_matches_interp_norm_argmax_matmul(rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (10, 517), np.float32)
    w, b = rand(rng, (517,), np.float32), rand(rng, (517,), np.float32)
    (c,), (i,) = _both("layer_norm__DT_float32", [x, w, b], [np.empty_like(x)], [1e-5])
    np.testing.assert_allclose(c, i, rtol=1e-5, atol=1e-5, err_msg=f"seed={seed}")
    (c,), (i,) = _both("row_argmax__DT_float32", [x], [np.empty(10, np.int64)])
    np.testing.assert_array_equal(c, i)
    a, bb = rand(rng, (2, 70, 45), np.float32), rand(rng, (2, 45, 66), np.float32)
    (c,), (i,) = _both("matmul__DT_float32", [a, bb], [np.empty((2, 70, 66), np.float32)])
    np.testing.assert_allclose(c, i, rtol=1e-5, atol=1e-5, err_msg=f"seed={seed}")
