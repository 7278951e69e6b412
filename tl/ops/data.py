"""Data movement and indexing tl.ops (kernels: ops/data.py copy6/tri/take_cols/scatter_cols/
arange). Every copy goes through ``copy6`` as raw bits (float32 as int32, bool as int8), so it
is bit-exact for every dtype; NumPy only builds strided views (metadata, no data movement)
and reads index arrays on the host (indices live in host memory on this CPU target).

Errors: ValueError for bad shapes/axes or out-of-range indices (IndexError for indices),
TypeError for unsupported dtypes.
"""
from __future__ import annotations

import builtins

import numpy as np

from tl.ops._core import _flat_shape, _launch, _NAMES, _norm_axis, _out
from tl.ops.elementwise import cast
from tl.ops.pointwise import equal, where
from tl.ops._registry import names_in, public_op


_BITS = {"float32": np.int32, "bool": np.int8, "int8": np.int8, "int32": np.int32,
         "int64": np.int64, "float16": None, "bfloat16": None}
_KNAME = {np.dtype(np.int32): "int32", np.dtype(np.int8): "int8", np.dtype(np.int64): "int64"}


def _bits(a: np.ndarray) -> tuple[np.ndarray, str]:
    name = _NAMES.get(a.dtype)
    if name is None:
        raise TypeError(f"unsupported dtype {a.dtype}")
    v = _BITS[name]
    if v is None:
        return a, name
    b = a.view(v)
    return b, _KNAME[b.dtype]


def _merge(shape, sa, sb):
    """Merges adjacent axes that are contiguous in both stride sets."""
    dims = [(n, x, y) for n, x, y in zip(shape, sa, sb) if n != 1]
    out = []
    for d in dims:
        if out and out[-1][1] == d[0] * d[1] and out[-1][2] == d[0] * d[2]:
            n, x, y = out[-1]
            out[-1] = (n * d[0], d[1], d[2])
        else:
            out.append(d)
    return out or [(1, 0, 0)]


def copy_into(dst: np.ndarray, src) -> np.ndarray:
    """dst[...] = src (broadcast to dst's shape, same dtype), through the copy6 kernel."""
    if not isinstance(dst, np.ndarray):
        raise TypeError("tl.ops.copy_into: dst must be an ndarray view (index with slices)")
    src = np.broadcast_to(np.asarray(src, dst.dtype), dst.shape)
    if dst.size == 0:
        return dst
    s, k = _bits(src)
    d, _ = _bits(dst)
    dims = _merge(dst.shape, s.strides, d.strides)
    if len(dims) == 1:
        # one strided run (contiguous copies, (N, 1) <-> (1, N)): split over rows like the
        # elementwise flat views, so copy6's 4 x 128 tiles run full instead of one masked row
        n, sx, sy = dims[0]
        r, c = _flat_shape(n)
        dims = [(r, sx * c, sy * c), (c, sx, sy)] if r > 1 else dims
    elif dims[-1][0] < 64:
        # a short last axis would leave copy6's 128-lane tiles mostly masked: any axis order is a
        # valid copy, so the longest axis with a unit stride (in bytes: the itemsize) on either side
        # becomes the lanes
        unit = [i for i, (n, x, y) in enumerate(dims) if n >= 64 and s.itemsize in (abs(x), abs(y))]
        if unit:
            j = builtins.max(unit, key=lambda i: dims[i][0])
            dims = dims[:j] + dims[j + 1:] + [dims[j]]
    if len(dims) > 6:
        for i in range(dst.shape[0]):
            copy_into(dst[i], src[i])
        return dst
    shape = [1] * (6 - len(dims)) + [n for n, _, _ in dims]
    ss = [0] * (6 - len(dims)) + [x for _, x, _ in dims]
    ds = [0] * (6 - len(dims)) + [y for _, _, y in dims]
    sv = np.lib.stride_tricks.as_strided(s, shape, ss)
    dv = np.lib.stride_tricks.as_strided(d, shape, ds)
    _launch(f"copy6__DT_{k}", sv, dv)
    return dst


@public_op
def contiguous(x, out=None):
    """A C-contiguous copy of any strided view (negative and zero strides included)."""
    x = np.asarray(x)
    out = _out(out, x.shape, _NAMES[x.dtype], "contiguous") if x.dtype in _NAMES else None
    if out is None:
        raise TypeError(f"tl.ops.contiguous: unsupported dtype {x.dtype}")
    return copy_into(out, x)


