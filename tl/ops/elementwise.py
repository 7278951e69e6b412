"""The float elementwise ops with their own kernels (ops/elementwise.py, ops/activations.py,
ops/cast.py): add, sub, mul, div, relu, gelu, silu, sigmoid, exp, tanh, cast.

add/sub/mul/div and the unary ops have a fast path: same-shape arrays of one float dtype go to
the kernel as (rows, cols) views made in C (``Kernel._call2d``); everything else (broadcasting,
Python scalars, strided views that need a copy, overlapping ``out``) takes the general path
through ``_ew_views``. Layer: imports only tl/ops/_core.py and the registry.
"""
from __future__ import annotations

import numpy as np

from tl.ops._core import (_BY_NAME, _EW_CACHES, _MISS, _TLError, _arr, _dtype_name, _ew_kernel, _ew_views,
                          _launch, _ndarray, _np, _out, _overlap_safe, _scalar_like)
from tl.ops._registry import names_in, public_op


def _binary_fast(op: str, cache: dict, a, b, out):
    """tl.ops.<op>(a, b, out=None). Fast path: a, b arrays of one float dtype and shape and out
    None or of that shape and dtype: the kernel gets (rows, cols) views in C (Kernel._call2d,
    no Python-level views); it declines, running nothing, when a view would need a copy or out
    is read-only, and every other case goes to _binary (broadcasting, conversions, errors)."""
    if type(a) is _ndarray and type(b) is _ndarray and a.dtype is b.dtype and a.shape == b.shape:
        k = cache.get(a.dtype, _MISS)
        if k is _MISS:
            k = _ew_kernel(op, a.dtype)
        if k is not None:
            if out is None:
                res = np.empty(a.shape, a.dtype)
                if k._call2d(a, b, res):
                    return res
            elif type(out) is _ndarray and out.dtype is a.dtype and out.shape == a.shape:
                try:
                    if k._call2d(a, b, out):
                        return out
                except _TLError:    # e.g. out partly overlapping a or b: the general path copies
                    pass
    return _binary(op, a, b, out)


def _binary(op: str, a, b, out):
    # tensors (DLPack objects: torch, bfloat16 included) as arrays first; Python scalars and
    # lists then take the other operand's dtype
    a = _np(a, "a", op) if hasattr(a, "__dlpack__") else a
    b = _np(b, "b", op) if hasattr(b, "__dlpack__") else b
    if not isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        a = _scalar_like(a, b.dtype, "a", op)
    if not isinstance(b, np.ndarray) and isinstance(a, np.ndarray):
        b = _scalar_like(b, a.dtype, "b", op)
    a, da = _arr(a, "a", op)
    b, db = _arr(b, "b", op)
    if da != db:
        raise TypeError(f"tl.ops.{op}: arguments 'a' ({da}) and 'b' ({db}) must have the same dtype")
    try:
        shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"tl.ops.{op}: shapes {a.shape} and {b.shape} do not broadcast") from None
    out = _out(out, shape, da, op)
    if out.size == 0:
        return out
    target, finish = _overlap_safe(out, (a, b))
    (a2, b2), o2, wb = _ew_views([np.broadcast_to(a, shape), np.broadcast_to(b, shape)], target)
    _launch(f"{op}__DT_{da}", a2, b2, o2)
    if wb:
        wb()
    if finish:
        finish()
    return out


_ADD, _SUB, _MUL, _DIV = (_EW_CACHES.setdefault(op, {}) for op in ("add", "sub", "mul", "div"))


@public_op
def add(a, b, out=None):
    """a + b with NumPy broadcasting; a, b of one float dtype."""
    return _binary_fast("add", _ADD, a, b, out)


@public_op
def sub(a, b, out=None):
    """a - b with NumPy broadcasting."""
    return _binary_fast("sub", _SUB, a, b, out)


@public_op
def mul(a, b, out=None):
    """a * b with NumPy broadcasting."""
    return _binary_fast("mul", _MUL, a, b, out)


@public_op
def div(a, b, out=None):
    """a / b with NumPy broadcasting (IEEE: x/0 = ±inf, 0/0 = NaN)."""
    return _binary_fast("div", _DIV, a, b, out)


