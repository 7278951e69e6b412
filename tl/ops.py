"""NumPy-style operators backed by the compiled operator library (a ``.tlpkg`` built from ``ops/``).

Every function takes NumPy arrays (float32, float16 or ``ml_dtypes.bfloat16`` unless stated),
allocates its result (or writes ``out=``, which must have the exact result shape and dtype) and
returns it. Kernels work on rank-2 (rows, cols) strided tensors: N-D inputs are mapped to 2-D by
a copy-free reshape when the strides allow it, else through ``np.ascontiguousarray``; an
``axis`` other than the last is moved with ``np.moveaxis`` (a strided view, no copy). Empty
tensors are handled here without launching a kernel.

The package is loaded once on first use, found in this order (``tl._ops_package``): the path
given to ``use_package(path)``; ``$TL_OPS_PACKAGE``; in a source checkout (editable install) only
the checkout's ``build/ops.tlpkg`` (``make ops``); otherwise the per-user package
``~/.cache/tl-compiler/ops-<version>.tlpkg`` (``tlc build-ops``), then the copy shipped inside the
wheel (``tl/_data/ops.tlpkg``). ``package_path()`` says which one is used.
``TL_OPS_BACKEND=interp`` runs the same kernels in the NumPy reference interpreter instead.
Errors: ``TypeError`` for a wrong dtype (naming the argument), ``ValueError`` for bad shapes or
a max/argmax over an empty axis, ``FileNotFoundError`` when no package is found (naming every
place looked at and how to build one).
"""
from __future__ import annotations

import builtins
import os
import threading

import numpy as np

try:
    import ml_dtypes as _ml_dtypes
    bfloat16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    _ml_dtypes = None
    bfloat16 = None

__all__ = ["add", "sub", "mul", "div", "relu", "gelu", "silu", "sigmoid", "exp", "tanh", "cast",
           "sum", "max", "argmax", "softmax", "log_softmax", "layer_norm", "rms_norm", "transpose",
           "matmul", "linear", "package", "package_path", "use_package", "bfloat16"]

_PKG = None
_EXPLICIT: str | None = None   # use_package()'s path
_LOCK = threading.Lock()


class _DtypeNames(dict):
    """numpy dtype -> kernel dtype name; an unsupported dtype raises a TypeError (not a KeyError)."""

    def __missing__(self, key):
        raise TypeError(f"tl.ops: unsupported dtype {key}; tl.ops takes "
                        f"{', '.join(sorted(set(self.values())))}")


_NAMES = _DtypeNames({np.dtype(np.float32): "float32", np.dtype(np.float16): "float16",
          np.dtype(np.int8): "int8", np.dtype(np.int32): "int32", np.dtype(np.int64): "int64",
          np.dtype(np.bool_): "bool"})
if bfloat16 is not None:
    _NAMES[bfloat16] = "bfloat16"
_FLOATS = ("float32", "float16", "bfloat16")
_BY_NAME = {v: k for k, v in _NAMES.items()}


# ----------------------------------------------------------------------------- package
def package():
    """The loaded operator package (or the interpreter stand-in with TL_OPS_BACKEND=interp)."""
    global _PKG
    if _PKG is None:
        with _LOCK:
            if _PKG is None:
                if os.environ.get("TL_OPS_BACKEND", "").lower() == "interp":
                    from tl._ops_registry import InterpPackage
                    _PKG = InterpPackage()
                else:
                    import tl
                    _PKG = tl.load(package_path())
    return _PKG


def package_path() -> str:
    """The path of the operator package ``tl.ops`` loads (or would load): ``use_package``'s path,
    ``$TL_OPS_PACKAGE``, a checkout's ``build/ops.tlpkg``, the per-user package, the wheel's copy.
    Raises FileNotFoundError naming each place looked at when none exists."""
    from tl._ops_package import locate
    return locate(_EXPLICIT)


def use_package(path) -> None:
    """Makes ``tl.ops`` load the operator package at ``path`` (str or os.PathLike) from its next call
    on, ahead of ``$TL_OPS_PACKAGE`` and the defaults; ``use_package(None)`` goes back to them.
    Raises FileNotFoundError when ``path`` is not a file, TypeError when it is not a path."""
    global _EXPLICIT
    if path is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"tl.ops.use_package: argument 'path' must be a str or os.PathLike, "
                            f"got {type(path).__name__}")
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"tl.ops.use_package: argument 'path': no file {path}")
    with _LOCK:
        _EXPLICIT = path
    _reset_package()


def _reset_package() -> None:
    """Forgets the loaded package (tests switch TL_OPS_PACKAGE / TL_OPS_BACKEND)."""
    global _PKG
    _PKG = None
    for cache in _EW_CACHES.values():
        cache.clear()


# elementwise fast paths: kernel base name -> {dtype: compiled kernel, or None (no fast path)}
_EW_CACHES: dict = {}
_MISS = object()


