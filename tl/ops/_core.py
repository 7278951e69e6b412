"""Helpers shared by every ``tl.ops`` module (the bottom layer: it imports no op module).

dtype names (``_NAMES``, ``_BY_NAME``, ``_FLOATS``), argument checks (``_arr``, ``_np``,
``_out``, ``_norm_axis``), the 2-D and flat views kernels take (``_to2d``, ``_flat_shape``,
``_ew_views``, ``_dest``), overlap handling for elementwise outputs (``_overlap_safe``), the
common dtype and broadcast of elementwise operands (``_prep``) and one elementwise launch
(``_run``), and ``_launch``, the one place a kernel instance of the loaded package is called.
"""
from __future__ import annotations

import numpy as np

from tl.ops import _package
from tl.ops._package import _EW_CACHES, package
from tl._runtime import Package as _Package, TLError as _TLError, _bf16_view  # noqa: F401

try:
    import ml_dtypes as _ml_dtypes
    bfloat16 = np.dtype(_ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover - ml_dtypes is a dependency
    _ml_dtypes = None
    bfloat16 = None



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


_MISS = object()
_INTS = ("int32", "int64")


def _launch(name: str, *args) -> None:
    """Runs kernel instance ``name`` of the loaded package on ``args`` (signature order)."""
    pkg = _package._PKG
    if pkg is None:
        pkg = package()
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


def _axis_last(x: np.ndarray, axis: int, op: str):
    """(axis normalised, x with ``axis`` moved last): a strided view, no copy."""
    ax = _norm_axis(axis, x.ndim, op)
    xm = np.moveaxis(x, ax, -1) if x.ndim else x.reshape(1)
    return ax, xm


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


def _scalar_like(v, dtype, name: str, op: str) -> np.ndarray:
    """A Python number (or nested list/tuple of numbers, or NumPy scalar) as an array of the
    other operand's dtype; TypeError naming the argument for anything else (None, str, objects),
    as NumPy does, instead of a silent NaN or a parsed string."""
    probe = np.asarray(v)
    if probe.dtype.kind not in "biuf":
        raise TypeError(f"tl.ops.{op}: argument '{name}' must be an array or a number, got "
                        f"{type(v).__name__} {v!r:.60}")
    return np.asarray(v, dtype=dtype)



def _prep(op, arrays, names, allowed):
    """Common dtype + broadcast shape of ``arrays`` (Python scalars take the array dtype)."""
    ref = next((a for a in arrays if isinstance(a, np.ndarray)), None)
    arrs = [a if isinstance(a, np.ndarray) or ref is None else _scalar_like(a, ref.dtype, n, op)
            for a, n in zip(arrays, names)]
    out = []
    dt = None
    for a, n in zip(arrs, names):
        a, d = _arr(a, n, op, allowed)
        if dt is not None and d != dt:
            raise TypeError(f"tl.ops.{op}: arguments must have one dtype, got {dt} and {d}")
        dt = d
        out.append(a)
    try:
        shape = np.broadcast_shapes(*[a.shape for a in out])
    except ValueError:
        raise ValueError(f"tl.ops.{op}: shapes {[a.shape for a in out]} do not broadcast") from None
    return out, dt, shape


def _run(kernel, ins, shape, dt_out, op, out, scalars=()):
    out = _out(out, shape, dt_out, op)
    if out.size == 0:
        return out
    target, finish = _overlap_safe(out, ins)
    views, o2, wb = _ew_views([np.broadcast_to(a, shape) for a in ins], target)
    _launch(kernel, *views, o2, *scalars)
    if wb:
        wb()
    if finish:
        finish()
    return out