@public_op
def permute(x, axes=None, out=None):
    """np.transpose(x, axes) materialised (reverse order when axes is None)."""
    x = np.asarray(x)
    return contiguous(np.transpose(x, axes), out=out)


@public_op
def expand(x, shape, out=None):
    """np.broadcast_to(x, shape) materialised (ONNX Expand broadcasts both ways)."""
    x = np.asarray(x)
    shape = np.broadcast_shapes(x.shape, tuple(int(s) for s in shape))
    return contiguous(np.broadcast_to(x, shape), out=out)


@public_op
def cat(xs, axis: int = 0, out=None):
    """Concatenation along ``axis`` (arrays of one dtype and matching other axes)."""
    xs = [np.asarray(x) for x in xs]
    if not xs:
        raise ValueError("tl.ops.cat: needs at least one array")
    nd = xs[0].ndim
    ax = _norm_axis(axis, nd, "cat")
    for x in xs:
        if x.dtype != xs[0].dtype:
            raise TypeError(f"tl.ops.cat: mixed dtypes {xs[0].dtype} and {x.dtype}")
        if x.ndim != nd or x.shape[:ax] + x.shape[ax + 1:] != xs[0].shape[:ax] + xs[0].shape[ax + 1:]:
            raise ValueError(f"tl.ops.cat: shapes {xs[0].shape} and {x.shape} differ off axis {ax}")
    shape = list(xs[0].shape)
    shape[ax] = builtins.sum(x.shape[ax] for x in xs)
    out = _out(out, tuple(shape), _NAMES[xs[0].dtype], "cat")
    o = 0
    for x in xs:
        idx = (builtins.slice(None),) * ax + (builtins.slice(o, o + x.shape[ax]),)
        copy_into(out[idx], x)
        o += x.shape[ax]
    return out


@public_op
def stack(xs, axis: int = 0, out=None):
    """Stacks arrays of one shape along a new ``axis``."""
    xs = [np.asarray(x) for x in xs]
    ax = _norm_axis(axis, xs[0].ndim + 1, "stack")
    return cat([np.expand_dims(x, ax) for x in xs], axis=ax, out=out)