from tl._runtime import Package as _Package, TLError as _TLError, _bf16_view  # noqa: E402


def _launch(name: str, *args) -> None:
    pkg = _PKG if _PKG is not None else package()
    if type(pkg) is _Package:   # the compiled package: its kernel cache, without __getattr__
        pkg.kernel(name)(*args)
    else:
        getattr(pkg, name)(*args)


# ----------------------------------------------------------------------------- helpers
def _dtype_name(d) -> str:
    """'float32', ... for a NumPy dtype, a tl.DType, or a name; TypeError otherwise."""
    if isinstance(d, str) and d in _BY_NAME:
        return d
    if hasattr(d, "name") and getattr(d, "name", None) in _BY_NAME and not isinstance(d, np.dtype):
        return d.name  # tl.DType
    try:
        nd = np.dtype(d)
    except TypeError:
        nd = None
    if nd is not None and nd in _NAMES:
        return _NAMES[nd]
    raise TypeError(f"unsupported dtype {d!r}; expected one of {', '.join(_BY_NAME)}")


def _np(x, arg: str, op: str) -> np.ndarray:
    """``x`` as a NumPy array: ndarrays as they are, CPU torch bfloat16 tensors as a copy-free
    ``ml_dtypes.bfloat16`` view of their memory (NumPy has no bfloat16), anything else through
    ``np.asarray``. Results of tl.ops are always NumPy arrays, whatever the input type."""
    if isinstance(x, np.ndarray):
        return x
    v = _bf16_view(x, f"tl.ops.{op}: argument '{arg}'")
    return np.asarray(x) if v is None else v


def _arr(x, arg: str, op: str, allowed=_FLOATS) -> tuple[np.ndarray, str]:
    """(``x`` as a NumPy array (see ``_np``: torch bfloat16 tensors are accepted), its dtype
    name); TypeError naming ``arg`` and ``op`` when the dtype is not in ``allowed``."""
    a = _np(x, arg, op)
    name = _NAMES.get(a.dtype)
    if name is None or name not in allowed:
        raise TypeError(f"tl.ops.{op}: argument '{arg}' has dtype {a.dtype}; "
                        f"expected one of {', '.join(allowed)}")
    return a, name


def _out(out, shape, dtname: str, op: str) -> np.ndarray:
    dt = _BY_NAME[dtname] if isinstance(dtname, str) else np.dtype(dtname)   # a name, or a NumPy dtype (uint8...)
    if out is None:
        return np.empty(shape, dt)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"tl.ops.{op}: argument 'out' must be a NumPy array, got {type(out).__name__}")
    if out.shape != tuple(shape):
        raise ValueError(f"tl.ops.{op}: argument 'out' has shape {out.shape}, expected {tuple(shape)}")
    if out.dtype != dt:
        raise TypeError(f"tl.ops.{op}: argument 'out' has dtype {out.dtype}, expected {dtname}")
    if not out.flags.writeable:
        raise ValueError(f"tl.ops.{op}: argument 'out' is read-only")
    return out


def _to2d(a: np.ndarray) -> np.ndarray:
    """(rows, cols) view of ``a`` (last axis = cols) without a copy when strides allow."""
    if a.ndim == 2:
        return a
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a[None, :]
    shape = (int(np.prod(a.shape[:-1])), a.shape[-1])
    try:
        return np.reshape(a, shape, copy=False)
    except ValueError:
        return np.ascontiguousarray(a).reshape(shape)


def _to1d(a: np.ndarray) -> np.ndarray:
    if a.ndim == 1:
        return a
    try:
        return np.reshape(a, (-1,), copy=False)
    except ValueError:
        return np.ascontiguousarray(a).reshape(-1)


def _shape2d(shape) -> tuple[int, int]:
    if len(shape) == 0:
        return (1, 1)
    n = 1
    for d in shape[:-1]:
        n *= d
    return (n, shape[-1])


def _dest(view: np.ndarray, shape) -> tuple[np.ndarray, object]:
    """(dst, writeback): ``view`` (a view of the caller's out) reshaped to ``shape`` without a
    copy, or a contiguous temporary plus a callback that copies it into ``view``."""
    try:
        return np.reshape(view, shape, copy=False), None
    except ValueError:
        tmp = np.empty(view.shape, view.dtype)
        return tmp.reshape(shape), (lambda: np.copyto(view, tmp))


def _flat_shape(n: int) -> tuple[int, int]:
    """The (rows, cols) an elementwise kernel gets for ``n`` elements taken in C order: ``n``
    split over the most rows of 8, 4, 2, 1 that divide it, so every kernel tile shape in ops/
    (1 x 256 and 4 x 256 per program) runs full tiles along one long row whatever the caller's
    shape ((N, 1), (1, N), tall-skinny, size-1 axes). Square shapes get as many programs as
    their natural (rows, cols) view."""
    for r in (8, 4, 2):
        if n % r == 0 and n >= 256 * r:
            return r, n // r
    return 1, n


