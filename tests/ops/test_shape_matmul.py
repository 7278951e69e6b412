"""transpose and matmul against float64 NumPy; docs/semantics.md#c-03 (fp32 dot precision)."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16, FLOATS, check, f64, poisoned, rand


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("shape", [(1, 1), (3, 70), (65, 33), (100, 129)])
def test_transpose(dt, shape, rng_seed):
    rng, seed = rng_seed
    x = rand(rng, shape, dt)
    np.testing.assert_array_equal(f64(ops.transpose(x)), f64(x).T, err_msg=f"seed={seed}")
    v = rand(rng, (shape[0] * 2, shape[1] * 3), dt)[::-2, ::3]
    out = poisoned(v.shape[::-1], dt)
    ops.transpose(v, out=out)
    np.testing.assert_array_equal(f64(out), f64(v).T)


def test_transpose_specials_and_empty():
    x = np.array([[np.nan, -0.0], [np.inf, 1e-40]], np.float32)
    t = ops.transpose(x)
    assert np.isnan(t[0, 0]) and np.signbit(t[1, 0]) and t[0, 1] == np.inf and t[1, 1] == np.float32(1e-40)
    assert ops.transpose(np.zeros((0, 5), np.float32)).shape == (5, 0)


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_transpose_axes_as_numpy(dt, rng_seed):
    """The second positional argument is axes, as np.transpose's (a fresh user's (1, 0) was bound
    to out=); N-D and other permutations match np.transpose exactly; bad axes are a ValueError."""
    rng, seed = rng_seed
    x = rand(rng, (7, 130), dt)
    np.testing.assert_array_equal(f64(ops.transpose(x, (1, 0))), f64(x).T, err_msg=f"seed={seed}")
    np.testing.assert_array_equal(f64(ops.transpose(x, [0, 1])), f64(x))
    y = rand(rng, (3, 5, 9), dt)[:, ::-2]
    for axes in (None, (1, 0, 2), (-1, 0, 1), (2, 1, 0)):
        got = ops.transpose(y, axes)
        assert got.flags.c_contiguous and got.dtype == y.dtype
        np.testing.assert_array_equal(f64(got), np.transpose(f64(y), axes), err_msg=f"{axes} seed={seed}")
    for bad in ((0, 0, 1), (0, 1), (0, 1, 3)):
        with pytest.raises(ValueError, match="not a permutation"):
            ops.transpose(y, bad)
    with pytest.raises(TypeError, match="'axes' must be a sequence of ints"):
        ops.transpose(x, np.empty((130, 7), np.float32))


@pytest.mark.parametrize("mkn", [(1, 1, 1), (5, 7, 3), (64, 64, 64), (65, 33, 129), (100, 200, 50)])
def test_matmul_f32(mkn, rng_seed):
    rng, seed = rng_seed
    m, k, n = mkn
    a, b = rand(rng, (m, k), np.float32), rand(rng, (k, n), np.float32)
    out = poisoned((m, n), np.float32)
    ops.matmul(a, b, out=out)
    ref = f64(a) @ f64(b)
    atol = 1e-5 * k * np.abs(f64(a)) @ np.abs(f64(b)) / k / 9 + 1e-6
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=float(atol.max()), err_msg=f"{mkn} seed={seed}")


def test_matmul_bf16_batched_views(rng_seed):
    rng, seed = rng_seed
    a = rand(rng, (2, 3, 17, 40), BF16)
    b = rand(rng, (3, 40, 21), BF16)
    got = ops.matmul(a, b)
    assert got.dtype == np.float32 and got.shape == (2, 3, 17, 21)
    check(got, f64(a) @ f64(b), np.float32, f"bf16 seed={seed}", rtol=1e-5, atol=1e-4)
    at = rand(rng, (40, 30), np.float32).T[::-1]        # (30, 40) strided
    bt = rand(rng, (90, 40), np.float32)[::3].T         # (40, 30) strided
    check(ops.matmul(at, bt), f64(at) @ f64(bt), np.float32, f"views seed={seed}", rtol=1e-5, atol=1e-4)


def test_matmul_vectors_empty_errors():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    v = np.ones(3, np.float32)
    np.testing.assert_array_equal(ops.matmul(a, v), [3, 12])
    np.testing.assert_array_equal(ops.matmul(v, a.T), [3, 12])
    assert ops.matmul(np.zeros((2, 0), np.float32), np.zeros((0, 4), np.float32)).tolist() == [[0] * 4] * 2
    assert ops.matmul(np.zeros((0, 3), np.float32), np.zeros((3, 4), np.float32)).shape == (0, 4)
    with pytest.raises(ValueError, match="aligned"):
        ops.matmul(a, a)
    with pytest.raises(TypeError, match="'a'"):
        ops.matmul(a.astype(np.float64), a.T.astype(np.float64))
    np.testing.assert_array_equal(ops.matmul(a.astype(np.float16), a.T.astype(np.float16)), a @ a.T)  # float16: exact here


def test_c03_fp32_dot_precision():
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = 1 + 2.0 ** -13
    c = ops.matmul(a, np.eye(16, dtype=np.float32))
    assert c[0, 0] == np.float32(1.0001220703125)
