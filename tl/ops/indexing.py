"""gather_nd and scatter_nd (ONNX GatherND / ScatterND; tf.gather_nd / tf.scatter_nd_update):
index tuples address slices of ``data``. The tuples become row numbers of ``data`` viewed as
(rows, rest) (index arithmetic on the host, like any index preparation), and the data moves
through the gather (take_rows/take_cols) and scatter_elements (scatter_cols) kernels.

dtypes: those of gather / scatter_elements (float32/float16/bfloat16/int32/int64/int8/bool;
reduction add on float32/int64, mul/max/min on float32). Errors (naming the op called and
its argument): TypeError for non-integer indices, an unsupported data dtype or a reduction
the dtype lacks, IndexError for an index out of range (negative indices count from the end),
ValueError for inconsistent shapes or an unknown reduction.

Also reverse_sequence (ONNX ReverseSequence, through gather_elements).
"""
from __future__ import annotations

import numpy as np

from tl.ops._core import _BY_NAME, _NAMES, _norm_axis, _np, _out
from tl.ops.data import contiguous, gather, gather_elements, reshape, scatter_elements
from tl.ops._registry import names_in, public_op


# reductions of scatter_elements' kernels (ops/): reduction -> data dtypes
_REDUCE = {"none": None, "add": ("float32", "int64"), "mul": ("float32",), "max": ("float32",),
           "min": ("float32",)}


def _data(op, data):
    """``data`` as a NumPy array of a tl.ops dtype; TypeError naming op and argument otherwise."""
    data = _np(data, "data", op)
    if data.dtype not in _NAMES:
        raise TypeError(f"tl.ops.{op}: argument 'data' has dtype {data.dtype}; expected one of "
                        f"{', '.join(_BY_NAME)}")
    return data


def _rows(op, shape, idx, batch_dims=0):
    """Row numbers of the index tuples ``idx`` (..., k) into ``shape`` viewed as
    (prod(shape[:batch_dims + k]), rest); the leading ``batch_dims`` axes of idx are batch axes."""
    idx = np.asarray(idx)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"tl.ops.{op}: argument 'indices' must be integers, got {idx.dtype}")
    if idx.ndim < 1 or idx.ndim <= batch_dims:
        raise ValueError(f"tl.ops.{op}: argument 'indices' needs rank > batch_dims, got shape {idx.shape}")
    b, k = batch_dims, idx.shape[-1]
    if k > len(shape) - b or idx.shape[:b] != tuple(shape[:b]):
        raise ValueError(f"tl.ops.{op}: indices of shape {idx.shape} do not address data of shape "
                         f"{tuple(shape)} (batch_dims={b})")
    dims = np.asarray(shape[b:b + k], np.int64)
    i = idx.astype(np.int64)
    if i.size and ((i < -dims).any() or (i >= dims).any()):
        raise IndexError(f"tl.ops.{op}: an index is out of range for data of shape {tuple(shape)}")
    i = np.where(i < 0, i + dims, i)
    lin = (i * np.append(np.cumprod(dims[::-1])[::-1][1:], 1)).sum(-1) if k else np.zeros(idx.shape[:-1], np.int64)
    nb = int(np.prod(shape[:b], dtype=np.int64))
    per = int(np.prod(dims, dtype=np.int64))
    batch = np.arange(nb, dtype=np.int64).reshape(tuple(shape[:b]) + (1,) * (idx.ndim - 1 - b))
    return batch * per + lin, nb * per


@public_op
def gather_nd(data, indices, batch_dims: int = 0):
    """ONNX GatherND: out[b..., m...] = data[b..., *indices[b..., m..., :]] (a slice when the
    tuple is shorter than data's rank after the batch axes). Result shape:
    indices.shape[:-1] + data.shape[batch_dims + indices.shape[-1]:]."""
    data = _data("gather_nd", data)
    b = int(batch_dims)
    if not 0 <= b < data.ndim:
        raise ValueError(f"tl.ops.gather_nd: batch_dims must lie in [0, {data.ndim}), got {batch_dims}")
    lin, n = _rows("gather_nd", data.shape, indices, b)
    rest = data.shape[b + np.asarray(indices).shape[-1]:]
    return gather(reshape(data, (n,) + rest), lin, 0)


