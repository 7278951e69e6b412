"""Norm-like reductions composed from the library's kernels (ONNX ReduceL1, ReduceL2,
ReduceSumSquare, ReduceLogSum, ReduceLogSumExp; torch.linalg.vector_norm ord 1/2, torch.logsumexp).

x: any shape, float32/float16/bfloat16 (count_nonzero, reduce_all, reduce_any: any dtype); ``axis``: None (all), an int or a tuple; ``keepdims`` as NumPy. Sums
accumulate in float32 (row_sum). Errors: the primitives' TypeError/ValueError naming the argument.
"""
from __future__ import annotations

import numpy as np

from tl.ops.elementwise import add, cast, exp, mul, sub
from tl.ops.pointwise import abs as _abs, isinf, log, not_equal, sqrt, where
from tl.ops.data import permute
from tl.ops.reduce import amax, amin, reduce_sum, var, var_mean
from tl.ops._registry import names_in, public_op


@public_op
def reduce_l1(x, axis=None, keepdims=False):
    """sum(|x|) over ``axis``."""
    return reduce_sum(_abs(x), axis, keepdims)


@public_op
def reduce_sum_square(x, axis=None, keepdims=False):
    """sum(x * x) over ``axis``."""
    x = np.asarray(x)
    return reduce_sum(mul(x, x), axis, keepdims)


@public_op
def reduce_l2(x, axis=None, keepdims=False):
    """sqrt(sum(x * x)) over ``axis`` (no overflow guard: like ONNX's reference, x * x may
    overflow to inf for |x| > ~1.8e19 in float32)."""
    return sqrt(reduce_sum_square(x, axis, keepdims))


@public_op
def reduce_log_sum(x, axis=None, keepdims=False):
    """log(sum(x)) over ``axis``."""
    return log(reduce_sum(x, axis, keepdims))


@public_op
def logsumexp(x, axis=None, keepdims=False):
    """log(sum(exp(x))) over ``axis``, computed stably as m + log(sum(exp(x - m))) with m the
    finite maximum (infinities give +inf / -inf like torch.logsumexp; NaN propagates). An empty
    reduction gives -inf."""
    x = np.asarray(x)
    if x.size == 0:
        shape = np.sum(np.empty(x.shape, np.bool_), axis=axis, keepdims=keepdims).shape
        return np.full(shape, -np.inf, x.dtype)
    m = amax(x, axis, keepdims=True)
    m = where(isinf(m), np.zeros((), x.dtype), m)       # all -inf rows: shift by 0
    s = log(reduce_sum(exp(sub(x, m)), axis, keepdims=True))
    r = add(s, m)
    if not keepdims:
        axes = tuple(range(x.ndim)) if axis is None else tuple(np.atleast_1d(axis) % x.ndim)
        r = r.reshape([d for i, d in enumerate(r.shape) if i not in axes])
    return r


@public_op
def std(x, axis=None, correction: int = 0, keepdims=False):
    """sqrt(var(x)) with ``correction`` as tl.ops.var (0 = population, NumPy's default; torch.std
    defaults to 1)."""
    return sqrt(var(x, axis, correction, keepdims))


@public_op
def std_mean(x, axis=None, correction: int = 0, keepdims=False):
    """(std, mean) in one var_mean pass."""
    v, m = var_mean(x, axis, correction, keepdims)
    return sqrt(v), m


def _nonzero_as(x, dtype):
    x = np.asarray(x)
    return cast(not_equal(x, np.zeros((), x.dtype)) if x.dtype != np.bool_ else x, dtype)


_EXACT = 1 << 24          # float32 counts are exact below 2^24


@public_op
def count_nonzero(x, axis=None, keepdims=False):
    """Number of non-zero elements (NaN counts) as int64: float32 sums of 0/1 over pieces of
    fewer than 2^24 elements (exact), added in int64."""
    x = np.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else tuple(int(a) % x.ndim for a in np.atleast_1d(axis))
    rest = tuple(a for a in range(x.ndim) if a not in axes)
    f = _nonzero_as(x, np.float32)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    rows = permute(f, rest + axes).reshape(-1, n) if x.size else np.zeros((0, n), np.float32)
    tot = np.zeros(rows.shape[0], np.int64)
    for lo in range(0, n, _EXACT - 1):
        piece = rows[:, lo:lo + _EXACT - 1]
        tot += np.asarray(reduce_sum(piece, 1)).astype(np.int64) if rows.shape[0] else 0
    shape = tuple(1 if a in axes else x.shape[a] for a in range(x.ndim)) if keepdims else \
        tuple(x.shape[a] for a in rest)
    return tot.reshape(shape)


@public_op
def reduce_all(x, axis=None, keepdims=False):
    """True where every element along ``axis`` is non-zero (True over an empty set; torch.all,
    named like reduce_sum so that it does not shadow Python's builtin in star imports)."""
    x = np.asarray(x)
    if x.size == 0:
        return np.all(x, axis=axis, keepdims=keepdims)
    return cast(amin(_nonzero_as(x, np.int32), axis, keepdims), np.bool_)


@public_op
def reduce_any(x, axis=None, keepdims=False):
    """True where some element along ``axis`` is non-zero (False over an empty set)."""
    x = np.asarray(x)
    if x.size == 0:
        return np.any(x, axis=axis, keepdims=keepdims)
    return cast(amax(_nonzero_as(x, np.int32), axis, keepdims), np.bool_)


__all__ = names_in(__name__)