def _unary(kernel: str, op: str, x, out):
    if type(x) is _ndarray:   # fast path, as in _binary_op
        k = _EW_CACHES.get(kernel, {}).get(x.dtype, _MISS)
        if k is _MISS:
            k = _ew_kernel(kernel, x.dtype)
        if k is not None:
            if out is None:
                res = np.empty(x.shape, x.dtype)
                if k._call2d(x, res):
                    return res
            elif type(out) is _ndarray and out.dtype is x.dtype and out.shape == x.shape:
                try:
                    if k._call2d(x, out):
                        return out
                except _TLError:        # e.g. out partly overlapping x: the general path copies
                    pass
    x, dt = _arr(x, "x", op)
    out = _out(out, x.shape, dt, op)
    if out.size == 0:
        return out
    target, finish = _overlap_safe(out, (x,))
    (x2,), o2, wb = _ew_views([x], target)
    _launch(f"{kernel}__DT_{dt}", x2, o2)
    if wb:
        wb()
    if finish:
        finish()
    return out


@public_op
def relu(x, out=None):
    """max(x, 0); NaN propagates."""
    return _unary("relu", "relu", x, out)


@public_op
def gelu(x, approximate: str = "none", out=None):
    """GELU. approximate="none": 0.5*x*erfc(-x/sqrt2) (accurate in the negative tail, docs/semantics.md#c-21);
    "tanh": 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715 x^3)))."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"tl.ops.gelu: argument 'approximate' must be 'none' or 'tanh', got {approximate!r}")
    return _unary("gelu" if approximate == "none" else "gelu_tanh", "gelu", x, out)


@public_op
def silu(x, out=None):
    """x * sigmoid(x)."""
    return _unary("silu", "silu", x, out)


@public_op
def sigmoid(x, out=None):
    """1 / (1 + exp(-x))."""
    return _unary("sigmoid", "sigmoid", x, out)


@public_op
def exp(x, out=None):
    """exp(x)."""
    return _unary("exp", "exp", x, out)


@public_op
def tanh(x, out=None):
    """tanh(x)."""
    return _unary("tanh", "tanh", x, out)


# cast: direct kernel pairs, and the route for every other pair (each hop exact or a single
# rounding, except int32/int64 -> float16/bfloat16 which rounds twice for |x| > 2**24).
_CAST_DIRECT = {("float32", d) for d in ("float16", "bfloat16", "int32", "int64", "bool")}
_CAST_DIRECT |= {(d, "float32") for d in ("float16", "bfloat16", "int32", "int64", "bool")}
_CAST_DIRECT |= {("int32", "int64"), ("int64", "int32"), ("int32", "int8"), ("int8", "int32")}


def _cast_route(src: str, dst: str) -> list[str]:
    """The dtype sequence from src to dst through direct kernels (src first, dst last)."""
    if src == dst or (src, dst) in _CAST_DIRECT:
        return [src, dst]
    if src == "int8":
        return ["int8"] + _cast_route("int32", dst)
    if dst == "int8":
        return _cast_route(src, "int32") + ["int8"]
    if src == "int64" and dst == "int32" or src == "int32" and dst == "int64":
        return [src, dst]
    return _cast_route(src, "float32") + _cast_route("float32", dst)[1:]


@public_op
def cast(x, dtype, out=None):
    """x converted to ``dtype`` (float32, float16, bfloat16, int8, int32, int64, bool; a NumPy
    dtype, a name or a tl dtype). float -> int truncates toward zero (NaN / out of range:
    unspecified); int -> int wraps; x -> bool is x != 0; bool -> number is 0/1."""
    x, src = _arr(x, "x", "cast", allowed=tuple(_BY_NAME))
    try:
        dst = _dtype_name(dtype)
    except TypeError as e:
        raise TypeError(f"tl.ops.cast: argument 'dtype': {e}") from None
    out = _out(out, x.shape, dst, "cast")
    if out.size == 0:
        return out
    if src == dst:
        np.copyto(out, x)
        return out
    route = _cast_route(src, dst)
    (cur,), last, last_wb = _ew_views([x], out)
    for i in range(1, len(route)):
        s, d = route[i - 1], route[i]
        if i == len(route) - 1:
            o2, wb = last, last_wb
        else:
            o2, wb = np.empty(cur.shape, _BY_NAME[d]), None
        _launch(f"cast__DST_{d}__SRC_{s}", cur, o2)
        if wb:
            wb()
        cur = o2
    return out


__all__ = names_in(__name__)
