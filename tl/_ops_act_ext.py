"""Activations composed from the library's elementwise kernels: prelu (ONNX PRelu,
torch.nn.functional.prelu), shrink (ONNX Shrink; torch hardshrink / softshrink) and hardmax
(ONNX Hardmax: one-hot of the first maximum along an axis).

Float dtypes float32/float16/bfloat16 (shrink and prelu also int32/int64 where the primitives
allow). Errors: the primitives' TypeError/ValueError naming the argument.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o


def prelu(x, slope):
    """x if x > 0 else x * slope; ``slope`` broadcasts against x (NumPy rules; a 1-D slope of
    size C also matches axis 1 of an (N, C, ...) x, like torch)."""
    x = np.asarray(x)
    s = np.asarray(slope, x.dtype)
    if s.ndim == 1 and x.ndim >= 2 and s.shape[0] == x.shape[1] and s.shape[0] != x.shape[-1]:
        s = s.reshape((-1,) + (1,) * (x.ndim - 2))
    zero = np.zeros((), x.dtype)
    return _o.where(_o.greater(x, zero), x, _o.mul(x, s))


def shrink(x, lambd: float = 0.5, bias: float = 0.0):
    """x + bias where x < -lambd, x - bias where x > lambd, else 0."""
    x = np.asarray(x)
    lam, b, zero = (np.asarray(v, x.dtype) for v in (lambd, bias, 0))
    hi = _o.where(_o.greater(x, lam), _o.sub(x, b), zero)
    return _o.where(_o.less(x, _o.neg(lam)), _o.add(x, b), hi)


def hardmax(x, axis: int = -1):
    """1 at the first maximum along ``axis`` (NaN counts as the maximum), 0 elsewhere; x's dtype."""
    x = np.asarray(x)
    if x.size == 0:
        return x.copy()
    ax = int(axis) % x.ndim
    idx = _o.argmax_axis(x, ax)
    return _o.one_hot(idx, x.shape[ax], (0.0, 1.0), ax, x.dtype)


__all__ = ["prelu", "shrink", "hardmax"]
