"""sum, max, argmax over an axis; semantics cases docs/semantics.md#c-04, docs/semantics.md#c-12,
docs/semantics.md#c-13, docs/semantics.md#c-16, docs/semantics.md#c-17, docs/semantics.md#c-19."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16, FLOATS, check, f64, poisoned, rand


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_reductions_random(dt, rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (9, 1234), dt)
    check(ops.sum(x, -1), f64(x).sum(-1), dt, f"sum {dt} seed={seed}", n=1234)
    np.testing.assert_array_equal(f64(ops.max(x, -1)), f64(x).max(-1), err_msg=f"seed={seed}")
    np.testing.assert_array_equal(ops.argmax(x, -1), np.argmax(f64(x), -1), err_msg=f"seed={seed}")
    assert ops.sum(x, -1).dtype == np.dtype(dt) and ops.argmax(x, -1).dtype == np.int64


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
def test_reductions_axis_and_views(axis, rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (6, 35, 13), np.float32)[:, ::-2, :]
    check(ops.sum(x, axis), f64(x).sum(axis), np.float32, f"sum axis={axis} seed={seed}", n=35)
    np.testing.assert_array_equal(ops.max(x, axis), x.max(axis))
    np.testing.assert_array_equal(ops.argmax(x, axis), np.argmax(x, axis))
    out = poisoned(np.delete(x.shape, axis % 3), np.float32)
    assert ops.sum(x, axis, out=out) is out
    check(out, f64(x).sum(axis), np.float32, f"sum out= seed={seed}", n=35)


def test_c04_row_of_48_and_widths():
    a = (2.0 * np.arange(1, 49, dtype=np.float32))[None, :]
    assert ops.sum(a, -1)[0] == 2352.0 and ops.max(a, -1)[0] == 96.0
    for w in (1, 3, 5, 17, 24, 48, 96, 100, 1000, *range(1, 34)):
        a = (2.0 * np.arange(1, w + 1, dtype=np.float32))[None, :]
        assert ops.sum(a, -1)[0] == w * (w + 1), w
        assert ops.max(a, -1)[0] == 2 * w and ops.argmax(a, -1)[0] == w - 1, w


@pytest.mark.parametrize("L", [1, 3, 17, 1025, 1178])
def test_c12_all_negative_rows(L):
    j = np.arange(L)
    row = (-1.0 - ((37 * j + 37) % L) / L).astype(np.float32)
    x = np.stack([row, row[::-1]])
    m = ops.max(x, -1)
    assert (m == -1.0).all()
    np.testing.assert_array_equal(ops.argmax(x, -1), np.argmax(x, -1))


def test_c13_zero_size():
    z = np.zeros((2, 0, 3), np.float32)
    s = ops.sum(z, axis=1)
    assert s.shape == (2, 3) and (s == 0).all()
    assert ops.sum(np.zeros((0, 5), np.float32), -1).shape == (0,)
    with pytest.raises(ValueError, match="zero-size"):
        ops.max(np.zeros((0, 3), np.float32), axis=0)
    with pytest.raises(ValueError, match="zero-size"):
        ops.argmax(np.zeros((4, 0), np.float32), -1)


def test_c16_argmax_nan():
    x = np.array([[np.nan, 2.5, 3.0], [1.0, np.nan, 3.0]], np.float32)
    np.testing.assert_array_equal(ops.argmax(x, -1), [0, 1])
    assert np.isnan(ops.max(x, -1)).all()
    # NaN in a later chunk and several NaNs
    y = np.zeros((2, 700), np.float32)
    y[0, 600] = np.nan; y[0, 650] = np.nan; y[1, 3] = np.inf; y[1, 500] = np.nan
    np.testing.assert_array_equal(ops.argmax(y, -1), [600, 500])


def test_c17_argmax_ties_int32():
    x = np.array([[3, 1, 4], [4, 4, 1], [1, 4, 4], [4, 2, 4]], np.int32)
    np.testing.assert_array_equal(ops.argmax(x, axis=0), [1, 1, 0])
    np.testing.assert_array_equal(ops.argmax(x, axis=1), [2, 0, 1, 0])
    for L in (33, 1025):
        r = np.zeros((2, L), np.int32)
        r[0, [0, L - 1]] = 7
        r[1, [L - 1]] = 7; r[1, L // 2] = 7
        np.testing.assert_array_equal(ops.argmax(r, -1), [0, L // 2])
        f = r.astype(np.float32) - 100
        np.testing.assert_array_equal(ops.argmax(f, -1), [0, L // 2])
    assert ops.max(np.array([[-5, -2**31, -7]], np.int32), -1)[0] == -5


def test_c19_max_signed_zero():
    for row in ([-0.0, 0.0], [0.0, -0.0]):
        m = ops.max(np.array([row], np.float32), -1)
        assert m[0] == 0 and not np.signbit(m[0]), row


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=str)
def test_half_specials(dt):
    x = np.array([[-np.inf, -np.inf], [1, np.inf], [np.nan, 1]], dt)
    np.testing.assert_array_equal(f64(ops.max(x, -1)), [-np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(ops.argmax(x, -1), [0, 1, 0])


def test_sum_long_row_is_compensated():
    """10^7 copies of 0.1f: plain per-lane float32 accumulation drifts by ~4e-4; Neumaier
    compensation across chunks keeps the relative error at a few float32 ulps."""
    x = np.full((1, 10**7), 0.1, np.float32)
    ref = f64(x).sum()
    assert abs(f64(ops.sum(x, -1))[0] - ref) / ref < 1e-6
    # chunks of 1e8, 1, -1e8, 1 (each lane sees the cancellation): a naive sum gives 256 * k
    k = 64
    y = np.tile(np.repeat(np.array([1e8, 1.0, -1e8, 1.0], np.float32), 256), k)[None, :]
    assert ops.sum(y, -1)[0] == 2.0 * 256 * k
    # a long strided view with a tail takes the same path
    z = np.full((3, 2 * 300_001), 0.1, np.float32)[:, ::2]
    check(ops.sum(z, -1), f64(z).sum(-1), np.float32, "strided long rows", rtol=1e-6, atol=0)


@pytest.mark.parametrize("v", [np.inf, -np.inf, np.nan])
def test_sum_specials_with_compensation(v):
    x = np.ones((3, 1000), np.float32)
    x[1, 500] = v
    got = ops.sum(x, -1)
    assert got[0] == 1000.0 and got[2] == 1000.0
    np.testing.assert_equal(got[1], np.float32(999.0 + v))
    y = np.ones((1, 1000), np.float32)
    y[0, 3], y[0, 700] = np.inf, -np.inf
    assert np.isnan(ops.sum(y, -1)[0])
    big = np.full((1, 600), 3e38, np.float32)   # overflow to inf, not NaN
    assert ops.sum(big, -1)[0] == np.inf


def test_default_axis_is_all_axes_like_numpy(rng_seed):
    """sum/max/min/argmax/argmin default to axis=None (every axis; argmax/argmin index the
    flattened array), as NumPy and PyTorch do; keepdims and tuple axes as in NumPy."""
    rng, seed = rng_seed
    x = rand(rng, (4, 37, 6), np.float32)[:, ::-3, 1:]
    check(ops.sum(x), f64(x).sum(), np.float32, f"sum all seed={seed}", n=x.size)
    assert ops.max(x) == x.max() and ops.min(x) == x.min(), seed
    assert ops.argmax(x) == np.argmax(x) and ops.argmin(x) == np.argmin(x), seed
    assert ops.sum(x, keepdims=True).shape == (1, 1, 1)
    assert ops.argmax(x, keepdims=True).shape == (1, 1, 1) and ops.argmax(x, keepdims=True).item() == np.argmax(x)
    check(ops.sum(x, (0, 2)), f64(x).sum((0, 2)), np.float32, f"sum (0, 2) seed={seed}", n=20)
    np.testing.assert_array_equal(ops.max(x, 1, keepdims=True), x.max(1, keepdims=True))
    x[1, 2, 3] = np.nan
    assert np.isnan(ops.max(x)) and ops.argmax(x) == np.argmax(x)
    with pytest.raises(ValueError, match="zero-size"):
        ops.argmax(np.zeros((3, 0), np.float32))