def _ew_views(ins, out: np.ndarray):
    """Views for one elementwise launch over ``out.shape``: ([input views], out view, writeback).
    ``ins`` are arrays of out's shape (already broadcast). When every input reshapes to the flat
    (rows, cols) of _flat_shape without a copy (C-order contiguous or uniformly strided; never a
    broadcast), all operands are presented that way (same C-order element correspondence, so
    the result is unchanged); otherwise as _to2d's (leading axes merged, last axis = cols)."""
    shape = _flat_shape(out.size)
    views = []
    for a in ins:
        try:
            views.append(np.reshape(a, shape, copy=False))
        except ValueError:
            o2, wb = _writable_view(out, "2d")
            return [_to2d(a) for a in ins], o2, wb
    o2, wb = _dest(out, shape)
    return views, o2, wb


def _writable_view(out: np.ndarray, kind):
    """Destination of a kernel for ``out``: kind "2d" (rows, cols) or "1d"."""
    return _dest(out, _shape2d(out.shape) if kind == "2d" else (out.size,))


def _norm_axis(axis: int, ndim: int, op: str) -> int:
    if not isinstance(axis, (int, np.integer)):
        raise TypeError(f"tl.ops.{op}: argument 'axis' must be an int, got {type(axis).__name__}")
    nd = ndim if ndim else 1  # builtins max/sum are shadowed in this module
    if not -nd <= axis < nd:
        raise ValueError(f"tl.ops.{op}: axis {axis} is out of bounds for an array of dimension {ndim}")
    return int(axis) % nd


# ----------------------------------------------------------------------------- elementwise
def _ew_kernel(op: str, dt):
    """The compiled kernel ``{op}__DT_{dtype}`` for a float dtype of the compiled package, else
    None; remembered in _EW_CACHES[op] until _reset_package."""
    name = _NAMES.get(dt)
    pkg = package()
    k = None
    if name in _FLOATS and type(pkg) is _Package and f"{op}__DT_{name}" in pkg:
        k = pkg.kernel(f"{op}__DT_{name}")
    _EW_CACHES.setdefault(op, {})[dt] = k
    return k


_ndarray = np.ndarray


def _overlap_safe(out: np.ndarray, ins) -> tuple[np.ndarray, object]:
    """(target, finish) for an elementwise op writing ``out``: ``out`` itself, unless it partly
    overlaps an input (not the identical view), then a fresh buffer that ``finish()`` copies into
    ``out``, so the result is as if every input were read before anything was written (NumPy's
    semantics; the kernels refuse overlapping outputs)."""
    oi = out.__array_interface__["data"][0]
    for a in ins:
        if isinstance(a, np.ndarray) and np.may_share_memory(out, a) and not (
                a.__array_interface__["data"][0] == oi and a.shape == out.shape and a.strides == out.strides):
            tmp = np.empty(out.shape, out.dtype)
            return tmp, lambda: np.copyto(out, tmp)
    return out, None


def _binary_op(op: str, doc: str):
    """tl.ops.<op>(a, b, out=None). Fast path: a, b arrays of one float dtype and shape and out
    None or of that shape and dtype: the kernel gets (rows, cols) views in C (Kernel._call2d,
    no Python-level views); it declines, running nothing, when a view would need a copy or out
    is read-only, and every other case goes to _binary (broadcasting, conversions, errors)."""
    cache = _EW_CACHES.setdefault(op, {})

    def fn(a, b, out=None):
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
    fn.__name__ = fn.__qualname__ = op
    fn.__doc__ = doc
    return fn


def _scalar_like(v, dtype, name: str, op: str) -> np.ndarray:
    """A Python number (or nested list/tuple of numbers, or NumPy scalar) as an array of the
    other operand's dtype; TypeError naming the argument for anything else (None, str, objects),
    as NumPy does, instead of a silent NaN or a parsed string."""
    probe = np.asarray(v)
    if probe.dtype.kind not in "biuf":
        raise TypeError(f"tl.ops.{op}: argument '{name}' must be an array or a number, got "
                        f"{type(v).__name__} {v!r:.60}")
    return np.asarray(v, dtype=dtype)


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


add = _binary_op("add", """a + b with NumPy broadcasting; a, b of one float dtype.""")
sub = _binary_op("sub", """a - b with NumPy broadcasting.""")
mul = _binary_op("mul", """a * b with NumPy broadcasting.""")
div = _binary_op("div", """a / b with NumPy broadcasting (IEEE: x/0 = ±inf, 0/0 = NaN).""")


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


def relu(x, out=None):
    """max(x, 0); NaN propagates."""
    return _unary("relu", "relu", x, out)


