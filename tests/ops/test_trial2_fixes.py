"""Regression tests for the trial-2 bug reports: aliasing out=, float fmod/floor_divide/remainder
vs NumPy, unbatched conv/pool, conv padding strings, clamp with arrays, sdpa head check."""
import numpy as np
import pytest

import tl.ops as ops


def test_transpose_gather_permute_in_place(rng_seed):
    rng, seed = rng_seed
    a = rng.standard_normal((64, 64)).astype(np.float32)
    x = a.copy()
    ops.transpose(x, out=x)
    assert np.array_equal(x, a.T), seed
    x = a.copy()
    ops.gather(x, np.arange(63, -1, -1), 0, out=x)
    assert np.array_equal(x, a[::-1]), seed
    x = a.copy()
    ops.permute(x, (1, 0), out=x)
    assert np.array_equal(x, a.T), seed
    xi = (a * 100).astype(np.int32)
    y = xi.copy()
    ops.permute(y, (1, 0), out=y)
    assert np.array_equal(y, xi.T), seed


def _same(g, e):
    nan = np.isnan(e)
    return (np.array_equal(np.isnan(g), nan) and np.array_equal(g[~nan], e[~nan])
            and np.array_equal(np.signbit(g[~nan]), np.signbit(e[~nan])))


SPECIAL = [(3, np.inf), (-3, np.inf), (3, -np.inf), (0, np.inf), (-0., np.inf), (1, 0), (0, 0),
           (-1, 0), (np.inf, 2), (-np.inf, 2), (-0., 1), (-0., -1), (1, 0.1), (5.5, -2), (-5.5, 2),
           (np.nan, 1), (1, np.nan), (1e30, 3), (-1e30, 7e-30), (1e-40, 3e-41)]


@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide"])
def test_float_divmod_special(op):
    a = np.float32([p[0] for p in SPECIAL])
    b = np.float32([p[1] for p in SPECIAL])
    with np.errstate(all="ignore"):
        e = getattr(np, op)(a, b)
    g = getattr(ops, op)(a, b)
    assert _same(g, e), (op, a, b, g, e)


@pytest.mark.parametrize("op", ["fmod", "remainder", "floor_divide"])
def test_float_divmod_random_wide(op, rng_seed):
    rng, seed = rng_seed
    n = 2048
    a = (rng.standard_normal(n) * 10.0 ** rng.uniform(-15, 15, n)).astype(np.float32)
    b = (rng.standard_normal(n) * 10.0 ** rng.uniform(-15, 15, n)).astype(np.float32)
    with np.errstate(all="ignore"):
        e = getattr(np, op)(a, b)
    g = getattr(ops, op)(a, b)
    assert _same(g, e), seed


def test_conv_pool_unbatched_and_padding_strings(rng_seed):
    rng, seed = rng_seed
    x = rng.standard_normal((3, 8, 9)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(np.float32)
    same = ops.conv2d(x, w, padding="same")
    ref = ops.conv2d(x[None], w, padding=(1, 0, 1, 1))[0]
    assert same.shape == (4, 8, 9) and np.allclose(same, ref), seed
    valid = ops.conv2d(x, w, padding="valid")
    assert valid.shape == (4, 6, 8) and np.allclose(valid, ops.conv2d(x[None], w)[0]), seed
    with pytest.raises(ValueError, match="stride 1"):
        ops.conv2d(x, w, padding="same", stride=2)
    assert np.array_equal(ops.max_pool2d(x, 2), ops.max_pool2d(x[None], 2)[0]), seed
    assert np.allclose(ops.avg_pool2d(x, 2), ops.avg_pool2d(x[None], 2)[0]), seed


def test_clamp_array_bounds(rng_seed):
    rng, seed = rng_seed
    x = rng.standard_normal((5, 8)).astype(np.float32)
    lo = rng.standard_normal((8,)).astype(np.float32) - 1
    hi = rng.standard_normal((5, 1)).astype(np.float32) + 1
    assert np.array_equal(ops.clamp(x, lo, hi), np.minimum(np.maximum(x, lo), hi)), seed
    assert np.array_equal(ops.clamp(x, min=lo), np.maximum(x, lo)), seed


def test_sdpa_head_mismatch_message():
    q = np.zeros((3, 4, 8), np.float32)
    k = np.zeros((2, 4, 8), np.float32)
    with pytest.raises(ValueError, match="multiple"):
        ops.scaled_dot_product_attention(q, k, k)


def test_docs():
    assert "num_outputs" in ops.split.__doc__ and "NOT torch" in ops.split.__doc__
    assert "(data, indices, updates, axis)" in ops.scatter_add.__doc__
