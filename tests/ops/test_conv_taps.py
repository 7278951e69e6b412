"""conv2d through conv2d_taps / conv2d_dw_taps (ops/conv.py): per-tap GEMMs over the phase-plane
flattened input (tl/ops/nn.py _taps_plan). Stride 1/2/3, dilation, odd sizes, asymmetric
padding 0..3, groups, depthwise, channel counts that are not a multiple of the channel block,
batch 1/3/8, strided inputs, float16/bfloat16, against torch conv2d in float64.
Tolerance: fp32 accumulation over K = C/g * KH * KW terms, 2e-6 * sqrt(K) * max|ref| + 1e-5
(+ the output rounding for float16/bfloat16)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import tl.ops as ops
from tl.ops import nn as _ops_nn


def _ref(x, w, b, stride, padding, dilation=1, groups=1):
    t = lambda a: torch.from_numpy(np.asarray(a, np.float64))   # noqa: E731
    pads = _ops_nn._pads4(padding)
    xp = F.pad(t(x), (pads[1], pads[3], pads[0], pads[2]))
    return F.conv2d(xp, t(w), None if b is None else t(b), stride, 0, dilation, groups).numpy()


def _check(y, r, w):
    k = w.shape[1] * w.shape[2] * w.shape[3]
    tol = 2e-6 * np.sqrt(k) * np.abs(r).max() + 1e-5
    assert y.shape == r.shape and y.dtype == np.float32
    err = np.abs(y.astype(np.float64) - r).max()
    assert err <= tol, f"max err {err} > {tol}"


def _launched(monkeypatch):
    seen = []
    real = _ops_nn._launch
    monkeypatch.setattr(_ops_nn, "_launch", lambda name, *a: (seen.append(name), real(name, *a)))
    return seen


# (N, C, H, W, Co, (KH, KW), stride, padding, dilation, groups)
CASES = [(1, 64, 33, 31, 64, (3, 3), 1, 1, 1, 1),          # big enough for conv2d_taps at stride 1
         (3, 40, 29, 27, 70, (3, 3), 1, 1, 1, 1),          # C = 40: channel-block tail (BC 16)
         (8, 32, 12, 13, 64, (3, 3), 1, 1, 1, 1),          # batch 8, BC 32
         (1, 17, 30, 30, 20, (5, 3), 1, (2, 1, 0, 3), 1, 1),   # odd channels, asymmetric padding
         (1, 64, 23, 25, 64, (3, 3), 2, 1, 1, 1),          # ResNet 3x3/2
         (3, 24, 20, 19, 33, (3, 3), 2, 0, 1, 1),
         (1, 16, 26, 27, 16, (7, 7), 2, 3, 1, 1),
         (1, 32, 31, 29, 48, (1, 1), 2, 1, 1, 1),          # 1x1/2 with padding
         (1, 16, 25, 25, 16, (3, 3), 3, 2, 1, 1),          # stride 3
         (2, 32, 21, 22, 32, (3, 3), 1, 2, 2, 1),          # dilation 2
         (1, 16, 24, 23, 24, (3, 3), 2, 2, (2, 3), 1),     # stride 2 with dilation (2, 3)
         (2, 64, 27, 28, 128, (3, 3), 1, 1, 1, 2),         # groups 2
         (1, 64, 15, 16, 64, (3, 3), 2, 1, 1, 4),          # groups 4, 16 channels each, stride 2
         (1, 32, 20, 21, 130, (3, 3), 2, 1, 1, 1),         # 128-row weight blocks (BM 128), Co tail
         (3, 64, 31, 33, 256, (3, 3), 1, 1, 1, 2)]         # BM 128 per group, batch 3


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_conv_taps_matches_float64(case, monkeypatch):
    n, c, h, wd, co, (kh, kw), s, p, d, g = case
    rng = np.random.default_rng(abs(hash(case)) % 2**32)
    x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
    w = rng.standard_normal((co, c // g, kh, kw)).astype(np.float32)
    b = rng.standard_normal(co).astype(np.float32)
    seen = _launched(monkeypatch)
    y = ops.conv2d(x, w, b, stride=s, padding=p, dilation=d, groups=g)
    assert any(k.startswith("conv2d_taps__") for k in seen), seen
    _check(y, _ref(x, w, b, s, p, d, g), w)


DW_CASES = [(1, 32, 15, 17, 3, 1, 1, 1), (3, 24, 20, 21, 3, 2, 1, 1), (2, 13, 12, 11, 5, 1, 2, 1),
            (1, 16, 14, 14, 3, 1, 2, 2), (8, 8, 9, 9, 7, 2, 3, 1)]


@pytest.mark.parametrize("case", DW_CASES, ids=[str(c) for c in DW_CASES])
def test_conv_depthwise_matches_float64(case, monkeypatch):
    n, c, h, wd, k, s, p, d = case
    rng = np.random.default_rng(abs(hash(case)) % 2**32)
    x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
    w = rng.standard_normal((c, 1, k, k)).astype(np.float32)
    seen = _launched(monkeypatch)
    y = ops.conv2d(x, w, stride=s, padding=p, dilation=d, groups=c)
    assert seen == ["conv2d_dw_taps__BC_8__BW_256"], seen
    _check(y, _ref(x, w, None, s, p, d, c), w)


def test_conv_taps_strided_input_and_bias():
    """non-contiguous (sliced, reversed) input: the phase planes are filled from the view."""
    rng = np.random.default_rng(11)
    base = rng.standard_normal((2, 64, 40, 50)).astype(np.float32)
    x = base[:, ::2, 3:37, ::-2]
    w = rng.standard_normal((48, 32, 3, 3)).astype(np.float32)
    b = rng.standard_normal(48).astype(np.float32)
    for s in (1, 2):
        _check(ops.conv2d(x, w, b, stride=s, padding=1), _ref(x, w, b, s, 1), w)


def test_conv_taps_edge_cases():
    """output of one pixel, padding larger than the kernel reach, and a kernel as big as the input."""
    rng = np.random.default_rng(12)
    x = rng.standard_normal((1, 16, 5, 6)).astype(np.float32)
    for w_shape, s, p in (((16, 16, 5, 6), 1, 0), ((20, 16, 3, 3), 2, 3), ((16, 16, 2, 2), 2, 0)):
        w = rng.standard_normal(w_shape).astype(np.float32)
        _check(ops.conv2d(x, w, stride=s, padding=p), _ref(x, w, None, s, p), w)


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
def test_conv_taps_half_types(dt):
    rng = np.random.default_rng(13)
    npdt = np.float16 if dt == "float16" else ops.bfloat16
    for (n, c, h, co, k, s, p, g) in ((1, 32, 30, 32, 3, 2, 1, 1), (2, 16, 33, 16, 3, 1, 1, 16)):
        x32 = rng.standard_normal((n, c, h, h)).astype(np.float32)
        w32 = (rng.standard_normal((co, c // g, k, k)) / np.sqrt(c // g * k * k)).astype(np.float32)
        x, w = ops.cast(x32, npdt), ops.cast(w32, npdt)
        y = ops.conv2d(x, w, stride=s, padding=p, groups=g)
        assert y.dtype == x.dtype
        r = _ref(ops.cast(x, np.float32), ops.cast(w, np.float32), None, s, p, 1, g)
        eps = 2.0 ** -10 if dt == "float16" else 2.0 ** -7
        err = np.abs(ops.cast(y, np.float32).astype(np.float64) - r).max()
        assert err <= eps * np.abs(r).max() + 1e-3, err
