"""scaled_dot_product_attention through the flash_attention kernel (ops/flash_attention.py):
float64 NumPy reference and torch; causal, boolean/additive masks, grouped-query heads, scale,
tails (lengths not multiples of the 64 block, length 1), fully masked rows (docs/semantics.md#c-11), f16/bf16."""
import math

import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import FLOATS, check, f64, rand


def _ref(q, k, v, mask=None, causal=False, scale=None):
    """float64 attention; q (..., Hq, L, E), k/v (..., Hk, S, E); fully masked rows give 0."""
    q, k, v = f64(q), f64(k), f64(v)
    g = q.shape[-3] // k.shape[-3]
    k, v = np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3)
    sc = 1.0 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * sc
    L, S = s.shape[-2:]
    if causal:
        s = np.where(np.tril(np.ones((L, S), bool)), s, -np.inf)
    if mask is not None:
        s = np.where(mask, s, -np.inf) if mask.dtype == np.bool_ else s + f64(mask)
    mx = s.max(-1, keepdims=True)
    p = np.exp(s - np.where(np.isneginf(mx), 0.0, mx))
    t = p.sum(-1, keepdims=True)
    return np.where(t == 0, 0.0, p / np.where(t == 0, 1.0, t)) @ v


@pytest.mark.parametrize("L,S,E", [(1, 1, 64), (100, 77, 64), (130, 200, 48), (64, 64, 16),
                                   (65, 129, 128), (3, 300, 80)])
@pytest.mark.parametrize("causal", [False, True])
def test_flash_shapes(L, S, E, causal, rng_seed):
    rng, seed = rng_seed
    q, k, v = rand(rng, (2, 4, L, E), np.float32), rand(rng, (2, 4, S, E), np.float32), rand(rng, (2, 4, S, E), np.float32)
    got = ops.scaled_dot_product_attention(q, k, v, is_causal=causal)
    # the float32 rounding error of each score q.k grows with the dot length E and reaches the
    # output through exp (relative error of p = absolute error of the score): atol 1e-5 per 32
    # of E (E = 128 measured up to 1.05e-5 on 1 seed in ~100)
    check(got, _ref(q, k, v, causal=causal), np.float32, f"L={L} S={S} E={E} causal={causal} seed={seed}",
          rtol=1e-5, atol=1e-5 * max(1, E / 32))


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_flash_gqa_mask_scale(dt, rng_seed):
    rng, seed = rng_seed
    q = rand(rng, (2, 8, 70, 32), dt)
    k, v = rand(rng, (2, 2, 90, 32), dt), rand(rng, (2, 2, 90, 24), dt)
    keep = rng.random((2, 1, 1, 90)) < 0.7
    keep[1, 0, 0, :] = False                                   # batch 1: every key masked -> 0 (docs/semantics.md#c-11)
    got = ops.scaled_dot_product_attention(q, k, v, attn_mask=keep, scale=0.3, enable_gqa=True)
    ref = _ref(q, k, v, keep, scale=0.3)
    check(got, ref, dt, f"gqa bool mask {dt} seed={seed}", rtol=1e-5 if dt == np.float32 else None,
          atol=1e-5 if dt == np.float32 else None)
    assert got.dtype == np.dtype(dt) and not np.any(f64(got[1]))
    add = rng.standard_normal((70, 90)).astype(np.float32)
    add[5, :] = -np.inf                                        # one fully masked row
    got = ops.scaled_dot_product_attention(q, k, v, attn_mask=add, is_causal=True)
    check(got, _ref(q, k, v, add, causal=True), dt, f"gqa additive causal {dt} seed={seed}",
          rtol=1e-5 if dt == np.float32 else None, atol=1e-5 if dt == np.float32 else None)
    assert not np.any(f64(got[:, :, 5]))


def test_flash_vs_torch(rng_seed):
    torch = pytest.importorskip("torch")
    rng, seed = rng_seed
    q, k, v = (rand(rng, (1, 4, 257, 64), np.float32) for _ in range(3))
    got = ops.scaled_dot_product_attention(q, k, v, is_causal=True)
    ref = torch.nn.functional.scaled_dot_product_attention(*(torch.from_numpy(a) for a in (q, k, v)),
                                                           is_causal=True).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5, err_msg=f"seed={seed}")


def test_flash_fallback_large_head(rng_seed):
    rng, seed = rng_seed
    q, k, v = (rand(rng, (1, 2, 20, 160), np.float32) for _ in range(3))
    check(ops.scaled_dot_product_attention(q, k, v), _ref(q, k, v), np.float32, f"E=160 seed={seed}",
          rtol=1e-5, atol=1e-5)
