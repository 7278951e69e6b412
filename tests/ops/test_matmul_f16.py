"""float16 matmul (ops/matmul.py's DT_float16 instances, tl.ops.matmul / linear / mm): the
inputs widen exactly to float32 as tiles load, the float32 microkernel accumulates, the result
is float32 (tl.ops.matmul, like bfloat16) or rounded once to float16 (linear, mm, bmm).
Reference: float64 NumPy on the float16 values. Tolerance: the float32 dot's forward error bound
K * 2^-24 * sum_k |a_ik| |b_kj| (Higham, Accuracy and Stability of Numerical Algorithms, 3.1;
each of the K fused multiply-adds rounds once), plus half a float16 ulp where rounded to float16.
"""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import record_launches


def _check(got, a, b, msg="", rounded=False):
    """got within the float32 dot bound of the float64 product (plus half a float16 ulp when
    ``rounded``: the result was rounded once to float16)."""
    a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
    ref = a64 @ b64
    k = a64.shape[-1]
    bound = k * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64)) * (1 + rounded) + 1e-30
    if rounded:
        bound = bound + 2.0 ** -11 * np.abs(ref) * 1.01 + 2.0 ** -25
    got = np.asarray(got, np.float64)
    assert got.shape == ref.shape, msg
    err = np.abs(got - ref)
    assert (err <= bound).all(), f"{msg}: worst {np.max(err / bound):.2f} x the bound"


def _rand(rng, shape):
    return rng.uniform(-2, 2, shape).astype(np.float16)


@pytest.mark.parametrize("mkn", [(1, 1, 1), (1, 300, 37), (3, 7, 5), (8, 129, 40), (17, 257, 300),
                                 (33, 64, 16), (130, 130, 129), (300, 300, 520), (1030, 256, 512)])
def test_f16_matmul_sizes_and_k_tails(rng_seed, mkn, monkeypatch):
    rng, seed = rng_seed
    m, k, n = mkn
    a, b = _rand(rng, (m, k)), _rand(rng, (k, n))
    launched = record_launches(monkeypatch)
    got = ops.matmul(a, b)
    assert got.dtype == np.float32
    assert launched and all("float16" in name for name in launched), launched   # no float32 copy first
    _check(got, a, b, f"{mkn} seed {seed}")


def test_f16_matmul_strided_batched_vectors(rng_seed):
    rng, seed = rng_seed
    a = _rand(rng, (3, 40, 70))[:, ::2, ::-1]            # (3, 20, 70), negative inner stride
    b = _rand(rng, (90, 26))[:70, ::2].T.copy().T        # (70, 13), transposed layout
    _check(ops.matmul(a, b), a, b, f"strided seed {seed}")
    bb = _rand(rng, (1, 70, 9))                          # batch broadcast
    _check(ops.matmul(a, bb), a, bb, f"broadcast seed {seed}")
    v = _rand(rng, (70,))
    _check(ops.matmul(a[0], v), a[0], v, "matrix @ vector")
    _check(ops.matmul(v, b), v, b, "vector @ matrix")
    _check(ops.dot(v, v), v, v, "dot")


def test_f16_subnormals_widen_exactly():
    """float16 subnormals (2^-24 .. 2^-14) are normal float32 numbers: no flush to zero."""
    a = np.full((4, 33), 2.0 ** -24, np.float16)
    b = np.full((33, 20), 2.0 ** -10, np.float16)
    got = ops.matmul(a, b)
    np.testing.assert_array_equal(got, np.full((4, 20), 33 * 2.0 ** -34, np.float32))


def test_f16_nan_inf_propagate():
    a = np.ones((9, 20), np.float16)
    b = np.ones((20, 300), np.float16)
    a[1, 3] = np.nan
    a[2, 0] = np.inf
    b[5, 7] = -np.inf
    b[:, 9] = 0
    got = ops.matmul(a, b)
    ref = np.asarray(a, np.float64) @ np.asarray(b, np.float64)   # inf * 0 -> NaN, inf - inf -> NaN
    np.testing.assert_array_equal(got, ref.astype(np.float32))
    assert np.isnan(got[1]).all() and np.isnan(got[2, 9]) and got[2, 0] == np.inf and np.isnan(got[2, 7])


def test_f16_mismatched_and_rejected_dtypes():
    with pytest.raises(TypeError, match="'a' .float16. and 'b' .float32."):
        ops.matmul(np.ones((2, 2), np.float16), np.ones((2, 2), np.float32))
    with pytest.raises(TypeError, match="argument 'a' has dtype float64"):
        ops.matmul(np.ones((2, 2)), np.ones((2, 2)))


@pytest.mark.parametrize("act", [None, "relu", "gelu", "silu"])
def test_f16_linear_rounds_once(rng_seed, act):
    rng, seed = rng_seed
    x, w = _rand(rng, (2, 5, 67)), _rand(rng, (19, 67))
    bias = rng.uniform(-1, 1, 19).astype(np.float16)
    res = _rand(rng, (2, 5, 19))
    got = ops.linear(x, w, bias, activation=act, residual=res)
    assert got.dtype == np.float16 and got.shape == (2, 5, 19)
    y = np.asarray(x, np.float64) @ np.asarray(w, np.float64).T + np.asarray(bias, np.float64)
    import math
    if act == "relu":
        y = np.maximum(y, 0)
    elif act == "gelu":
        y = 0.5 * y * (1 + np.vectorize(math.erf)(y / math.sqrt(2)))
    elif act == "silu":
        y = y / (1 + np.exp(-y))
    y = y + np.asarray(res, np.float64)
    # one float16 rounding (half an ulp) + the float32 dot bound + the float32 activation's few ulp
    bound = (67 * 2.0 ** -24 * (np.abs(np.asarray(x, np.float64)) @ np.abs(np.asarray(w, np.float64)).T) * 2
             + 2.0 ** -11 * np.abs(y) * 1.01 + 2.0 ** -22 * (np.abs(y) + 1) + 2.0 ** -25)
    err = np.abs(np.asarray(got, np.float64) - y)
    assert (err <= bound).all(), f"act {act} seed {seed}: worst {np.max(err / bound):.2f} x the bound"
    out = np.empty((2, 5, 19), np.float16)
    assert ops.linear(x, w, bias, activation=act, residual=res, out=out) is out
    np.testing.assert_array_equal(out, got)
    mm = ops.bmm(x, np.broadcast_to(w.T, (2, 67, 19)))
    assert mm.dtype == np.float16
    _check(mm, x, w.T, f"bmm seed {seed}", rounded=True)
