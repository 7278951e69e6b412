"""layer_norm and rms_norm against float64 NumPy; docs/semantics.md#c-14."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16, FLOATS, check, f64, poisoned, rand
from ops_helpers import ref_layer_norm as _ln, ref_rms_norm as _rms


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("n", [1, 5, 33, 256, 1000])
def test_norms_random(dt, n, rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (3, 5, n), dt, -4, 4) + np.asarray(3, dt)
    w = rand(rng, (n,), dt, 0.5, 2)
    b = rand(rng, (n,), dt)
    out = poisoned(x.shape, dt)
    ops.layer_norm(x, w, b, eps=1e-5, out=out)
    rt = 1e-5 if np.dtype(dt) == np.float32 else None
    check(out, _ln(f64(x), f64(w), f64(b), 1e-5), dt, f"layer_norm {dt} n={n} seed={seed}",
          rtol=rt, atol=1e-5 if rt else None)
    check(ops.rms_norm(x, w, eps=1e-6), _rms(f64(x), f64(w), 1e-6), dt,
          f"rms_norm {dt} n={n} seed={seed}", rtol=rt, atol=1e-5 if rt else None)


def test_norm_strided_and_defaults(rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (20, 64), np.float32)[::-2, 1::2]
    check(ops.layer_norm(x), _ln(f64(x), 1, 0, 1e-5), np.float32, f"seed={seed}", rtol=1e-5, atol=1e-5)
    check(ops.rms_norm(x), _rms(f64(x), 1, 1e-6), np.float32, f"seed={seed}", rtol=1e-5, atol=1e-5)


def test_c14_layer_norm_cancellation():
    x = np.array([[30000, 30001, 30002, 30003]], np.float32)
    got = ops.layer_norm(x, eps=1e-5)
    np.testing.assert_allclose(got[0], [-1.341635, -0.4472118, 0.4472118, 1.341635], rtol=1e-5)
    big = (np.float32(1e4) + np.arange(3000, dtype=np.float32) % 7)[None, :]
    check(ops.layer_norm(big), _ln(f64(big), 1, 0, 1e-5), np.float32, "offset row", rtol=1e-5, atol=1e-5)


def test_norm_errors_and_empty():
    x = np.ones((2, 4), np.float32)
    with pytest.raises(ValueError, match="'weight'"):
        ops.layer_norm(x, np.ones(3, np.float32))
    with pytest.raises(TypeError, match="'bias'"):
        ops.layer_norm(x, np.ones(4, np.float32), np.ones(4, np.float16))
    assert ops.rms_norm(np.zeros((0, 4), np.float32)).shape == (0, 4)


def test_long_row_statistics_compensated():
    """Compensated accumulation: rms_norm / layer_norm / softmax on a 2*10^6 row of 0.1 + tiny
    noise stay at float32 accuracy (plain per-lane sums drift by ~1e-4 here)."""
    rng = np.random.default_rng(0)
    x = (0.1 + 1e-3 * rng.standard_normal((1, 2_000_000))).astype(np.float32)
    w = np.ones(x.shape[1], np.float32)
    b = np.zeros(x.shape[1], np.float32)
    xf = f64(x)
    ref = xf / np.sqrt((xf * xf).mean(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(f64(ops.rms_norm(x, w, 1e-5)), ref, rtol=3e-6)
    ref = (xf - xf.mean(-1, keepdims=True)) / np.sqrt(xf.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(f64(ops.layer_norm(x, w, b, 1e-5)), ref, rtol=1e-4, atol=1e-4)
    e = np.exp(xf - xf.max())
    np.testing.assert_allclose(f64(ops.softmax(x)), e / e.sum(), rtol=3e-6)