def gelu(x, approximate: str = "none", out=None):
    """GELU. approximate="none": 0.5*x*erfc(-x/sqrt2) (accurate in the negative tail, docs/semantics.md#c-21);
    "tanh": 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715 x^3)))."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"tl.ops.gelu: argument 'approximate' must be 'none' or 'tanh', got {approximate!r}")
    return _unary("gelu" if approximate == "none" else "gelu_tanh", "gelu", x, out)


def silu(x, out=None):
    """x * sigmoid(x)."""
    return _unary("silu", "silu", x, out)


def sigmoid(x, out=None):
    """1 / (1 + exp(-x))."""
    return _unary("sigmoid", "sigmoid", x, out)


def exp(x, out=None):
    """exp(x)."""
    return _unary("exp", "exp", x, out)


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


# ----------------------------------------------------------------------------- rows
def _rows(x: np.ndarray, axis: int, op: str):
    """x with ``axis`` moved last and flattened to 2-D: (x2, moved_shape)."""
    ax = _norm_axis(axis, x.ndim, op)
    xm = np.moveaxis(x, ax, -1) if x.ndim else x.reshape(1)
    return ax, xm


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


def _reduce(kernel: str, op: str, x, axis, out, allowed=_FLOATS, out_dt=None):
    x, dt = _arr(x, "x", op, allowed)
    if kernel in _COLUMN_KERNELS and x.ndim >= 2 and x.size:
        ax = _norm_axis(axis, x.ndim, op)
        if (ax == 0 and dt in _FLOATS) or x.shape[ax] == 1:
            # a leading axis (the column kernels) or one element per output (a copy): tl._ops_reduce
            from tl._ops_reduce import _reduce as _reduce_axes
            return _reduce_axes(kernel, op, x, ax, False, _out(out, x.shape[:ax] + x.shape[ax + 1:], out_dt or dt, op),
                                allowed, out_dt)
    ax, xm = _rows(x, axis, op)
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


def sum(x, axis=None, keepdims=False, out=None):
    """Sum over ``axis`` (None: all axes, as NumPy and PyTorch; an int; a tuple), float32
    accumulation; an empty axis gives zeros."""
    if _one_axis(axis, keepdims):
        return _reduce("row_sum", "sum", x, axis, out)
    from tl._ops_reduce import reduce_sum
    return reduce_sum(x, axis, keepdims, out, _op="sum")


def max(x, axis=None, keepdims=False, out=None):
    """Maximum over ``axis`` (None: all axes; an int; a tuple), float dtypes and int32; NaN
    propagates; an empty axis raises ValueError."""
    if _one_axis(axis, keepdims):
        return _reduce("row_max", "max", x, axis, out, allowed=_FLOATS + ("int32",))
    from tl._ops_reduce import amax
    return amax(x, axis, keepdims, out, _op="max")


def argmax(x, axis=None, keepdims=False, out=None):
    """int64 index of the maximum over ``axis`` (None: into the flattened array, as NumPy):
    first occurrence on ties, NaN is the maximum (first NaN wins); an empty axis raises
    ValueError."""
    if _one_axis(axis, keepdims):
        return _reduce("row_argmax", "argmax", x, axis, out, allowed=_FLOATS + ("int32",),
                       out_dt="int64")
    from tl._ops_reduce import argmax_axis
    return argmax_axis(x, axis, keepdims, False, out)


def _rowwise(kernel: str, op: str, x, axis, out):
    x, dt = _arr(x, "x", op)
    out = _out(out, x.shape, dt, op)
    if out.size == 0:
        return out
    ax, xm = _rows(x, axis, op)
    if xm.shape[-1] == 1:
        # one element per row: softmax is exp(0) / 1 = 1 and log_softmax 0 - log(1) = +0, both
        # NaN where x is +-inf or NaN (x - max is inf - inf or NaN), i.e. (x - x) [+ 1]: two
        # flat elementwise launches instead of one program per one-element row
        sub(x, x, out=out)
        if kernel == "softmax":
            add(out, np.ones((), out.dtype), out=out)
        return out
    om = np.moveaxis(out, ax, -1) if out.ndim else out
    o2, wb = _dest(om, _shape2d(om.shape))
    bn = _short_block(xm.shape[-1])
    if bn:   # short rows: 32 whole rows per program (ops/short_rows.py)
        _launch(f"softmax_short__BN_{bn}__DT_{dt}__LOG_{int(kernel == 'log_softmax')}", _to2d(xm), o2)
    else:
        _launch(f"{kernel}__DT_{dt}", _to2d(xm), o2)
    if wb:
        wb()
    return out


def softmax(x, axis: int = -1, out=None):
    """exp(x - max) / sum(exp(x - max)) along ``axis``; a row of all -inf gives NaN."""
    return _rowwise("softmax", "softmax", x, axis, out)


def log_softmax(x, axis: int = -1, out=None):
    """(x - max) - log(sum(exp(x - max))) along ``axis``."""
    return _rowwise("log_softmax", "log_softmax", x, axis, out)


def _param(p, n: int, dt: str, arg: str, op: str, fill: float):
    if p is None:
        return np.full((n,), fill, _BY_NAME[dt])
    p, pd = _arr(p, arg, op)
    if pd != dt:
        raise TypeError(f"tl.ops.{op}: argument '{arg}' has dtype {pd}, expected {dt} (the dtype of 'x')")
    if p.shape != (n,):
        raise ValueError(f"tl.ops.{op}: argument '{arg}' has shape {p.shape}, expected ({n},)")
    return p


def layer_norm(x, weight=None, bias=None, eps: float = 1e-5, out=None):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last axis (biased variance, two
    passes). weight/bias: shape (x.shape[-1],), the dtype of x, default ones/zeros."""
    x, dt = _arr(x, "x", "layer_norm")
    if x.ndim == 0:
        raise ValueError("tl.ops.layer_norm: argument 'x' must have at least one axis")
    n = x.shape[-1]
    w = _param(weight, n, dt, "weight", "layer_norm", 1.0)
    b = _param(bias, n, dt, "bias", "layer_norm", 0.0)
    out = _out(out, x.shape, dt, "layer_norm")
    if out.size == 0:
        return out
    o2, wb = _writable_view(out, "2d")
    _launch(f"layer_norm__DT_{dt}", _to2d(x), w, b, o2, float(eps))
    if wb:
        wb()
    return out