@public_op
def split(x, sections, axis: int = 0):
    """List of copies along ``axis``.

    NOTE: an int ``sections`` is ONNX ``num_outputs`` -- the NUMBER of parts (equal parts, the
    last one smaller when uneven) -- NOT torch.split's chunk size (torch.split(x, 2) gives parts
    of size 2; here split(x, 2) gives 2 parts). A list/tuple gives the part sizes (as in both)."""
    x = np.asarray(x)
    ax = _norm_axis(axis, x.ndim, "split")
    n = x.shape[ax]
    if isinstance(sections, (int, np.integer)):
        k = int(sections)
        step = -(-n // k)
        sizes = [builtins.min(step, n - i * step) for i in range(k)]
    else:
        sizes = [int(s) for s in sections]
    if builtins.sum(sizes) != n or builtins.min(sizes, default=0) < 0:
        raise ValueError(f"tl.ops.split: sizes {sizes} do not add up to {n}")
    outs, o = [], 0
    for s in sizes:
        outs.append(contiguous(x[(builtins.slice(None),) * ax + (builtins.slice(o, o + s),)]))
        o += s
    return outs


@public_op
def slice(x, starts, ends, axes=None, steps=None, out=None):
    """ONNX Slice: per listed axis x[start:end:step] (negative indices count from the end,
    bounds are clamped, negative steps go backwards)."""
    x = np.asarray(x)
    axes = list(range(len(starts))) if axes is None else [_norm_axis(int(a), x.ndim, "slice") for a in axes]
    steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
    idx = [builtins.slice(None)] * x.ndim
    for a, s, e, st in zip(axes, starts, ends, steps):
        if st == 0:
            raise ValueError("tl.ops.slice: step must not be 0")
        n = x.shape[a]
        s, e = int(s), int(e)
        if st > 0:
            s = builtins.min(builtins.max(s + n if s < 0 else s, 0), n)
            e = builtins.min(builtins.max(e + n if e < 0 else e, 0), n)
        else:
            s = builtins.min(builtins.max(s + n if s < 0 else s, -1), n - 1)
            e = builtins.min(builtins.max(e + n if e < 0 else e, -1), n - 1)
        idx[a] = builtins.slice(s, e if e >= 0 else None, st)
    return contiguous(x[tuple(idx)], out=out)


@public_op
def tile(x, reps, out=None):
    """np.tile(x, reps) through a zero-stride view and one copy."""
    x = np.asarray(x)
    reps = tuple(int(r) for r in reps)
    nd = builtins.max(x.ndim, len(reps))
    x = x.reshape((1,) * (nd - x.ndim) + x.shape)
    reps = (1,) * (nd - len(reps)) + reps
    inter = tuple(e for i in range(nd) for e in (1, x.shape[i]))
    big = tuple(e for i in range(nd) for e in (reps[i], x.shape[i]))
    res = contiguous(np.broadcast_to(x.reshape(inter), big))
    res = res.reshape(tuple(reps[i] * x.shape[i] for i in range(nd)))
    if out is not None:
        return copy_into(out, res)
    return res


@public_op
def pad(x, pads, mode: str = "constant", value=0.0, out=None):
    """ONNX Pad: ``pads`` = [begin_0, ..., begin_{n-1}, end_0, ..., end_{n-1}] (negative values
    crop). mode constant (``value``), reflect (mirror without the edge) or edge (repeat)."""
    x = np.asarray(x)
    nd = x.ndim
    pads = [int(p) for p in pads]
    if len(pads) != 2 * nd:
        raise ValueError(f"tl.ops.pad: pads needs {2 * nd} values, got {len(pads)}")
    if mode not in ("constant", "reflect", "edge", "wrap"):
        raise ValueError(f"tl.ops.pad: unsupported mode {mode!r}")
    crop = tuple(builtins.slice(builtins.max(-b, 0), x.shape[i] - builtins.max(-e, 0))
                 for i, (b, e) in enumerate(zip(pads[:nd], pads[nd:])))
    x = x[crop]
    b = [builtins.max(p, 0) for p in pads[:nd]]
    e = [builtins.max(p, 0) for p in pads[nd:]]
    shape = tuple(x.shape[i] + b[i] + e[i] for i in range(nd))
    res = _out(out, shape, _NAMES[x.dtype], "pad")
    if res.size == 0:
        return res
    inner = tuple(builtins.slice(b[i], b[i] + x.shape[i]) for i in range(nd))
    if mode == "constant":
        copy_into(res, np.asarray(value).astype(x.dtype))
        copy_into(res[inner], x)
        return res
    copy_into(res[inner], x)
    for i in range(nd):   # fill axis i's borders from the already-filled interior of axes < i
        n = x.shape[i]
        if (b[i] or e[i]) and n == 0:
            raise ValueError(f"tl.ops.pad: cannot {mode}-pad an empty axis")
        full = [builtins.slice(b[j], b[j] + x.shape[j]) if j > i else builtins.slice(None)
                for j in range(nd)]
        for d in list(range(b[i])) + list(range(b[i] + n, b[i] + n + e[i])):
            t = d - b[i]
            if mode == "reflect":
                m = t % (2 * n - 2) if n > 1 else 0
                src = m if m < n else 2 * n - 2 - m
            elif mode == "edge":
                src = builtins.min(builtins.max(t, 0), n - 1)
            else:
                src = t % n
            ds, ss = list(full), list(full)
            ds[i] = builtins.slice(d, d + 1)
            ss[i] = builtins.slice(b[i] + src, b[i] + src + 1)
            copy_into(res[tuple(ds)], contiguous(res[tuple(ss)]))
    return res


def _check_idx(idx, n, op):
    idx = np.asarray(idx)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"tl.ops.{op}: indices must be integers, got {idx.dtype}")
    idx = idx.astype(np.int64)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"tl.ops.{op}: index out of range for an axis of size {n}")
    return np.where(idx < 0, idx + n, idx)


