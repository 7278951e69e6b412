"""conv2d's 7x7/2 stem path (C = 3, output width >= 112): conv2d_phase2 (ops/conv.py), two
dots over the even and odd column taps. Against torch conv2d in float64: odd heights, widths
with a ragged last column phase, every padding side, output channels that are not a multiple
of the 64-channel block, batch > 1, strided (non-contiguous) input views, bias. Tolerance:
fp32 accumulation over K = 147 terms, 2e-6 * sqrt(K) * max|ref| + 1e-5."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tl.ops as ops
from tl.ops import nn as _ops_nn


def _ref(x, w, b, padding):
    t = lambda a: torch.from_numpy(np.asarray(a, np.float64))   # noqa: E731
    pt, pl, pb, pr = _ops_nn._pads4(padding)
    xp = F.pad(t(x), (pl, pr, pt, pb))
    return F.conv2d(xp, t(w), None if b is None else t(b), 2).numpy()


def _conv(x, w, b, padding):
    """ops.conv2d, asserting it took the conv2d_phase2 path."""
    seen = []
    real = _ops_nn._launch
    _ops_nn._launch = lambda name, *a: (seen.append(name), real(name, *a))
    try:
        y = ops.conv2d(x, w, b, stride=2, padding=padding)
    finally:
        _ops_nn._launch = real
    assert [s.split("__")[0] for s in seen] == ["conv2d_phase2"], seen
    return y


# (N, H, W, Co, padding): ResNet stem, odd sizes, asymmetric and zero padding, Co tails
CASES = [(1, 224, 224, 64, 3), (2, 17, 229, 64, 3), (1, 9, 226, 70, (0, 2, 3, 1)),
         (3, 12, 230, 32, 0), (1, 14, 227, 130, (2, 3, 0, 0)), (1, 7, 227, 64, (1, 0, 2, 3))]


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_conv_phase2_matches_float64(case):
    n, h, wd, co, p = case
    rng = np.random.default_rng(sum(map(hash, map(str, case))) % 2**32)
    x = rng.standard_normal((n, 3, h, wd)).astype(np.float32)
    w = rng.standard_normal((co, 3, 7, 7)).astype(np.float32)
    b = rng.standard_normal(co).astype(np.float32)
    y = _conv(x, w, b, p)
    r = _ref(x, w, b, p)
    assert y.shape == r.shape and y.dtype == np.float32
    tol = 2e-6 * np.sqrt(147) * np.abs(r).max() + 1e-5
    err = np.abs(y.astype(np.float64) - r).max()
    assert err <= tol, f"max err {err} > {tol}"


def test_conv_phase2_strided_views():
    """non-contiguous input (every other row and column of a larger array, channels reversed)
    and weights (a transposed copy viewed back) give the same result as their contiguous copies."""
    rng = np.random.default_rng(7)
    big = rng.standard_normal((2, 3, 30, 460)).astype(np.float32)
    x = big[:, ::-1, ::2, 1::2]                       # (2, 3, 15, 230), negative and step-2 strides
    w = rng.standard_normal((7, 7, 3, 64)).astype(np.float32).transpose(3, 2, 0, 1)
    assert not x.flags.c_contiguous and not w.flags.c_contiguous
    y = _conv(x, w, None, 3)
    r = _ref(x, w, None, 3)
    assert y.shape == r.shape == (2, 64, 8, 115)
    err = np.abs(y.astype(np.float64) - r).max()
    assert err <= 2e-6 * np.sqrt(147) * np.abs(r).max() + 1e-5, err
    np.testing.assert_array_equal(y, _conv(np.ascontiguousarray(x), np.ascontiguousarray(w), None, 3))
