"""Activations composed from the library's elementwise kernels: prelu (ONNX PRelu,
torch.nn.functional.prelu), shrink (ONNX Shrink; torch hardshrink / softshrink) and hardmax
(ONNX Hardmax: one-hot of the first maximum along an axis).

Float dtypes float32/float16/bfloat16 (shrink and prelu also int32/int64 where the primitives
allow). Errors: the primitives' TypeError/ValueError naming the argument.

Also relu6, hardtanh, log_sigmoid, tanhshrink, softshrink, hardshrink, glu and softmin.
"""
from __future__ import annotations

import numpy as np

from tl.ops.elementwise import add, mul, sigmoid, sub, tanh
from tl.ops.pointwise import clamp, greater, isnan, less, neg, softplus, where
from tl.ops.data import one_hot, split
from tl.ops.reduce import argmax_axis
from tl.ops.norm import softmax
from tl.ops._registry import names_in, public_op


@public_op
def prelu(x, slope):
    """x if x > 0 else x * slope; ``slope`` broadcasts against x (NumPy rules; a 1-D slope of
    size C also matches axis 1 of an (N, C, ...) x, like torch)."""
    x = np.asarray(x)
    s = np.asarray(slope, x.dtype)
    if s.ndim == 1 and x.ndim >= 2 and s.shape[0] == x.shape[1] and s.shape[0] != x.shape[-1]:
        s = s.reshape((-1,) + (1,) * (x.ndim - 2))
    zero = np.zeros((), x.dtype)
    return where(greater(x, zero), x, mul(x, s))


@public_op
def shrink(x, lambd: float = 0.5, bias: float = 0.0):
    """x + bias where x < -lambd, x - bias where x > lambd, else 0; NaN stays NaN (like torch's
    hardshrink/softshrink; ONNX's reference maps NaN to 0, its spec says nothing of NaN)."""
    x = np.asarray(x)
    lam, b, zero = (np.asarray(v, x.dtype) for v in (lambd, bias, 0))
    hi = where(greater(x, lam), sub(x, b), zero)
    y = where(less(x, neg(lam)), add(x, b), hi)
    return where(isnan(x), x, y) if x.dtype.kind == "f" or x.dtype.name == "bfloat16" else y


@public_op
def hardmax(x, axis: int = -1):
    """1 at the first maximum along ``axis`` (NaN counts as the maximum), 0 elsewhere; x's dtype."""
    x = np.asarray(x)
    if x.size == 0:
        return x.copy()
    ax = int(axis) % x.ndim
    idx = argmax_axis(x, ax)
    return one_hot(idx, x.shape[ax], (0.0, 1.0), ax, x.dtype)


# ----------------------------------------------------------------------------- torch.nn.functional aliases
@public_op
def relu6(x):
    """min(max(x, 0), 6) (torch.nn.functional.relu6)."""
    return clamp(x, 0.0, 6.0)


@public_op
def hardtanh(x, min_val: float = -1.0, max_val: float = 1.0):
    """min(max(x, min_val), max_val) (torch.nn.functional.hardtanh)."""
    if min_val > max_val:
        raise ValueError(f"tl.ops.hardtanh: min_val {min_val} > max_val {max_val}")
    return clamp(x, min_val, max_val)


@public_op
def log_sigmoid(x):
    """log(sigmoid(x)) = -softplus(-x) (torch.nn.functional.logsigmoid)."""
    return neg(softplus(neg(x)))


@public_op
def tanhshrink(x):
    """x - tanh(x)."""
    return sub(x, tanh(x))


@public_op
def softshrink(x, lambd: float = 0.5):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""
    if lambd < 0:
        raise ValueError(f"tl.ops.softshrink: lambd must be >= 0, got {lambd}")
    return shrink(x, lambd, lambd)


@public_op
def hardshrink(x, lambd: float = 0.5):
    """x where |x| > lambd, else 0."""
    return shrink(x, lambd, 0.0)


@public_op
def glu(x, axis: int = -1):
    """a * sigmoid(b) with (a, b) the two halves of x along ``axis`` (even size)."""
    x = np.asarray(x)
    ax = int(axis) % x.ndim
    if x.shape[ax] % 2:
        raise ValueError(f"tl.ops.glu: axis {axis} of x has odd size {x.shape[ax]}")
    a, b = split(x, 2, ax)
    return mul(a, sigmoid(b))


@public_op
def softmin(x, axis: int = -1):
    """softmax(-x) along ``axis``."""
    return softmax(neg(x), axis)


__all__ = names_in(__name__)