@public_op
def gather(x, indices, axis: int = 0, out=None):
    """np.take(x, indices, axis) (ONNX Gather). x: any dtype and strides, shape (..., A, ...);
    indices: integer array of any shape, in [-A, A) (negative count from the end; IndexError
    otherwise, before anything is written); result shape x.shape[:axis] + indices.shape +
    x.shape[axis+1:]. Kernels: ``take_rows`` (one row copy per index) or, when nothing follows
    ``axis``, ``take_cols`` (one element per index)."""
    x = np.asarray(x)
    ax = _norm_axis(axis, x.ndim, "gather")
    idx = _check_idx(indices, x.shape[ax], "gather")
    shape = x.shape[:ax] + idx.shape + x.shape[ax + 1:]
    res = _out(out, shape, _NAMES[x.dtype], "gather")
    if res.size == 0:
        return res
    P, A, Q = int(np.prod(x.shape[:ax], dtype=np.int64)), x.shape[ax], int(np.prod(x.shape[ax + 1:], dtype=np.int64))
    xb, k = _bits(x.reshape(P, A, Q))
    flat = idx.reshape(-1)
    tmp = res.reshape(P, flat.size, Q) if res.flags.c_contiguous else np.empty((P, flat.size, Q), res.dtype)
    tb, _ = _bits(tmp)
    if Q == 1:
        _launch(f"take_cols__DT_{k}", xb[:, :, 0], np.broadcast_to(flat, (P, flat.size)), tb[:, :, 0])
    else:
        _launch(f"take_rows__DT_{k}", xb, flat, tb)
    if not np.shares_memory(tmp, res):
        np.copyto(res, tmp.reshape(shape))
    return res


@public_op
def index_select(x, axis: int, index, out=None):
    """torch.index_select: gather with a 1-D index."""
    return gather(x, np.asarray(index).reshape(-1), axis, out=out)


@public_op
def embedding(indices, weight, out=None):
    """weight[indices] (rows of the (V, D) table)."""
    return gather(weight, indices, 0, out=out)


@public_op
def gather_elements(x, indices, axis: int = 0, out=None):
    """np.take_along_axis (ONNX GatherElements): out[..i..] = x[..indices[..i..]..] along axis."""
    x = np.asarray(x)
    ax = _norm_axis(axis, x.ndim, "gather_elements")
    idx = _check_idx(indices, x.shape[ax], "gather_elements")
    if idx.ndim != x.ndim:
        raise ValueError("tl.ops.gather_elements: indices must have the rank of x")
    res = _out(out, idx.shape, _NAMES[x.dtype], "gather_elements")
    if res.size == 0:
        return res
    sub = tuple(builtins.slice(0, idx.shape[i]) if i != ax else builtins.slice(None) for i in range(x.ndim))
    xm = np.moveaxis(x[sub], ax, -1)
    im = np.ascontiguousarray(np.moveaxis(idx, ax, -1))
    xb, k = _bits(np.ascontiguousarray(xm).reshape(-1, xm.shape[-1]))
    tmp = np.empty(im.shape, x.dtype)
    tb, _ = _bits(tmp.reshape(-1, im.shape[-1]))
    _launch(f"take_cols__DT_{k}", xb, im.reshape(-1, im.shape[-1]), tb)
    copy_into(res, np.moveaxis(tmp, -1, ax))
    return res


@public_op
def scatter_elements(data, indices, updates, axis: int = 0, reduction: str = "none", out=None):
    """ONNX ScatterElements / torch.scatter(_reduce): a copy of data with updates written at
    indices along axis; reduction none (last duplicate wins), add, mul, max, min."""
    data = np.asarray(data)
    ax = _norm_axis(axis, data.ndim, "scatter_elements")
    idx = _check_idx(indices, data.shape[ax], "scatter_elements")
    upd = np.asarray(updates, data.dtype)
    if upd.shape != idx.shape:
        raise ValueError("tl.ops.scatter_elements: updates and indices must have one shape")
    red = {"none": "none", "add": "add", "mul": "mul", "max": "max", "min": "min"}.get(reduction)
    if red is None:
        raise ValueError(f"tl.ops.scatter_elements: unknown reduction {reduction!r}")
    res = _out(out, data.shape, _NAMES[data.dtype], "scatter_elements")
    copy_into(res, data)
    if idx.size == 0:
        return res
    # rows of the other axes covered by the indices; pad idx with -1 elsewhere
    sub = tuple(builtins.slice(0, idx.shape[i]) if i != ax else builtins.slice(None) for i in range(data.ndim))
    dm = np.ascontiguousarray(np.moveaxis(res[sub], ax, -1))
    im = np.ascontiguousarray(np.moveaxis(idx, ax, -1))
    um = np.ascontiguousarray(np.moveaxis(upd, ax, -1))
    d2 = dm.reshape(-1, dm.shape[-1])
    o2 = np.empty_like(d2)
    if red == "none":
        db, k = _bits(d2)
        ob, _ = _bits(o2)
        ub, _ = _bits(um.reshape(-1, um.shape[-1]))
        _launch(f"scatter_cols__DT_{k}", db, im.reshape(-1, im.shape[-1]), ub, ob)
    else:
        name = _NAMES[data.dtype]
        if (name, red) not in (("float32", "add"), ("float32", "mul"), ("float32", "max"),
                               ("float32", "min"), ("int64", "add")):
            raise TypeError(f"tl.ops.scatter_elements: reduction {red} on {name} is not supported")
        _launch(f"scatter_cols__DT_{name}__REDUCE_{red}", d2, im.reshape(-1, im.shape[-1]),
                um.reshape(-1, um.shape[-1]), o2)
    copy_into(res[sub], np.moveaxis(o2.reshape(dm.shape), -1, ax))
    return res


