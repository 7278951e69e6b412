"""Sorting tl.ops: sort, argsort, topk (ONNX TopK, torch.sort / torch.topk semantics).

Rows longer than 256 are sorted by a bottom-up merge sort, O(N log N): ceil(log2 N) launches
of ``merge_pass`` (ops/sort.py) over (key, index) pairs, ping-ponging two buffers; shorter rows
by ``sort_rank`` (the rank of each element within its row, O(N^2), one launch), then
``scatter_cols`` (rank -> permutation) and ``take_cols`` (gather the values). Both orders: ties
by lower index (stable), NaN largest (NumPy / torch order); -0.0 and 0.0 tie. Dtypes: float32, float16, bfloat16, int32, int64; indices are int64.
Errors: ValueError for a bad axis or k; TypeError for other dtypes.
"""
from __future__ import annotations

import numpy as np

from tl.ops._core import _arr, _launch, _norm_axis
from tl.ops.data import gather_elements, scatter_elements
from tl.ops._registry import names_in, public_op


_DT = ("float32", "float16", "bfloat16", "int32", "int64")


_MERGE_MIN = 256


def _merge_perm(xm, rows, n, dt, descending):
    """int64 (rows, n) permutation sorting each row: bottom-up merge sort (merge_pass)."""
    ka = np.array(xm, order="C", copy=True).reshape(rows, n)
    ia = np.array(np.broadcast_to(np.arange(n, dtype=np.int64), (rows, n)))
    kb, ib = np.empty_like(ka), np.empty_like(ia)
    name = f"merge_pass__DT_{dt}__LARGEST_{1 if descending else 0}"
    w = 1
    while w < n:
        _launch(name, ka, ia, kb, ib, w)
        ka, kb, ia, ib = kb, ka, ib, ia
        w *= 2
    return ia


def _perm(x, axis, descending, op):
    """(x moved to (..., N), int64 permutation (..., N) sorting each row)."""
    x, dt = _arr(x, "x", op, _DT)
    if x.ndim == 0:
        x = x.reshape(1)
    ax = _norm_axis(axis, x.ndim, op)
    xm = np.moveaxis(x, ax, -1)
    n = xm.shape[-1]
    rows = int(np.prod(xm.shape[:-1])) if xm.ndim > 1 else 1
    if xm.size == 0:
        return ax, xm, np.empty(xm.shape, np.int64)
    if n > _MERGE_MIN:
        return ax, xm, _merge_perm(xm, rows, n, dt, descending).reshape(xm.shape)
    x2 = np.ascontiguousarray(xm).reshape(rows, n)
    rank = np.empty((rows, n), np.int64)
    _launch(f"sort_rank__DT_{dt}__LARGEST_{1 if descending else 0}", x2, rank)
    iota = np.broadcast_to(np.arange(n, dtype=np.int64), (rows, n))
    perm = scatter_elements(np.zeros((rows, n), np.int64), rank, iota, axis=1)
    return ax, xm, perm.reshape(xm.shape)


@public_op
def argsort(x, axis: int = -1, descending: bool = False):
    """Stable argsort along ``axis`` (int64); NaN sorts as the largest value."""
    ax, xm, perm = _perm(x, axis, descending, "argsort")
    return np.ascontiguousarray(np.moveaxis(perm, -1, ax)) if perm.ndim else perm


@public_op
def sort(x, axis: int = -1, descending: bool = False):
    """(values, indices) of a stable sort along ``axis`` (torch.sort(stable=True))."""
    x = np.asarray(x)
    ax, xm, perm = _perm(x, axis, descending, "sort")
    vals = gather_elements(xm, perm, -1) if perm.size else np.empty(xm.shape, xm.dtype)
    back = lambda a: np.ascontiguousarray(np.moveaxis(a, -1, ax))  # noqa: E731
    return back(vals), back(perm)


@public_op
def topk(x, k: int, axis: int = -1, largest: bool = True, sorted: bool = True):
    """(values, indices) of the k largest (or smallest) elements along ``axis`` (ONNX TopK):
    ordered best first, ties by lower index; NaN counts as the largest. 0 <= k <= size of axis.
    ``sorted=False`` returns the same (sorted) order, which ONNX and torch allow."""
    x = np.asarray(x)
    ax = _norm_axis(axis, x.ndim if x.ndim else 1, "topk")
    n = x.shape[ax] if x.ndim else 1
    k = int(k)
    if not 0 <= k <= n:
        raise ValueError(f"tl.ops.topk: k={k} is out of range for an axis of size {n}")
    ax, xm, perm = _perm(x, ax, largest, "topk")
    perm = np.ascontiguousarray(perm[..., :k])
    vals = gather_elements(xm, perm, -1) if perm.size else np.empty(perm.shape, xm.dtype)
    back = lambda a: np.ascontiguousarray(np.moveaxis(a, -1, ax))  # noqa: E731
    return back(vals), back(perm)


__all__ = names_in(__name__)