@public_op
def scatter_nd(data, indices, updates, reduction: str = "none"):
    """ONNX ScatterND: a copy of ``data`` with ``updates[m...]`` written to (or, with reduction
    add/mul/max/min, combined into) the slice ``data[*indices[m..., :]]``; for reduction none a
    repeated index keeps the last update. updates.shape must be indices.shape[:-1] +
    data.shape[indices.shape[-1]:]."""
    data = _data("scatter_nd", data)
    if reduction not in _REDUCE:
        raise ValueError(f"tl.ops.scatter_nd: argument 'reduction' must be one of "
                         f"{', '.join(map(repr, _REDUCE))}, got {reduction!r}")
    dts = _REDUCE[reduction]
    if dts is not None and _NAMES[data.dtype] not in dts:
        raise TypeError(f"tl.ops.scatter_nd: reduction {reduction!r} supports data of dtype "
                        f"{' / '.join(dts)}, got {data.dtype}")
    idx = np.asarray(indices)
    lin, n = _rows("scatter_nd", data.shape, idx)
    rest = data.shape[idx.shape[-1]:]
    upd = np.asarray(updates, data.dtype)
    if upd.shape != lin.shape + rest:
        raise ValueError(f"tl.ops.scatter_nd: argument 'updates' has shape {upd.shape}, expected {lin.shape + rest}")
    q = int(np.prod(rest, dtype=np.int64))
    if lin.size == 0 or q == 0:
        return contiguous(data)
    cols = np.broadcast_to(lin.reshape(-1, 1), (lin.size, q))
    res = scatter_elements(reshape(data, (n, q)), cols, reshape(upd, (lin.size, q)), 0, reduction)
    return res.reshape(data.shape)


@public_op
def reverse_sequence(x, sequence_lens, batch_axis: int = 1, time_axis: int = 0, out=None):
    """x (at least 2-D, any tl.ops dtype) with ``x[t, b]`` replaced by ``x[lens[b] - 1 - t, b]``
    for t < lens[b] (other steps unchanged). ``sequence_lens``: int32/int64 of shape
    (x.shape[batch_axis],), each in [0, x.shape[time_axis]] (0 and 1 leave the entry as is).
    ``out``: None or a writable NumPy array of x's shape and dtype. Errors: ValueError for equal
    or out-of-range axes, a wrong lens shape, a length out of range or an ``out`` of the wrong
    shape; TypeError for non-integer lens, an unsupported x dtype or an ``out`` of the wrong
    type / dtype."""
    x = _np(x, "x", "reverse_sequence")
    if x.dtype not in _NAMES:
        raise TypeError(f"tl.ops.reverse_sequence: argument 'x' has dtype {x.dtype}; expected one of "
                        f"{', '.join(_BY_NAME)}")
    lens = np.asarray(sequence_lens)
    if x.ndim < 2:
        raise ValueError(f"tl.ops.reverse_sequence: argument 'x' must be at least 2-D, got shape {x.shape}")
    ba, ta = (_norm_axis(a, x.ndim, "reverse_sequence") for a in (batch_axis, time_axis))
    if ba == ta:
        raise ValueError("tl.ops.reverse_sequence: batch_axis and time_axis must differ")
    if lens.dtype.kind not in "iu":
        raise TypeError(f"tl.ops.reverse_sequence: argument 'sequence_lens' has dtype {lens.dtype}; expected int32/int64")
    if lens.shape != (x.shape[ba],):
        raise ValueError(f"tl.ops.reverse_sequence: argument 'sequence_lens' has shape {lens.shape}, "
                         f"expected ({x.shape[ba]},)")
    if lens.size and (lens.min() < 0 or lens.max() > x.shape[ta]):
        raise ValueError(f"tl.ops.reverse_sequence: argument 'sequence_lens' must lie in [0, {x.shape[ta]}]")
    if out is not None:
        out = _out(out, x.shape, _NAMES[x.dtype], "reverse_sequence")
    t = np.arange(x.shape[ta], dtype=np.int64)[:, None]
    ln = lens.astype(np.int64)[None, :]
    src = np.where(t < ln, ln - 1 - t, t)                 # (T, B)
    shp = [1] * x.ndim
    shp[ta], shp[ba] = x.shape[ta], x.shape[ba]
    src = src if ta < ba else src.T
    idx = np.broadcast_to(src.reshape(shp), x.shape)
    return gather_elements(x, idx, ta, out=out)


__all__ = names_in(__name__)