@public_op
def scatter_add(data, indices, updates, axis: int = 0, out=None):
    """ONNX ScatterElements(reduction='add') argument order: (data, indices, updates, axis)
    -- NOT torch.scatter_add's (input, dim, index, src). out[indices[i, j], j] += updates[i, j]
    (axis 0; likewise for other axes) on a copy of data."""
    return scatter_elements(data, indices, updates, axis, "add", out=out)


@public_op
def one_hot(indices, depth: int, values=(0.0, 1.0), axis: int = -1, dtype=np.float32):
    """ONNX OneHot: out[..., j, ...] = values[1] if indices == j (negative indices count from
    the end, out-of-range rows are all off) else values[0]; new axis at ``axis``."""
    idx = np.asarray(indices)
    depth = int(depth)
    idx = idx.astype(np.int64)
    idx = np.where(idx < 0, idx + depth, idx)
    cols = arange(0, depth, 1, dtype=np.int64)
    hit = equal(idx[..., None], cols)
    vals = np.asarray(values).astype(dtype)
    res = where(hit, vals[1:2].reshape(()), vals[0:1].reshape(()))
    ax = _norm_axis(axis, idx.ndim + 1, "one_hot")
    return contiguous(np.moveaxis(res, -1, ax))


def _tri(x, k, op, out):
    x = np.asarray(x)
    if x.ndim < 2:
        raise ValueError(f"tl.ops.{op}: needs at least 2 axes")
    res = _out(out, x.shape, _NAMES[x.dtype], op)
    if res.size == 0:
        return res
    tmp = np.empty(x.shape, x.dtype)
    for i in np.ndindex(*x.shape[:-2]):
        xb, kk = _bits(x[i])
        tb, _ = _bits(tmp[i])
        _launch(f"tri__DT_{kk}__OP_{op}", xb, tb, int(k))
    copy_into(res, tmp)
    return res


@public_op
def triu(x, k: int = 0, out=None):
    """Upper triangle of the last two axes (x[i, j] kept where j - i >= k)."""
    return _tri(x, k, "upper", out)


@public_op
def tril(x, k: int = 0, out=None):
    """Lower triangle of the last two axes (x[i, j] kept where j - i <= k)."""
    return _tri(x, k, "lower", out)


@public_op
def arange(start, stop=None, step=1, dtype=None):
    """np.arange: float32 values are start + i * step in float32; int64 exactly; int32 via a
    cast. Length ceil((stop - start) / step)."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = np.float32 if builtins.any(isinstance(v, float) for v in (start, stop, step)) else np.int64
    dtype = np.dtype(dtype)
    n = builtins.max(int(np.ceil((stop - start) / step)), 0)
    if dtype.kind == "f":
        res = np.empty(n, np.float32)
        if n:
            _launch("arange_f32", res, float(start), float(step))
    else:
        res = np.empty(n, np.int64)
        if n:
            _launch("arange_i64", res, int(start), int(step))
    if res.dtype != dtype:
        res = cast(res, dtype)
    return res


@public_op
def full(shape, value, dtype=np.float32, out=None):
    """An array of ``shape`` filled with ``value`` (one broadcast copy)."""
    res = _out(out, tuple(int(s) for s in shape), _NAMES[np.dtype(dtype)], "full")
    return copy_into(res, np.asarray(value).astype(dtype))


@public_op
def flip(x, axes=None, out=None):
    """np.flip materialised (negative-stride view + copy)."""
    return contiguous(np.flip(np.asarray(x), axes), out=out)


@public_op
def reshape(x, shape):
    """np.reshape; a view when strides allow, else a contiguous copy first."""
    x = np.asarray(x)
    try:
        return np.reshape(x, shape, copy=False)
    except ValueError:
        return contiguous(x).reshape(shape)


__all__ = names_in(__name__)
