"""Small linear-algebra ops composed from the matmul, elementwise and copy kernels (torch names):
outer, dot, mv, addmm, diagonal, trace.

float32 (and bfloat16 where matmul takes it) products accumulate in float32 (ops/matmul.py);
outer is one broadcast multiply. Errors: ValueError naming the argument for bad shapes.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o
from tl._ops_reduce import reduce_sum


def _vec(v, name, op):
    v = np.asarray(v)
    if v.ndim != 1:
        raise ValueError(f"tl.ops.{op}: argument '{name}' must be 1-D, got shape {v.shape}")
    return v


def outer(a, b):
    """a[i] * b[j]: (M,), (N,) -> (M, N)."""
    a, b = _vec(a, "a", "outer"), _vec(b, "b", "outer")
    return _o.mul(a[:, None], b[None, :])


def dot(a, b):
    """sum(a * b) of two 1-D arrays of one length (float32 accumulation), a 0-d array."""
    a, b = _vec(a, "a", "dot"), _vec(b, "b", "dot")
    if a.shape != b.shape:
        raise ValueError(f"tl.ops.dot: lengths differ: {a.shape[0]} and {b.shape[0]}")
    return np.asarray(_o.matmul(a, b))


def mv(m, v):
    """Matrix (M, K) times vector (K,) -> (M,)."""
    m, v = np.asarray(m), _vec(v, "v", "mv")
    if m.ndim != 2 or m.shape[1] != v.shape[0]:
        raise ValueError(f"tl.ops.mv: shapes {m.shape} and {v.shape} do not match")
    return _o.matmul(m, v)


def addmm(input, m1, m2, beta: float = 1.0, alpha: float = 1.0):
    """beta * input + alpha * (m1 @ m2) (torch.addmm; input broadcasts to (M, N))."""
    return _o.gemm(m1, m2, input, alpha, beta)


def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The diagonal ``offset`` of the (axis1, axis2) planes as a new contiguous array (NumPy's
    axis order: the diagonal is the last axis)."""
    return _o.contiguous(np.diagonal(np.asarray(x), offset, axis1, axis2))


def trace(x, offset: int = 0):
    """Sum of the diagonal of a 2-D array (float32 accumulation for floats)."""
    x = np.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"tl.ops.trace: x must be 2-D, got shape {x.shape}")
    return reduce_sum(diagonal(x, offset))


__all__ = ["outer", "dot", "mv", "addmm", "diagonal", "trace"]
