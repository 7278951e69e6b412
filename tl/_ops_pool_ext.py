"""1-D pooling through the 2-D pooling ops (a height of 1): max_pool1d, avg_pool1d
(torch.nn.functional names and semantics).

x: (N, C, L) or (C, L); kernel_size, stride (default kernel_size), padding, dilation: ints.
Errors: the 2-D ops' ValueError naming the argument.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o


def _as4(x, op):
    x = np.asarray(x)
    if x.ndim == 2:
        return x[None, :, None, :], True
    if x.ndim != 3:
        raise ValueError(f"tl.ops.{op}: x must be (N, C, L) or (C, L), got shape {x.shape}")
    return x[:, :, None, :], False


def _one(v):
    return int(np.atleast_1d(v)[0])


def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Max over windows of ``kernel_size`` along L (NaN propagates)."""
    x4, unb = _as4(x, "max_pool1d")
    st = _one(kernel_size if stride is None else stride)
    y = _o.max_pool2d(x4, (1, _one(kernel_size)), (1, st), (0, _one(padding)), (1, _one(dilation)), ceil_mode)
    y = y[:, :, 0, :]
    return y[0] if unb else y


def avg_pool1d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Mean over windows of ``kernel_size`` along L."""
    x4, unb = _as4(x, "avg_pool1d")
    st = _one(kernel_size if stride is None else stride)
    y = _o.avg_pool2d(x4, (1, _one(kernel_size)), (1, st), (0, _one(padding)), ceil_mode, count_include_pad)
    y = y[:, :, 0, :]
    return y[0] if unb else y


__all__ = ["max_pool1d", "avg_pool1d"]
