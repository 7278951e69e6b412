"""batch_norm (inference, training with running stats, the fused residual + ReLU epilogue of
ops/affine.py) and max_pool2d (the maximum chain over window views for windows of <= 16 cells,
the window copy above that) against PyTorch eager.
Tolerances: float32 batch norm 2e-6 relative + 2e-6 absolute (PyTorch folds the same way:
x * alpha + beta); float16/bfloat16 one rounding of the float32 result (1e-3 / 1e-2
relative). Max pooling is exact (NaN propagates, -inf padding)."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16

torch = pytest.importorskip("torch", reason="checked against PyTorch (the test extra)")
F = torch.nn.functional
T = torch.from_numpy


def _stats(rng, c):
    return (rng.standard_normal(c).astype(np.float32), rng.uniform(0.2, 3, c).astype(np.float32),
            rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32))


@pytest.mark.parametrize("act", [None, "relu"])
@pytest.mark.parametrize("with_res", [False, True])
@pytest.mark.parametrize("shape", [(2, 5, 7, 9), (1, 3, 17), (3, 4)])
def test_batch_norm_inference_fused(rng_seed, act, with_res, shape):
    rng, seed = rng_seed
    c = shape[1]
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    x.reshape(-1)[:3] = [np.nan, -0.0, np.inf]
    m, v, w, b = _stats(rng, c)
    res = rng.standard_normal(shape).astype(np.float32) if with_res else None
    got = ops.batch_norm(x, m, v, w, b, eps=1e-5, activation=act, residual=res)
    ref = F.batch_norm(T(x), T(m), T(v), T(w), T(b), False, 0.0, 1e-5)
    if with_res:
        ref = ref + T(res)
    if act:
        ref = F.relu(ref)
    np.testing.assert_allclose(got, ref.numpy(), rtol=2e-6, atol=2e-6, equal_nan=True, err_msg=f"seed {seed}")


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=str)
def test_batch_norm_half_dtypes_and_strided(rng_seed, dt):
    rng, seed = rng_seed
    x = rng.standard_normal((2, 6, 5, 8)).astype(np.float32)
    m, v, w, b = _stats(rng, 6)
    xs = x.astype(dt)[:, :, :, ::2]                          # strided view
    got = np.asarray(ops.batch_norm(xs, m, v, w, b, activation="relu"), np.float64)
    ref = F.relu(F.batch_norm(T(np.asarray(xs, np.float32)), T(m), T(v), T(w), T(b), False, 0.0, 1e-5)).numpy()
    tol = 1e-3 if dt == np.float16 else 1e-2
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, err_msg=f"seed {seed}")


def test_batch_norm_training_updates_running_stats(rng_seed):
    rng, seed = rng_seed
    x = rng.standard_normal((4, 3, 5, 6)).astype(np.float32) + 2
    m, v, w, b = _stats(rng, 3)
    rm, rv = m.copy(), v.copy()
    got = ops.batch_norm(x, rm, rv, w, b, training=True, momentum=0.2)
    tm, tv = T(m.copy()), T(v.copy())
    ref = F.batch_norm(T(x), tm, tv, T(w), T(b), True, 0.2, 1e-5)
    np.testing.assert_allclose(got, ref.numpy(), rtol=1e-5, atol=1e-5, err_msg=f"seed {seed}")
    # the update momentum * mean + (1 - momentum) * r is done in float64 by both (PyTorch's CPU
    # kernel promotes to double), but the batch mean is a float32 value in each, rounded from
    # different sums: they may differ by an ulp of the mean (<= 2^-23 |mean|), which enters scaled
    # by momentum; the update cancels near zero (mean ~ 2, r ~ N(0, 1)), so that is absolute
    bm = np.abs(x.astype(np.float64).mean((0, 2, 3))).max()
    np.testing.assert_allclose(rm, tm.numpy(), rtol=1e-6, atol=0.2 * 2.0 ** -23 * bm * 1.01, err_msg=f"seed {seed}")
    np.testing.assert_allclose(rv, tv.numpy(), rtol=1e-5)


def test_batch_norm_errors_and_empty():
    x = np.zeros((2, 3, 4), np.float32)
    m, v = np.zeros(3, np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match="activation"):
        ops.batch_norm(x, m, v, activation="gelu")
    with pytest.raises(ValueError, match="residual"):
        ops.batch_norm(x, m, v, residual=np.zeros((2, 3, 5), np.float32))
    assert ops.batch_norm(np.zeros((0, 3, 4), np.float32), m, v).shape == (0, 3, 4)


@pytest.mark.parametrize("k,s,p,d,ceil", [(3, 2, 1, 1, False), (2, 2, 0, 1, False), (3, 1, 1, 1, True),
                                         (3, 2, 1, 2, True), (4, 3, 2, 1, True), ((2, 3), (1, 2), (1, 0), 1, False),
                                         (5, 2, 2, 1, False)])
def test_max_pool2d_against_torch(rng_seed, k, s, p, d, ceil):
    rng, seed = rng_seed
    x = rng.standard_normal((2, 3, 13, 11)).astype(np.float32)
    x[0, 0, 0, :4] = [np.nan, -np.inf, np.inf, -0.0]
    x[1, 2] = -np.inf                                          # a whole -inf plane
    got = ops.max_pool2d(x, k, s, p, d, ceil)
    ref = F.max_pool2d(T(x), k, s, p, d, ceil).numpy()
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got, ref, err_msg=f"seed {seed}")
    xs = x[:, :, ::-1, 1:]                                     # a strided, reversed view
    np.testing.assert_array_equal(ops.max_pool2d(xs, k, s, p, d, ceil),
                                  F.max_pool2d(T(np.ascontiguousarray(xs)), k, s, p, d, ceil).numpy())