def rms_norm(x, weight=None, eps: float = 1e-6, out=None):
    """x / sqrt(mean(x^2) + eps) * weight over the last axis; weight: (x.shape[-1],)."""
    x, dt = _arr(x, "x", "rms_norm")
    if x.ndim == 0:
        raise ValueError("tl.ops.rms_norm: argument 'x' must have at least one axis")
    n = x.shape[-1]
    w = _param(weight, n, dt, "weight", "rms_norm", 1.0)
    out = _out(out, x.shape, dt, "rms_norm")
    if out.size == 0:
        return out
    o2, wb = _writable_view(out, "2d")
    _launch(f"rms_norm__DT_{dt}", _to2d(x), w, o2, float(eps))
    if wb:
        wb()
    return out


# ----------------------------------------------------------------------------- shape, matmul
def transpose(x, axes=None, *, out=None):
    """``np.transpose(x, axes)`` as a new contiguous array: a 2-D swap (axes None or (1, 0)) runs
    the tiled ``transpose`` kernel; ndim < 2 returns a copy; any other rank or permutation is
    :func:`permute` (a strided copy). ``axes`` must be a permutation of ``range(x.ndim)``
    (ValueError otherwise, as NumPy); ``out`` is keyword-only, as NumPy's second argument is axes."""
    x, dt = _arr(x, "x", "transpose")
    if axes is not None:
        try:
            axes = tuple(int(a) for a in axes)
        except TypeError:
            raise TypeError(f"tl.ops.transpose: argument 'axes' must be a sequence of ints, got {type(axes).__name__}") from None
        if sorted(a % x.ndim if -x.ndim <= a < x.ndim else a for a in axes) != list(range(x.ndim)):
            raise ValueError(f"tl.ops.transpose: argument 'axes' {axes} is not a permutation of the "
                             f"{x.ndim} axes of x")
        axes = tuple(a % x.ndim for a in axes)
    if x.ndim < 2:
        out = _out(out, x.shape, dt, "transpose")
        np.copyto(out, x)
        return out
    if x.ndim != 2 or axes == (0, 1) or builtins.min(x.shape) < 64:
        # skinny shapes ((N, 1) <-> (1, N) keeps the element order; (N, 8)) leave the transpose
        # kernel's square tiles mostly empty: permute's strided copy, lanes on the long axis
        from tl._ops_data import permute
        return permute(x, axes, out=out)
    out = _out(out, x.shape[::-1], dt, "transpose")
    if out.size == 0:
        return out
    _launch(f"transpose__DT_{dt}", x, out)
    return out


def _avx512() -> bool:
    """Whether the loaded package runs an x86 AVX-512 bundle (its ``target`` variant name)."""
    t = getattr(package(), "target", None)   # the interpreter / emulated stand-ins have none
    return isinstance(t, str) and t.startswith("x86_64-avx512")


def _x86() -> bool:
    """Whether the loaded package runs an x86 AVX-512 or AVX2 bundle (one-row dots stream B in place)."""
    t = getattr(package(), "target", None)
    return isinstance(t, str) and t.startswith(("x86_64-avx512", "x86_64-avx2"))


_GEMV_MIN = 1 << 20     # k * n from which one-row products use matmul_gemv (B past the L2 cache)


