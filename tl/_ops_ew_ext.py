"""Elementwise ops composed from the library's kernels (torch names): square, lerp, addcmul,
addcdiv, nan_to_num, isfinite, masked_fill.

Inputs broadcast like NumPy; float dtypes float32/float16/bfloat16 unless stated. Each op is a
few elementwise kernel launches; lerp, addcmul and addcdiv compute in float32 for
float16/bfloat16 and round once (tl/_opmath.py, as PyTorch's CPU kernels do). Errors: the primitives' TypeError/ValueError naming the argument.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o
from tl._opmath import opmath


def square(x):
    """x * x."""
    x = np.asarray(x)
    return _o.mul(x, x)


@opmath
def lerp(start, end, weight):
    """start + weight * (end - start), computed as end - (end - start) * (1 - weight) where
    weight >= 0.5 (torch.lerp's form: exact at weight = 0 and weight = 1)."""
    a, b = np.asarray(start), np.asarray(end)
    w = np.asarray(weight, a.dtype)
    d = _o.sub(b, a)
    lo = _o.add(a, _o.mul(w, d))
    hi = _o.sub(b, _o.mul(d, _o.sub(np.ones((), a.dtype), w)))
    return _o.where(_o.less(_o.abs(w), np.asarray(0.5, a.dtype)), lo, hi)


@opmath
def addcmul(x, t1, t2, value: float = 1.0):
    """x + value * t1 * t2."""
    x = np.asarray(x)
    return _o.add(x, _o.mul(_o.mul(np.asarray(t1), np.asarray(value, x.dtype)), t2))


@opmath
def addcdiv(x, t1, t2, value: float = 1.0):
    """x + value * t1 / t2."""
    x = np.asarray(x)
    return _o.add(x, _o.mul(np.asarray(value, x.dtype), _o.div(t1, t2)))


def nan_to_num(x, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None):
    """NaN -> ``nan``, +inf -> ``posinf`` (default: the dtype's largest finite value), -inf ->
    ``neginf`` (default: the most negative finite value)."""
    x = np.asarray(x)
    fi = np.finfo(np.float32) if x.dtype.name == "bfloat16" else np.finfo(x.dtype)
    big = float(fi.max) if x.dtype.name != "bfloat16" else 3.3895313892515355e38
    pi = np.asarray(big if posinf is None else posinf, x.dtype)
    ni = np.asarray(-big if neginf is None else neginf, x.dtype)
    y = _o.where(_o.isnan(x), np.asarray(nan, x.dtype), x)
    y = _o.where(_o.isinf(y, True, False), pi, y)
    return _o.where(_o.isinf(y, False, True), ni, y)


def isfinite(x):
    """Not NaN and not +-inf (bool)."""
    return _o.logical_not(_o.logical_or(_o.isnan(x), _o.isinf(x)))


def masked_fill(x, mask, value):
    """x with ``value`` where ``mask`` (bool, broadcast to x) is true."""
    x = np.asarray(x)
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise TypeError(f"tl.ops.masked_fill: argument 'mask' must have dtype bool, got {m.dtype}")
    return _o.where(np.broadcast_to(m, np.broadcast_shapes(m.shape, x.shape)), np.asarray(value, x.dtype), x)


__all__ = ["square", "lerp", "addcmul", "addcdiv", "nan_to_num", "isfinite", "masked_fill"]
