"""softmax / log_softmax: random, axis, and the semantics cases docs/semantics.md#c-10,
docs/semantics.md#c-11 (plain softmax of -inf), docs/semantics.md#c-13, docs/semantics.md#c-20."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16, FLOATS, check, f64, poisoned, rand


def _softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    e = np.exp(x - m)
    return e / e.sum(axis, keepdims=True)


def _log_softmax(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return (x - m) - np.log(np.exp(x - m).sum(axis, keepdims=True))


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("n", [1, 7, 33, 256, 700])
def test_softmax_random(dt, n, rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (6, n), dt, -10, 10)
    out = poisoned(x.shape, dt)
    ops.softmax(x, out=out)
    rt = 4e-6 if np.dtype(dt) == np.float32 else None
    check(out, _softmax(f64(x)), dt, f"softmax {dt} n={n} seed={seed}", rtol=rt, atol=1e-7 if rt else None)
    check(ops.log_softmax(x), _log_softmax(f64(x)), dt, f"log_softmax {dt} n={n} seed={seed}",
          rtol=rt, atol=1e-5 if rt else None)


@pytest.mark.parametrize("axis", [0, 1])
def test_softmax_axis_and_strides(axis, rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (40, 3, 30), np.float32)[::-3, :, 1::2]
    check(ops.softmax(x, axis), _softmax(f64(x), axis), np.float32, f"axis={axis} seed={seed}",
          rtol=4e-6, atol=1e-7)
    check(ops.log_softmax(x, axis), _log_softmax(f64(x), axis), np.float32, f"log axis={axis} seed={seed}",
          rtol=4e-6, atol=1e-5)


@pytest.mark.parametrize("K", [1, 3, 7, 10, 33])
def test_c10_runtime_length(K):
    got = ops.softmax(np.ones((4, K), np.float16))
    assert (got == np.float16(1.0 / K)).all(), (K, got)
    if K == 3:
        assert got[0, 0] == 0.333251953125
    if K == 33:
        assert got[0, 0] == 0.030303955078125


def test_c11_all_neg_inf_row():
    x = np.array([[-np.inf] * 3, [0.0, -np.inf, 1.0]], np.float32)
    got = ops.softmax(x)
    assert np.isnan(got[0]).all()
    check(got[1], _softmax(f64(x[1:]))[0], np.float32, "row 1", rtol=4e-6, atol=1e-7)
    assert np.isnan(ops.log_softmax(x)[0]).all()


def test_c13_empty():
    z = np.zeros((2, 0, 3), np.float32)
    assert ops.softmax(z, axis=1).shape == (2, 0, 3)


def test_c20_softmax_scaled():
    x = np.array([0.3, -0.7, 1.1], np.float32)
    cx = ops.mul(x, np.float32(-1.7e14))
    np.testing.assert_array_equal(ops.softmax(cx), [0, 1, 0])
    np.testing.assert_array_equal(ops.softmax(x * np.float32(-1.7e14)), [0, 1, 0])


def test_softmax_large_values():
    x = np.array([[3e38, 3e38, -3e38], [-1e30, -1e30, -1e30]], np.float32)
    np.testing.assert_allclose(ops.softmax(x), [[0.5, 0.5, 0], [1 / 3] * 3], rtol=1e-6)


def test_softmax_in_place_strided_and_long_rows(rng_seed):
    """float32 softmax stores exp(x - max) in ``out`` and rescales it in a third pass: in-place
    calls, strided outputs and long ragged rows must still match float64."""
    rng, seed = rng_seed
    x = rand(rng, (5, 70001), np.float32, -30, 30)
    want = _softmax(f64(x))
    check(ops.softmax(x), want, np.float32, f"long rows seed={seed}", rtol=4e-6, atol=1e-12)
    y = x.copy()
    ops.softmax(y, out=y)
    check(y, want, np.float32, f"in place seed={seed}", rtol=4e-6, atol=1e-12)
    big = poisoned((5, 2 * 70001), np.float32)
    ops.softmax(x, out=big[:, ::2])
    check(big[:, ::2], want, np.float32, f"strided out seed={seed}", rtol=4e-6, atol=1e-12)
    check(ops.log_softmax(x), _log_softmax(f64(x)), np.float32, f"log long seed={seed}", rtol=4e-6, atol=1e-5)