def _gemv(a3, b3, o3, nb: int, n: int) -> int:
    """c = a @ b for one row (a3 (nb, 1, k), b3 (nb, k, n), o3 (nb, 1, n)) by matmul_gemv when a
    BN in (4096, 2048, 1024) divides n with at least one program per thread (the widest such).
    Returns how many columns are left for matmul_rows: 0, or n when none fits. (n = 5000 ran
    0.94x at 1 thread as 4096 columns by matmul_gemv and 904 by matmul_rows: B read in two
    sweeps, and the 256-column strips lose most at power-of-two row strides, not at 20000 bytes.)"""
    from tl import _runtime
    threads = _runtime.num_threads() or 1
    bn = next((w for w in (4096, 2048, 1024) if n % w == 0 and nb * (n // w) >= threads), 0)
    if not bn:
        return n
    _launch(f"matmul_gemv__BN_{bn}", a3, b3, o3)
    return 0


def matmul(a, b, out=None):
    """a @ b with NumPy's matmul shapes (1-D promotion, broadcast batch axes). float32 inputs
    give float32; float16 inputs are widened exactly to float32 as the kernel loads its tiles
    and give the float32 product of those values (float32 accumulation, no float16
    intermediate; cast the result once for a float16 answer, as tl.ops.linear does); bfloat16
    inputs accumulate in float32 and give float32 (AVX512_BF16 CPUs sum pairs with vdpbf16ps,
    flushing denormals: see ops/matmul_bf16.py for the accuracy contract). a and b must share
    a dtype (TypeError naming both otherwise)."""
    a, da = _arr(a, "a", "matmul", _FLOATS)
    b, db = _arr(b, "b", "matmul", _FLOATS)
    if da != db:
        raise TypeError(f"tl.ops.matmul: arguments 'a' ({da}) and 'b' ({db}) must have the same dtype")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("tl.ops.matmul: arguments must have at least one axis")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    a3 = a[None, :] if a_vec else a
    b3 = b[:, None] if b_vec else b
    (m, k), (k2, n) = a3.shape[-2:], b3.shape[-2:]
    if k != k2:
        raise ValueError(f"tl.ops.matmul: shapes {a.shape} and {b.shape} are not aligned "
                         f"({k} != {k2})")
    try:
        batch = () if a3.ndim == b3.ndim == 2 else np.broadcast_shapes(a3.shape[:-2], b3.shape[:-2])
    except ValueError:
        raise ValueError(f"tl.ops.matmul: batch axes of {a.shape} and {b.shape} do not broadcast") from None
    shape = batch + ((m,) if not a_vec else ()) + ((n,) if not b_vec else ())
    out = _out(out, shape, "float32", "matmul")
    if out.size == 0:
        return out
    if k == 0:
        out[...] = 0
        return out
    nb = int(np.prod(batch)) if batch else 1

    def to3(t, tail):
        t = np.broadcast_to(t, batch + tail)
        try:
            return np.reshape(t, (nb,) + tail, copy=False)
        except ValueError:
            return np.ascontiguousarray(t).reshape((nb,) + tail)

    if a.ndim == 2 and b.ndim == 2:   # one product: (1, ., .) views, no broadcast or reshape
        a3, b3, o3, wb = a[None], b[None], out[None], None
    else:
        a3, b3 = to3(a3, (m, k)), to3(b3, (k, n))
        o3, wb = _dest(out, (nb, m, n))
    name = f"matmul__DT_{da}"
    if da == "float32" and m == 1 and k * n >= _GEMV_MIN and _x86():
        if _gemv(a3, b3, o3, nb, n) == 0:   # n a multiple of 1024: matmul_gemv
            if wb:
                wb()
            return out
    f32_family = da in ("float32", "float16")   # float16 runs the float32 kernels' float16 instances
    if f32_family and m <= 128:   # few rows: stream b once (ops/matmul.py matmul_rows)
        name = f"matmul_rows__BM_{1 if m == 1 else 8 if m <= 8 else 16 if m <= 16 else 32 if m <= 32 else 128}__DT_{da}"
    elif f32_family and n >= 512 and k >= 256 and nb * -(-m // 256) * -(-n // 256) >= 4:
        name = f"matmul_big__BM_256__BN_256__DT_{da}"   # 256 x 256 tiles: A copied half as often (same fma order)
        if m >= 1024 and -(-m // 512) * 2 == -(-m // 256) and _avx512():
            # 512 x 128 tiles: B packed half as often (same fma order); AVX-512 bundles only
            # (the AVX2 bundle ran 0-3% slower with them on Zen 5)
            name = f"matmul_big__BM_512__BN_128__DT_{da}"
    elif da == "bfloat16":   # ops/matmul_bf16.py: vdpbf16ps where the CPU has AVX512_BF16
        name = f"matmul_bf16__BM_{16 if m <= 16 else 64 if m <= 64 else 256}"
    _launch(name, a3, b3, o3)
    if wb:
        wb()
    return out


# ----------------------------------------------------------------------------- the rest of the library
from tl._ops_ew import *  # noqa: E402,F401,F403
from tl._ops_data import *  # noqa: E402,F401,F403
from tl._ops_reduce import *  # noqa: E402,F401,F403
from tl._ops_nn import *  # noqa: E402,F401,F403
from tl._ops_sort import *  # noqa: E402,F401,F403
from tl._ops_loss import *  # noqa: E402,F401,F403
from tl._ops_reduce_ext import *  # noqa: E402,F401,F403
from tl._ops_norm_ext import *  # noqa: E402,F401,F403
from tl._ops_act_ext import *  # noqa: E402,F401,F403
from tl._ops_shape_ext import *  # noqa: E402,F401,F403
from tl._ops_ew_ext import *  # noqa: E402,F401,F403
from tl._ops_linalg_ext import *  # noqa: E402,F401,F403
from tl._ops_pool_ext import *  # noqa: E402,F401,F403
from tl._ops_math_ext import *  # noqa: E402,F401,F403
from tl._ops_bitwise import *  # noqa: E402,F401,F403
from tl._ops_meta_ext import *  # noqa: E402,F401,F403
from tl._ops_reverse_seq import *  # noqa: E402,F401,F403
from tl._ops_nd_index import *  # noqa: E402,F401,F403


_ACTIVATIONS = {None: 0, "none": 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}


def linear(x, weight, bias=None, activation=None, residual=None, out=None):
    """act(x @ weight.T + bias) + residual, PyTorch ``nn.functional.linear`` layout, in one fused
    kernel for float32 (ops/matmul_epilogue.py); other float dtypes compose matmul and add.

    x: (..., K); weight: (N, K) (out_features x in_features); bias: (N,) or None;
    activation: None/"none", "relu", "gelu" (erf form), "gelu_tanh", "silu"; residual: the
    result's shape (..., N) or None. Returns (..., N) in x's dtype. float16/bfloat16 (x and
    weight of one dtype): the float32 product of the exactly widened inputs (tl.ops.matmul),
    then bias, activation and residual in float32, rounded once to x's dtype. ValueError for
    bad shapes or an unknown activation; TypeError for unsupported dtypes.
    """
    if activation not in _ACTIVATIONS:
        raise ValueError(f"tl.ops.linear: unknown activation {activation!r}; "
                         f"known: {', '.join(str(k) for k in _ACTIVATIONS)}")
    xa = _np(x, "x", "linear")
    if _NAMES.get(xa.dtype) in ("float16", "bfloat16"):
        return _linear_half(xa, weight, bias, activation, residual, out)
    x, dx = _arr(x, "x", "linear", ("float32",))
    weight, dw = _arr(weight, "weight", "linear", ("float32",))
    if x.ndim < 1 or weight.ndim != 2 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"tl.ops.linear: x {x.shape} and weight {weight.shape} are not aligned "
                         "(weight must be (out_features, in_features))")
    w = weight.T                                 # (K, N) strided view: the kernel takes strides
    k, n = w.shape
    lead = x.shape[:-1]
    m = int(np.prod(lead)) if lead else 1
    b = np.zeros((n,), np.float32) if bias is None else _arr(bias, "bias", "linear", ("float32",))[0]
    if b.shape != (n,):
        raise ValueError(f"tl.ops.linear: bias has shape {b.shape}, expected ({n},)")
    out = _out(out, lead + (n,), "float32", "linear")
    if out.size == 0:
        return out
    if k == 0:
        out[...] = _np_act(np.broadcast_to(b, out.shape).copy(), activation)
        if residual is not None:
            out += residual
        return out
    x2 = np.ascontiguousarray(x).reshape(m, k)
    o2, wb = _dest(out, (m, n))
    if residual is not None:
        r, _ = _arr(residual, "residual", "linear", ("float32",))
        if r.shape != out.shape:
            raise ValueError(f"tl.ops.linear: residual has shape {r.shape}, expected {out.shape}")
        r2 = np.ascontiguousarray(r).reshape(m, n)
    else:
        r2 = np.zeros((1, 1), np.float32)      # not read by the RES=0 instances
    wide = "_wide" if n >= 512 and k >= 256 and -(-m // 256) * -(-n // 256) >= 4 else ""   # 256 x 256 tiles
    _launch(f"linear{wide}__ACT_{_ACTIVATIONS[activation]}__RES_{int(residual is not None)}", x2, w, b, r2, o2)
    if wb:
        wb()
    return out


def _linear_half(x, weight, bias, activation, residual, out):
    """tl.ops.linear for float16/bfloat16 x: float32 throughout, one rounding at the end."""
    dt = _NAMES[x.dtype]
    weight, _ = _arr(weight, "weight", "linear", (dt,))
    if weight.ndim != 2 or x.ndim < 1 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"tl.ops.linear: x {x.shape} and weight {weight.shape} are not aligned "
                         "(weight must be (out_features, in_features))")
    y = matmul(x, weight.T)                                  # float32
    if bias is not None:
        b, _ = _arr(bias, "bias", "linear")
        if b.shape != (weight.shape[0],):
            raise ValueError(f"tl.ops.linear: bias has shape {b.shape}, expected ({weight.shape[0]},)")
        y = add(y, b if b.dtype == np.float32 else cast(b, np.float32), out=y)
    if activation == "relu":
        y = relu(y, out=y)
    elif activation in ("gelu", "gelu_tanh"):
        y = gelu(y, "tanh" if activation == "gelu_tanh" else "none", out=y)
    elif activation == "silu":
        y = silu(y, out=y)
    if residual is not None:
        r, _ = _arr(residual, "residual", "linear")
        if r.shape != y.shape:
            raise ValueError(f"tl.ops.linear: residual has shape {r.shape}, expected {y.shape}")
        y = add(y, r if r.dtype == np.float32 else cast(r, np.float32), out=y)
    return cast(y, dt, out=_out(out, y.shape, dt, "linear"))


def _np_act(v, activation):
    """The activation in NumPy (only for the K == 0 corner, where there is no product)."""
    if activation in (None, "none"):
        return v
    if activation == "relu":
        return np.maximum(v, 0)
    import math
    if activation == "gelu":
        return (0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))).astype(np.float32)
    if activation == "gelu_tanh":
        return (0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))).astype(np.float32)
    return (v / (1 + np.exp(-v))).astype(np.float32)


