"""conv2d through the implicit-GEMM kernel (ops/conv.py conv2d_nhwc, float32, groups 1, dilation 1)
against a float64 NumPy reference: odd sizes, stride 2, symmetric and asymmetric padding, Cout and
pixel tails, every tile instance, bias, non-contiguous input; fallback cases still agree."""
import numpy as np
import pytest

import tl.ops as ops
from tl.ops import nn as _ops_nn


def ref_conv(x, w, b, stride, pads):
    """float64 cross-correlation: x (N, C, H, W), w (Co, C, KH, KW), pads (top, left, bottom, right)."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    pt, pl, pb, pr = pads
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    kh, kw = w.shape[2:]
    oh = (xp.shape[2] - kh) // stride + 1
    ow = (xp.shape[3] - kw) // stride + 1
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(kh):
        for j in range(kw):
            win = xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            y += np.einsum("nchw,oc->nohw", win, w[:, :, i, j])
    return y if b is None else y + b.astype(np.float64)[None, :, None, None]


def _check(y, r, x, w):
    k = w.shape[1] * w.shape[2] * w.shape[3]
    tol = 2e-6 * np.sqrt(k) * np.abs(r).max() + 1e-5
    assert y.shape == r.shape and y.dtype == np.float32
    err = np.abs(y.astype(np.float64) - r).max()
    assert err <= tol, f"max err {err} > {tol}"


# (N, C, H, W, Co, K, stride, padding): tails everywhere; OW picks each tile instance
CASES = [(1, 3, 17, 19, 5, 3, 1, 1), (2, 5, 13, 13, 70, 3, 2, 1), (1, 3, 40, 226, 64, 7, 2, 3),
         (2, 64, 9, 56, 64, 3, 1, 1), (1, 16, 11, 28, 130, 3, 1, 1), (2, 40, 14, 14, 96, 3, 1, 1),
         (1, 33, 6, 8, 65, 1, 1, 0), (3, 7, 9, 9, 130, 5, 2, 2), (1, 4, 30, 30, 64, 2, 1, 0),
         (1, 100, 5, 7, 3, 1, 2, 0), (1, 6, 8, 8, 8, 3, 1, (0, 1, 2, 0))]


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_conv_fast_matches_float64(case):
    n, c, h, wd, co, k, s, p = case
    rng = np.random.default_rng(abs(hash(case)) % 2**32)
    x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
    w = rng.standard_normal((co, c, k, k)).astype(np.float32)
    b = rng.standard_normal(co).astype(np.float32)
    pads = _ops_nn._pads4(p)
    y = ops.conv2d(x, w, b, stride=s, padding=p)
    _check(y, ref_conv(x, w, b, s, pads), x, w)


def test_conv_fast_non_contiguous_input_and_no_bias():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 12, 20, 30)).astype(np.float32)[:, ::2, :, ::-2]
    w = rng.standard_normal((70, 6, 3, 3)).astype(np.float32)
    y = ops.conv2d(x, w, stride=2, padding=1)
    _check(y, ref_conv(x, w, None, 2, (1, 1, 1, 1)), x, w)


def test_conv_fast_kernel_is_used(monkeypatch):
    """float32 / groups 1 / dilation 1 go through one fast kernel (conv2d_nchw for 3x3 stride 1)."""
    seen = []
    real = _ops_nn._launch
    monkeypatch.setattr(_ops_nn, "_launch", lambda name, *a: (seen.append(name), real(name, *a)))
    x = np.ones((1, 3, 10, 10), np.float32)
    w = np.ones((4, 3, 3, 3), np.float32)
    y = ops.conv2d(x, w, padding=1)
    assert len(seen) == 1 and seen[0].startswith("conv2d_nchw__")
    assert y[0, 0, 0, 0] == 12.0 and y[0, 0, 5, 5] == 27.0


def test_conv_fallback_cases_agree():
    """groups and dilation stay on the im2col path; still correct."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
    w = rng.standard_normal((8, 4, 3, 3)).astype(np.float32)
    y = ops.conv2d(x, w, padding=1, groups=2)
    r = np.concatenate([ref_conv(x[:, :4], w[:4], None, 1, (1,) * 4),
                        ref_conv(x[:, 4:], w[4:], None, 1, (1,) * 4)], axis=1)
    _check(y, r, x, w)
    w2 = rng.standard_normal((5, 8, 3, 3)).astype(np.float32)
    y2 = ops.conv2d(x, w2, dilation=2)
    wd = np.zeros((5, 8, 5, 5), np.float32)
    wd[:, :, ::2, ::2] = w2
    _check(y2, ref_conv(x, wd, None, 1, (0,) * 4), x, wd)
