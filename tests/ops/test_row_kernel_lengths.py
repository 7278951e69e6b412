"""Row kernels (layer_norm, rms_norm, softmax, log_softmax, sum, gelu) at row lengths around
their 256-wide chunks and 16-lane vectors (1, 15, 16, 17, 255, 256, 257, 4097), contiguous and
strided rows, against float64 NumPy.

Targets the code paths of ops/norm.py, ops/softmax.py, ops/reduce.py and ops/activation.py:
layer_norm's first pass pads the last chunk with the row's first element (so x - x0 is 0
there, no mask) and its second pass masks only the partial last chunk; softmax stores e in
the same loop that sums it; sums add TwoSum's exact error term; gelu takes one exp of a
two-part exponent.
"""
import numpy as np
import pytest
from scipy.special import erfc

import tl.ops as ops
from ops_helpers import FLOATS, check, f64, poisoned, rand
from ops_helpers import ref_layer_norm as _ln, ref_rms_norm as _rms

LENGTHS = [1, 15, 16, 17, 255, 256, 257, 4097]


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return (x - m) - np.log(np.exp(x - m).sum(-1, keepdims=True))


def _rows(rng, n, dt, strided):
    """(4, n) rows whose first element is an outlier (x0 = 40 above the rest), so layer_norm's
    shifted mean dm is large: padding lanes that were not exactly zero would show."""
    if strided:
        base = rand(rng, (8, 3 * n + 1), dt, -2, 2)
        x = base[::2, 1::3]
    else:
        x = rand(rng, (4, n), dt, -2, 2)
    x[:, 0] = np.asarray(40, dt)
    return x


def ROW_CASES(fn):
    """Every row length x float dtype x (contiguous, strided rows)."""
    for mark in (pytest.mark.parametrize("n", LENGTHS), pytest.mark.parametrize("dt", FLOATS, ids=str),
                 pytest.mark.parametrize("strided", [False, True], ids=["contiguous", "strided"])):
        fn = mark(fn)
    return fn


@ROW_CASES
def test_norms_lengths(n, dt, strided, rng_seed):
    rng, seed = rng_seed
    x = _rows(rng, n, dt, strided)
    w = rand(rng, (n,), dt, 0.5, 2)
    b = rand(rng, (n,), dt)
    rt = 1e-5 if np.dtype(dt) == np.float32 else None
    msg = f"n={n} {dt} strided={strided} seed={seed}"
    out = poisoned(x.shape, dt)
    ops.layer_norm(x, w, b, eps=1e-5, out=out)
    # the kernel shifts by x0, an outlier k = |x0 - mean| / std deviations out: x - x0 rounds,
    # about k ulp of the output scale (|w|) per output (ops/norm.py docstring); 8 ulp per unit of k
    xd = f64(x)
    k = np.max(np.abs(xd[:, 0] - xd.mean(-1)) / np.sqrt(xd.var(-1) + 1e-5))
    at = 1e-5 + 8 * 2.0 ** -24 * k * np.max(np.abs(f64(w)))
    check(out, _ln(xd, f64(w), f64(b), 1e-5), dt, "layer_norm " + msg, rtol=rt, atol=at if rt else None)
    out = poisoned(x.shape, dt)
    ops.rms_norm(x, w, eps=1e-6, out=out)
    check(out, _rms(f64(x), f64(w), 1e-6), dt, "rms_norm " + msg, rtol=rt, atol=1e-5 if rt else None)


@ROW_CASES
def test_softmax_sum_lengths(n, dt, strided, rng_seed):
    rng, seed = rng_seed
    x = _rows(rng, n, dt, strided)
    x[:, 0] = np.asarray(3, dt)
    msg = f"n={n} {dt} strided={strided} seed={seed}"
    rt = 4e-6 if np.dtype(dt) == np.float32 else None
    out = poisoned(x.shape, dt)
    ops.softmax(x, out=out)
    check(out, _softmax(f64(x)), dt, "softmax " + msg, rtol=rt, atol=1e-7 if rt else None)
    out = poisoned(x.shape, dt)
    ops.log_softmax(x, out=out)
    check(out, _log_softmax(f64(x)), dt, "log_softmax " + msg, rtol=rt, atol=1e-5 if rt else None)
    check(ops.sum(x, axis=-1), f64(x).sum(-1), dt, "sum " + msg, n=n)


@pytest.mark.parametrize("n", [1, 17, 257, 4097])
@pytest.mark.parametrize("v", [np.inf, -np.inf, np.nan])
def test_layer_norm_special_first_and_later(n, v):
    """A special value as the row's first element (it is also the padding value of the first
    pass) or later in the row makes that row NaN; other rows are untouched."""
    x = np.tile(np.linspace(-1, 1, n, dtype=np.float32), (3, 1))
    x[0, 0] = v
    x[2, n - 1] = v
    got = ops.layer_norm(x)
    assert np.isnan(got[0]).all() and np.isnan(got[2]).all()
    check(got[1:2], _ln(f64(x[1:2]), 1, 0, 1e-5), np.float32, f"n={n} v={v}", rtol=1e-5, atol=1e-5)


def test_layer_norm_large_shift_tail():
    """x0 far from the rest with a partial last chunk: the first pass pads with x0 (exact 0
    after the shift), the second masks the tail; both wrong would be off by ~250x here."""
    x = np.full((2, 257), 0.5, np.float32)
    x[:, 1::2] = -0.5
    x[:, 0] = 1000.0
    check(ops.layer_norm(x), _ln(f64(x), 1, 0, 1e-5), np.float32, "shift tail", rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n", [1, 15, 16, 17, 255, 256, 257, 4097])
def test_gelu_lengths_dense(n, rng_seed):
    """gelu (erf form) over a dense sweep of [-14, 6] cut into rows of length n (tails,
    strided), float32 rtol 2e-6 as in test_activation (one exp of hi + lo, TwoSum error)."""
    rng, seed = rng_seed
    xs = np.linspace(-14, 6, 40 * n + 7).astype(np.float32)
    rows = xs[: (xs.size // n) * n].reshape(-1, n)
    ref = 0.5 * f64(rows) * erfc(-f64(rows) / np.sqrt(2.0))
    check(ops.gelu(rows), ref, np.float32, f"gelu n={n}", rtol=2e-6, atol=1e-37)
    base = rand(rng, (6, 2 * n + 1), np.float32, -12, 5)
    x = base[::2, 1::2]
    ref = 0.5 * f64(x) * erfc(-f64(x) / np.sqrt(2.0))
    check(ops.gelu(x), ref, np.float32, f"gelu strided n={n} seed={seed}", rtol=2e-6, atol=1e-37)