# ----------------------------------------------------------------------------- aliasing-safe out=
def _alias_safe(fn):
    """Wraps an op that reads other positions than it writes: when ``out`` may share memory with
    any array argument, the op computes into a fresh buffer that is copied into ``out`` at the
    end (elementwise ops are not wrapped and stay truly in place)."""
    import functools
    import inspect
    sig = inspect.signature(fn)
    out_pos = list(sig.parameters).index("out")
    # every parameter up to out positional-or-keyword: out and the inputs are found without
    # Signature.bind (microseconds a call: tl.ops.matmul spent 17 us in Python, now 5)
    plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in list(sig.parameters.values())[:out_pos + 1])

    def arrays(v):
        if isinstance(v, np.ndarray):
            yield v
        elif isinstance(v, (list, tuple)):
            for e in v:
                yield from arrays(e)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if plain and len(args) <= out_pos and "out" not in kwargs:
            return fn(*args, **kwargs)
        if plain and (len(args) > out_pos) != ("out" in kwargs):
            out = args[out_pos] if len(args) > out_pos else kwargs["out"]
            if not isinstance(out, np.ndarray):
                return fn(*args, **kwargs)
            vals = [v for i, v in enumerate(args) if i != out_pos] + [v for k, v in kwargs.items() if k != "out"]
            if not any(np.may_share_memory(out, a) for v in vals for a in arrays(v)):
                return fn(*args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        out = bound.arguments.get("out")
        if not isinstance(out, np.ndarray):
            return fn(*args, **kwargs)
        ins = [a for k, v in bound.arguments.items() if k != "out" for a in arrays(v)]
        if not any(np.may_share_memory(out, a) for a in ins):
            return fn(*args, **kwargs)
        if not out.flags.writeable:
            raise ValueError(f"tl.ops.{fn.__name__}: argument 'out' is read-only")
        tmp = np.empty_like(out)
        bound.arguments["out"] = tmp
        res = fn(*bound.args, **bound.kwargs)
        np.copyto(out, tmp)
        return out if res is tmp else res
    return wrapper


_NOT_ELEMENTWISE = (
    "transpose", "matmul", "linear", "sum", "max", "argmax", "softmax", "log_softmax",
    "layer_norm", "rms_norm", "contiguous", "permute", "expand", "cat", "stack", "slice", "tile",
    "pad", "gather", "index_select", "embedding", "gather_elements", "scatter_elements",
    "scatter_add", "scatter", "scatter_nd", "gather_nd", "flip", "roll", "triu", "tril",
    "reduce_sum", "mean", "amax", "amin", "min", "prod", "argmax_axis", "argmin", "var_mean",
    "var", "cumsum", "argsort", "sort", "topk", "mm", "bmm", "gemm", "baddbmm", "conv2d",
    "conv_transpose2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "batch_norm",
    "layer_norm_axis", "rms_norm_axis", "add_rms_norm", "add_layer_norm", "swiglu",
    "scaled_dot_product_attention", "cross_entropy", "nll_loss", "rotary_embedding", "one_hot", "full")


def _wrap_not_elementwise() -> None:
    import inspect
    g = globals()
    for name in _NOT_ELEMENTWISE:
        fn = g.get(name)
        if callable(fn) and "out" in inspect.signature(fn).parameters:
            g[name] = _alias_safe(fn)


_wrap_not_elementwise()
