"""conv2d through conv2d_nchw (ops/conv.py): the flattened stride-1 1x1/3x3 path (groups too),
1x1 stride 2 (subsample), the column-phase 7x7/2 stem with C = 3, float16/bfloat16 through
float32, batch 1 and 3, against torch conv2d in float64. Tolerance: fp32 accumulation over
K = C/g * KH * KW terms, 2e-6 * sqrt(K) * max|ref| (+ the input dtype's rounding of the output)."""
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


def _check(y, r, w, g=1, rel=2e-6):
    k = w.shape[1] * w.shape[2] * w.shape[3]
    tol = rel * np.sqrt(k) * np.abs(r).max() + 1e-5
    assert y.shape == r.shape
    err = np.abs(y.astype(np.float64) - r).max()
    assert err <= tol, f"max err {err} > {tol}"


# (N, C, H, W, Co, K, stride, padding, groups): ResNet-50 shapes reduced in size, odd sizes, tails
CASES = [(1, 64, 14, 14, 64, 3, 1, 1, 1), (3, 64, 9, 13, 64, 3, 1, 1, 1), (1, 32, 7, 7, 130, 3, 1, 1, 1),
         (1, 256, 14, 14, 64, 1, 1, 0, 1), (3, 64, 5, 11, 256, 1, 1, 0, 1), (1, 96, 6, 5, 70, 1, 1, 0, 1),
         (1, 20, 8, 9, 24, 1, 1, (1, 0, 2, 1), 1), (2, 64, 13, 15, 128, 1, 2, 0, 1),
         (1, 64, 10, 10, 64, 3, 1, 1, 2), (3, 32, 7, 9, 64, 3, 1, (0, 2, 1, 0), 2),
         (1, 3, 48, 224, 64, 7, 2, 3, 1), (3, 3, 31, 230, 64, 7, 2, 3, 1), (1, 6, 20, 224, 64, 7, 2, 3, 1)]


@pytest.mark.parametrize("case", CASES, ids=[str(c) for c in CASES])
def test_conv_nchw_matches_float64(case):
    n, c, h, wd, co, k, s, p, g = case
    rng = np.random.default_rng(abs(hash(case)) % 2**32)
    x = rng.standard_normal((n, c, h, wd)).astype(np.float32)
    w = rng.standard_normal((co, c // g, k, k)).astype(np.float32)
    b = rng.standard_normal(co).astype(np.float32)
    y = ops.conv2d(x, w, b, stride=s, padding=p, groups=g)
    assert y.dtype == np.float32 and y.flags.c_contiguous
    _check(y, _ref(x, w, b, s, p, 1, g), w)


def test_conv_nchw_paths_taken(monkeypatch):
    """stride-1 3x3 / 1x1 and 1x1/2 each launch one conv2d_nchw kernel, the C = 3 7x7/2 stem one
    conv2d_phase2."""
    seen = []
    real = _ops_nn._launch
    monkeypatch.setattr(_ops_nn, "_launch", lambda name, *a: (seen.append(name), real(name, *a)))
    x = np.ones((1, 64, 8, 8), np.float32)
    ops.conv2d(x, np.ones((64, 64, 3, 3), np.float32), padding=1)
    ops.conv2d(x, np.ones((64, 64, 1, 1), np.float32))
    ops.conv2d(x, np.ones((64, 64, 1, 1), np.float32), stride=2)
    ops.conv2d(np.ones((1, 3, 224, 224), np.float32), np.ones((64, 3, 7, 7), np.float32), stride=2, padding=3)
    assert [s.split("__KH_")[1] for s in seen[:3]] == ["3__KW_3__PH_1", "1__KW_1__PH_1", "1__KW_1__PH_1"]
    assert len(seen) == 4 and seen[3].startswith("conv2d_phase2__")


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", [(1, 32, 9, 11, 64, 3, 1, 1), (3, 64, 6, 6, 64, 1, 1, 0),
                                  (1, 3, 30, 224, 64, 7, 2, 3), (1, 16, 9, 9, 32, 3, 2, 1)])
def test_conv_half_types(dt, case):
    """float16 / bfloat16 in and out, computed in float32: error within the output rounding."""
    n, c, h, wd, co, k, s, p = case
    rng = np.random.default_rng(5)
    npdt = np.float16 if dt == "float16" else ops.bfloat16
    x32 = rng.standard_normal((n, c, h, wd)).astype(np.float32)
    w32 = (rng.standard_normal((co, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32)
    x, w = ops.cast(x32, npdt), ops.cast(w32, npdt)
    y = ops.conv2d(x, w, stride=s, padding=p)
    assert y.dtype == x.dtype
    r = _ref(ops.cast(x, np.float32), ops.cast(w, np.float32), None, s, p)
    eps = 2.0 ** -10 if dt == "float16" else 2.0 ** -7
    err = np.abs(ops.cast(y, np.float32).astype(np.float64) - r).max()
    assert err <= eps * np.abs(r).max() + 1e-3, err


def test_conv_dilation_and_depthwise_agree():
    """dilation (conv2d_taps) and depthwise (conv2d_dw_taps) at batch 3, stride 2: still correct."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 16, 13, 12)).astype(np.float32)
    wd = rng.standard_normal((16, 1, 3, 3)).astype(np.float32)
    _check(ops.conv2d(x, wd, stride=2, padding=1, groups=16), _ref(x, wd, None, 2, 1, 1, 16), wd)
    w = rng.standard_normal((8, 16, 3, 3)).astype(np.float32)
    _check(ops.conv2d(x, w, padding=2, dilation=2), _ref(x, w, None, 1, 2, 2, 1), w)
