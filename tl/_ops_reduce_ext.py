"""Norm-like reductions composed from the library's kernels (ONNX ReduceL1, ReduceL2,
ReduceSumSquare, ReduceLogSum, ReduceLogSumExp; torch.linalg.vector_norm ord 1/2, torch.logsumexp).

x: any shape, float32/float16/bfloat16 (reduce_l1 and reduce_sum_square also int32/int64, as
their kernels allow); ``axis``: None (all), an int or a tuple; ``keepdims`` as NumPy. Sums
accumulate in float32 (row_sum). Errors: the primitives' TypeError/ValueError naming the argument.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o
from tl._ops_reduce import reduce_sum, amax


def reduce_l1(x, axis=None, keepdims=False):
    """sum(|x|) over ``axis``."""
    return reduce_sum(_o.abs(x), axis, keepdims)


def reduce_sum_square(x, axis=None, keepdims=False):
    """sum(x * x) over ``axis``."""
    x = np.asarray(x)
    return reduce_sum(_o.mul(x, x), axis, keepdims)


def reduce_l2(x, axis=None, keepdims=False):
    """sqrt(sum(x * x)) over ``axis`` (no overflow guard: like ONNX's reference, x * x may
    overflow to inf for |x| > ~1.8e19 in float32)."""
    return _o.sqrt(reduce_sum_square(x, axis, keepdims))


def reduce_log_sum(x, axis=None, keepdims=False):
    """log(sum(x)) over ``axis``."""
    return _o.log(reduce_sum(x, axis, keepdims))


def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) over ``axis``, computed stably as m + log(sum(exp(x - m))) with m the
    finite maximum (infinities give +inf / -inf like torch.logsumexp; NaN propagates). An empty
    reduction gives -inf."""
    x = np.asarray(x)
    if x.size == 0:
        shape = np.sum(np.empty(x.shape, np.bool_), axis=axis, keepdims=keepdims).shape
        return np.full(shape, -np.inf, x.dtype)
    m = amax(x, axis, keepdims=True)
    m = _o.where(_o.isinf(m), np.zeros((), x.dtype), m)       # all -inf rows: shift by 0
    s = _o.log(reduce_sum(_o.exp(_o.sub(x, m)), axis, keepdims=True))
    r = _o.add(s, m)
    if not keepdims:
        axes = tuple(range(x.ndim)) if axis is None else tuple(np.atleast_1d(axis) % x.ndim)
        r = r.reshape([d for i, d in enumerate(r.shape) if i not in axes])
    return r


__all__ = ["reduce_l1", "reduce_sum_square", "reduce_l2", "reduce_log_sum", "logsumexp"]
