"""Reductions over any axes and scans (kernels: ops/reduce.py, ops/reduce_extreme.py,
ops/reduce_arg.py, ops/reduce_ext.py).

``axis``: None (all axes), an int or a tuple of ints; ``keepdims`` as in NumPy. The reduced
axes are moved last and flattened (a strided view; one copy when strides do not allow it),
except that leading reduced axes of sum/max/min go to the column kernels (ops/reduce_col.py)
and a reduction of one element per output is a copy.
Float dtypes float32/float16/bfloat16 (float32 accumulation); max/min/argmax/argmin also
int32 (and int64 for min/argmin). An empty reduced axis: sum -> 0, prod -> 1, mean/var -> NaN,
max/min/argmax/argmin -> ValueError (no identity).

Also sum / max / argmax over one axis by the row kernels (ops/reduce*.py, short rows of 2-32
elements by ops/short_rows.py), the entry points the rest build on.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from tl.ops._core import _arr, _axis_last, _FLOATS, _launch, _NAMES, _norm_axis, _out, _to2d, _writable_view
from tl.ops.elementwise import cast, div
from tl.ops.data import contiguous, copy_into, flip
from tl.ops._registry import names_in, public_op


def _axes(axis, nd, op):
    if axis is None:
        return tuple(range(nd))
    if isinstance(axis, (int, np.integer)):
        axis = (int(axis),)
    return tuple(sorted({_norm_axis(int(a), nd, op) for a in axis}))


def _rows(x, axes):
    """(x2 (R, N), kept shape) with the reduced axes last."""
    keep = [i for i in range(x.ndim) if i not in axes]
    xm = np.transpose(x, keep + list(axes))
    kshape = tuple(x.shape[i] for i in keep)
    n = int(np.prod([x.shape[i] for i in axes])) if axes else 1
    r = int(np.prod(kshape)) if kshape else 1
    try:
        x2 = np.reshape(xm, (r, n), copy=False)
    except ValueError:
        x2 = contiguous(xm).reshape(r, n)
    return x2, kshape


def _finish(res, x, axes, keepdims, out):
    if res is out:
        return out
    if keepdims:
        res = res.reshape(tuple(1 if i in axes else s for i, s in enumerate(x.shape)))
    if out is not None:
        np.copyto(out, res)
        return out
    return res


# the reductions whose value over one element is that element (the copy shortcut)
_ONE_IS_ITSELF = ("row_sum", "row_max", "row_min", "row_prod")
# row kernel -> its column twin (ops/reduce_col.py), float dtypes only
_COLUMN = {"row_sum": "col_sum", "row_max": "col_max", "row_min": "col_min"}
_BC = {"row_sum": 64, "row_max": 256, "row_min": 256}   # columns per program of the col_* kernels


def _leading(x, axes):
    """x as (R, N) = (reduced, kept) without a copy when the reduced axes are the leading ones
    (sum(x, axis=0) of a C-order array); else None."""
    if not axes or axes != tuple(range(len(axes))) or len(axes) == x.ndim:
        return None
    r = math.prod(x.shape[:len(axes)])
    try:
        return np.reshape(x, (r, x.size // r if r else 0), copy=False)
    except ValueError:
        return None


def _columns(kernel, dt, x2, res1):
    """res1 (N,) = the column reduction of x2 (R, N) on the col_* kernels (ops/reduce_col.py).

    Narrow inputs (N < BC, the kernel's columns per program) are viewed as (R / k, k * N), k the
    largest divisor of R with k * N <= BC, so the lanes stay full; the k partials are folded by
    the last launch. Tall inputs (more than 64 rows after that) first go through col_*_rows
    (32-row blocks read in memory order into R / 32 partial rows; float32 partials for sums),
    then col_* reduces the partial rows ((R / 32 * k, N) -- the fold is a reshape). A float16 or
    bfloat16 sum is finished in float32 and rounded once."""
    col = _COLUMN[kernel]
    r, n = x2.shape
    bc = _BC[kernel]
    is_sum = kernel == "row_sum"
    k = 1
    if n < bc and r > 1:
        k = next((k for k in range(builtins.min(r, bc // n), 1, -1) if r % k == 0), 1)
        if k > 1:
            try:
                x2 = np.reshape(x2, (r // k, k * n), copy=False)
                r //= k
            except ValueError:
                k = 1
    if r > 64:
        part = np.empty(((r + 31) // 32, k * n), np.float32 if is_sum else x2.dtype)
        _launch(f"{col}_rows__DT_{dt}", x2, part)
        if is_sum and dt != "float32":
            tmp = np.empty((n,), np.float32)
            _columns(kernel, "float32", part.reshape(-1, n), tmp)
            cast(tmp, dt, out=res1)
        else:   # the partial rows, (R / 32 * k, N): again narrow or tall, so the same way down
            _columns(kernel, dt, part.reshape(-1, n), res1)
        return
    if k > 1 and (not is_sum or dt == "float32"):
        part = np.empty((k * n,), x2.dtype)
        _launch(f"{col}__DT_{dt}", x2, part)
        src, sdt = part.reshape(k, n), dt
    else:
        src, sdt = (x2 if k == 1 else x2.reshape(r * k, n)), dt
    if sdt == dt:
        _launch(f"{col}__DT_{sdt}", src, res1)
    else:
        tmp = np.empty((n,), np.float32)
        _launch(f"{col}__DT_{sdt}", src, tmp)
        cast(tmp, dt, out=res1)


def _reduce(kernel, op, x, axis, keepdims, out, allowed=_FLOATS, out_dt=None, empty=None):
    x, dt = _arr(x, "x", op, allowed)
    axes = _axes(axis, x.ndim, op)
    kshape = tuple(x.shape[i] for i in range(x.ndim) if i not in axes)
    if out is not None:   # exactly the result's shape and dtype, as every tl.ops out= (no broadcast, no cast)
        fshape = tuple(1 if i in axes else n for i, n in enumerate(x.shape)) if keepdims else kshape
        _out(out, fshape, np.dtype(out_dt or x.dtype), op)
    # the caller's out itself when it is exactly the result array (C-contiguous, no keepdims)
    direct = (not keepdims and isinstance(out, np.ndarray) and out.shape == kshape and out.flags.c_contiguous
              and out.dtype == np.dtype(out_dt or x.dtype) and out.flags.writeable
              and not np.may_share_memory(out, x))
    res = out if direct else np.empty(kshape, out_dt or x.dtype)
    count = math.prod(x.shape[i] for i in axes)
    if count == 0:
        if empty is None:
            raise ValueError(f"tl.ops.{op}: zero-size reduction over axes {axes} of shape {x.shape}")
        res[...] = empty
    elif res.size and count == 1 and kernel in _ONE_IS_ITSELF:
        # one element per output (a reduced axis of length 1): the sum, max, min or product of
        # one value is itself (NumPy's too, -0.0 included); a copy instead of one program each
        np.copyto(res, x.reshape(kshape))
    elif res.size and count == 1 and kernel in ("row_argmax", "row_argmin"):
        res[...] = 0                      # the index of the only element
    elif res.size:
        x2 = _leading(x, axes) if kernel in _COLUMN and dt in _FLOATS else None
        if x2 is not None:
            _columns(kernel, dt, x2, res.reshape(-1))
        else:
            x2, _ = _rows(x, axes)
            _launch(_row_kernel(kernel, dt, x2.shape[1]), x2, res.reshape(-1))
    return _finish(res, x, axes, keepdims, out)


@public_op
def reduce_sum(x, axis=None, keepdims=False, out=None, _op="reduce_sum"):
    """Sum (float32 accumulation). ``_op``: the public name errors use (tl.ops.sum calls this)."""
    return _reduce("row_sum", _op, x, axis, keepdims, out, empty=0)


@public_op
def mean(x, axis=None, keepdims=False, out=None):
    """Arithmetic mean (sum in float32 / count)."""
    x, dt = _arr(x, "x", "mean")
    axes = _axes(axis, x.ndim, "mean")
    n = int(np.prod([x.shape[i] for i in axes])) if axes else 1
    s = reduce_sum(x.astype(np.float32) if dt != "float32" else x, axes, keepdims)
    r = div(np.asarray(s, np.float32), np.asarray(np.float32(n) if n else np.float32("nan"), np.float32))
    r = cast(r, dt) if dt != "float32" else r
    if out is not None:
        np.copyto(_out(out, r.shape, np.dtype(r.dtype), "mean"), r)
        return out
    return r


@public_op
def amax(x, axis=None, keepdims=False, out=None, _op="amax"):
    """Maximum (NaN propagates). ``_op``: the public name errors use (tl.ops.max calls this)."""
    return _reduce("row_max", _op, x, axis, keepdims, out, _FLOATS + ("int32",))


@public_op
def amin(x, axis=None, keepdims=False, out=None, _op="amin"):
    """Minimum (NaN propagates). ``_op``: the public name errors use (tl.ops.min calls this)."""
    return _reduce("row_min", _op, x, axis, keepdims, out, _FLOATS + ("int32", "int64"))


@public_op
def min(x, axis=None, keepdims=False, out=None):
    """Minimum over ``axis`` (None: all axes, as NumPy and PyTorch; companion of tl.ops.max)."""
    return amin(x, axis, keepdims, out, _op="min")


@public_op
def prod(x, axis=None, keepdims=False, out=None):
    """Product (float32 accumulation, left to right)."""
    return _reduce("row_prod", "prod", x, axis, keepdims, out, empty=1)


def _arg(kernel, op, x, axis, keepdims, select_last_index, out):
    x, dt = _arr(x, "x", op, _FLOATS + ("int32", "int64") if kernel == "row_argmin" else _FLOATS + ("int32",))
    if axis is None:     # an index into the flattened (C-order) array, as NumPy
        r = _arg(kernel, op, contiguous(x).reshape(-1), 0, False, select_last_index, None)
        if keepdims:
            r = r.reshape((1,) * x.ndim)
        if out is not None:
            np.copyto(out, r)
            return out
        return r
    ax = _norm_axis(axis, x.ndim, op)
    n = x.shape[ax]
    if select_last_index:
        x = flip(x, ax)
    r = _reduce(kernel, op, x, (ax,), keepdims, None, _FLOATS + ("int32", "int64"), np.int64)
    if select_last_index:
        r = (n - 1 - r).astype(np.int64)
    if out is not None:
        np.copyto(out, r)
        return out
    return r


@public_op
def argmax_axis(x, axis: int = -1, keepdims=False, select_last_index=False, out=None):
    """int64 index of the maximum (first on ties unless select_last_index; NaN is the max);
    axis None: into the flattened array."""
    return _arg("row_argmax", "argmax", x, axis, keepdims, select_last_index, out)


@public_op
def argmin(x, axis=None, keepdims=False, select_last_index=False, out=None):
    """int64 index of the minimum over ``axis`` (None: into the flattened array, as NumPy);
    first on ties unless select_last_index; NaN is the min."""
    return _arg("row_argmin", "argmin", x, axis, keepdims, select_last_index, out)


@public_op
def var_mean(x, axis=None, correction: int = 0, keepdims=False, dtype=None):
    """(var, mean): var = sum((x - mean)^2) / (N - correction), two passes (docs/semantics.md#c-14); where
    N - correction <= 0 the variance is inf (NaN when every deviation is 0), as NumPy/PyTorch.
    Both are computed in float32 and rounded once to x's dtype, or, with ``dtype=np.float32``
    for a float16/bfloat16 x, returned as float32 (for statistics that feed more arithmetic,
    e.g. batch norm's scale and shift: no half-precision intermediate)."""
    x, dt = _arr(x, "x", "var_mean")
    ot = dt if dtype is None else _NAMES.get(np.dtype(dtype))
    if ot not in (dt, "float32"):
        raise TypeError(f"tl.ops.var_mean: dtype must be None, float32 or x's dtype ({dt}), got {dtype!r}")
    axes = _axes(axis, x.ndim, "var_mean")
    x2, kshape = _rows(x, axes)
    m = np.empty(kshape, np.float32 if ot == "float32" else x.dtype)
    v = np.empty(kshape, m.dtype)
    if x2.shape[1] == 0:
        m[...] = np.nan
        v[...] = np.nan
    elif m.size:
        dof = x2.shape[1] - correction
        _launch(f"row_var__DT_{dt}__OT_{ot}", x2, m.reshape(-1), v.reshape(-1), float(correction if dof > 0 else 0))
        if dof <= 0:   # N - correction <= 0: sum / max(dof, 0), as NumPy and PyTorch: inf, or NaN for 0/0
            with np.errstate(invalid="ignore"):
                v[...] = np.where(v > 0, np.inf, np.where(v == 0, np.nan, v))
    return _finish(v, x, axes, keepdims, None), _finish(m, x, axes, keepdims, None)


@public_op
def var(x, axis=None, correction: int = 0, keepdims=False):
    """Variance (biased by default, like NumPy; correction=1 for the unbiased estimate)."""
    return var_mean(x, axis, correction, keepdims)[0]


@public_op
def cumsum(x, axis: int = 0, exclusive: bool = False, reverse: bool = False, out=None):
    """Running sum along ``axis`` (ONNX CumSum attributes exclusive / reverse), left to right
    in float32 for float dtypes, exact for int32/int64."""
    x, dt = _arr(x, "x", "cumsum", _FLOATS + ("int32", "int64"))
    ax = _norm_axis(axis, x.ndim, "cumsum")
    res = np.empty(x.shape, x.dtype) if out is None else out
    if x.size == 0:
        return res
    xm = np.moveaxis(x, ax, -1)
    rm = np.moveaxis(res, ax, -1)
    if reverse:
        xm, rm = xm[..., ::-1], rm[..., ::-1]
    n = xm.shape[-1]
    if exclusive:
        copy_into(rm[..., :1], np.zeros((), x.dtype))
        xm, rm = xm[..., :n - 1], rm[..., 1:]
        if n == 1:
            return res
    x2 = _to2d(xm)
    tmp = np.empty(x2.shape, x.dtype)
    _launch(f"row_cumsum__DT_{dt}", x2, tmp)
    copy_into(rm, tmp.reshape(xm.shape))
    return res


_COLUMN_KERNELS = ("row_sum", "row_max", "row_min")   # with column twins (ops/reduce_col.py)


def _short_block(n: int) -> int:
    """BN of the ops/short_rows.py kernels for rows of n elements (2 <= n <= 32), else 0."""
    if n < 2 or n > 32:
        return 0
    return 4 if n <= 4 else 8 if n <= 8 else 16 if n <= 16 else 32


def _row_kernel(kernel: str, dt: str, n: int) -> str:
    """The instance reducing rows of n elements: a short-row one (ops/short_rows.py) for maxima
    and minima of float rows of 2..32 elements, else ``kernel``'s own. Sums keep row_sum: the
    short-row sum measured slower on (131072, 8) (7.3 vs 6.2 ms at 1 thread; the emitter lowers
    a last-axis reduction of a (32, 8) tile to one-lane vector ops per row, as for max, where the
    short kernel still wins: 12.6 vs 17.5 ms)."""
    bn = _short_block(n) if kernel in ("row_max", "row_min") and dt in _FLOATS else 0
    return f"row_short__BN_{bn}__DT_{dt}__OP_{kernel[4:]}" if bn else f"{kernel}__DT_{dt}"


def _reduce_row(kernel: str, op: str, x, axis, out, allowed=_FLOATS, out_dt=None):
    x, dt = _arr(x, "x", op, allowed)
    if kernel in _COLUMN_KERNELS and x.ndim >= 2 and x.size:
        ax = _norm_axis(axis, x.ndim, op)
        if (ax == 0 and dt in _FLOATS) or x.shape[ax] == 1:
            # a leading axis (the column kernels) or one element per output (a copy): reduce.py _reduce
            return _reduce(kernel, op, x, ax, False, _out(out, x.shape[:ax] + x.shape[ax + 1:], out_dt or dt, op),
                                allowed, out_dt)
    ax, xm = _axis_last(x, axis, op)
    rshape = xm.shape[:-1]
    out = _out(out, rshape, out_dt or dt, op)
    n = xm.shape[-1]
    if n == 0:
        if kernel == "row_sum":
            out[...] = 0
            return out
        raise ValueError(f"tl.ops.{op}: zero-size array to reduction operation {op} which has no "
                         f"identity (axis {ax} of shape {x.shape} is empty)")
    if out.size == 0:
        return out
    o1, wb = _writable_view(out, "1d")
    _launch(_row_kernel(kernel, dt, n), _to2d(xm), o1)
    if wb:
        wb()
    return out


def _one_axis(axis, keepdims) -> bool:
    """True when the fast one-axis row kernel path applies (an int axis, no keepdims)."""
    return isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) and not keepdims


@public_op
def sum(x, axis=None, keepdims=False, out=None):
    """Sum over ``axis`` (None: all axes, as NumPy and PyTorch; an int; a tuple), float32
    accumulation; an empty axis gives zeros."""
    if _one_axis(axis, keepdims):
        return _reduce_row("row_sum", "sum", x, axis, out)
    return reduce_sum(x, axis, keepdims, out, _op="sum")


@public_op
def max(x, axis=None, keepdims=False, out=None):
    """Maximum over ``axis`` (None: all axes; an int; a tuple), float dtypes and int32; NaN
    propagates; an empty axis raises ValueError."""
    if _one_axis(axis, keepdims):
        return _reduce_row("row_max", "max", x, axis, out, allowed=_FLOATS + ("int32",))
    return amax(x, axis, keepdims, out, _op="max")


@public_op
def argmax(x, axis=None, keepdims=False, out=None):
    """int64 index of the maximum over ``axis`` (None: into the flattened array, as NumPy):
    first occurrence on ties, NaN is the maximum (first NaN wins); an empty axis raises
    ValueError."""
    if _one_axis(axis, keepdims):
        return _reduce_row("row_argmax", "argmax", x, axis, out, allowed=_FLOATS + ("int32",),
                       out_dt="int64")
    return argmax_axis(x, axis, keepdims, False, out)


__all__ = names_in(__name__)
