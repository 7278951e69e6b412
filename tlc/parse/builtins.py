"""The ``tl.*`` builtins and tile methods: argument normalisation only; typed ops are built by
:mod:`tlc.parse.semantics`. The set of names is tl/language.py's (documented stubs): the tables
at the end are keyed off it and this module refuses to import when an implementation lacks a
stub or a stub an implementation. Each function takes the visitor ``fv`` first and raises
``ValueError`` with a user-facing message (located by the visitor).
"""
from __future__ import annotations

import inspect
import math

from tl import language as _lang
from tlc.lower.dtypes import DType
from tlc.lower.ir import Op, ScalarType, TensorType, TileType
from tlc.lower.typing_rules import dot_out_dtype
from tlc.lower.dtypes import promote
from tlc.parse.values import Builtin, PyBuiltin, ShapeProxy
from tlc.parse.semantics import STRINGS_UNSUPPORTED, bound_name, describe, int_in_range, runtime_in

_SIG_CACHE: dict = {}


def call(fv, name, fn, args, kwargs):
    """Calls builtin ``fn`` after checking the arguments against its signature."""
    sig = _SIG_CACHE.get(fn) or _SIG_CACHE.setdefault(fn, inspect.signature(fn))
    try:
        sig.bind(fv, *args, **kwargs)
    except TypeError as e:
        raise ValueError(f"{name}: {e}") from None
    return fn(fv, *args, **kwargs)


# ----------------------------------------------------------------------------- helpers
def _tile_or_scalar(fv, x, what: str):
    if isinstance(x, Op):
        if isinstance(x.type, TensorType):
            raise ValueError(f"{what}: got a tensor; load a tile from it with tl.load(view, shape)")
        return x
    if isinstance(x, (int, float, bool)):
        return x
    if isinstance(x, str):
        raise ValueError(STRINGS_UNSUPPORTED)
    raise ValueError(f"{what}: expected a tile or a number, got {describe(x, getattr(fv, 'env', None))}")


def _as_shape(shape, what: str, fv=None) -> tuple[int, ...]:
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    env = getattr(fv, "env", None)
    if runtime_in(shape):
        dyn = [s for s in (shape if isinstance(shape, tuple) else (shape,)) if isinstance(s, Op)]
        names = [bound_name(s, env) for s in dyn]
        who = ", ".join(f"`{n}`" for n in names if n) if all(names) else None
        detail = (f"{who} {'is a runtime value' if len(dyn) == 1 else 'are runtime values'}" if who
                  else f"got {describe(shape, env)}")
        raise ValueError(f"{what}: tile shapes must be compile-time constants (tl.constexpr or literals); "
                         f"{detail}")
    if not isinstance(shape, tuple) or not all(isinstance(s, int) and not isinstance(s, bool)
                                               for s in shape):
        raise ValueError(f"{what}: the shape must be a tuple of compile-time ints, got {describe(shape, env)}")
    if any(s <= 0 for s in shape):
        raise ValueError(f"{what}: tile dimensions must be positive, got {shape}")
    return shape


def _as_dtype(d, what: str) -> DType:
    if not isinstance(d, DType):
        raise ValueError(f"{what}: expected a dtype such as tl.float32, got {describe(d)}")
    return d


def _as_axis(axis, rank: int, what: str) -> int:
    if not isinstance(axis, int) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise ValueError(f"{what}: axis must be a compile-time int in [-{rank}, {rank}), got {describe(axis)}")
    return axis % rank


def _tile(fv, x, what: str) -> Op:
    x = _tile_or_scalar(fv, x, what)
    if not isinstance(x, Op) or not isinstance(x.type, TileType):
        raise ValueError(f"{what}: expected a tile, got {describe(x, getattr(fv, 'env', None))}")
    return x


# ----------------------------------------------------------------------------- index
def program_id(fv, axis):
    return fv.b.emit("program_id", axis=axis)


def num_programs(fv, axis):
    return fv.b.emit("num_programs", axis=axis)


def _rank_note(fv, tensor: Op, want: int) -> str:
    """For a rank mismatch on a tensor whose rank was inferred (not declared): how it was
    inferred and the declaration that fixes it; "" for declared ranks."""
    root = tensor
    while isinstance(root, Op) and root.opcode == "view":
        root = root.operands[0]
    if not isinstance(root, Op) or root.opcode != "arg":
        return ""
    name = root.attr("name", None)
    how = (getattr(fv, "inferred_ranks", None) or {}).get(name)
    if not how:
        return ""
    return (f"; `{name}` has rank {root.type.rank}, {how}; declare it with "
            f"`{name}: tl.tensor({root.type.dtype!r}, {want})`")


def make_view(fv, tensor: Op, offsets):
    if not isinstance(offsets, tuple):
        offsets = (offsets,)
    rank = tensor.type.rank
    if len(offsets) != rank:
        raise ValueError(f"wrong number of view offsets: the tensor has rank {rank} but "
                         f"{len(offsets)} offset{'s were' if len(offsets) != 1 else ' was'} given"
                         f"{_rank_note(fv, tensor, len(offsets))}")
    offs = []
    for o in offsets:
        if isinstance(o, Op) and isinstance(o.type, TileType):
            raise ValueError(f"view offsets must be scalars, got a tile {o.type}; use tl.load with "
                             f"a mask for gathers")
        offs.append(fv.b.to_int64(o))
    return fv.b.emit("view", [tensor] + offs)


def _as_view(x, what):
    if not isinstance(x, Op) or not isinstance(x.type, TensorType):
        raise ValueError(f"{what}: the first argument must be a tensor or a view `t + (i, j)`")
    return x


def _mask(fv, mask, shape, what):
    if mask is True:
        return None
    if isinstance(mask, bool):
        mask = fv.b.const(mask, DType.bool)
    if not isinstance(mask, Op) or mask.type.dtype is not DType.bool:
        raise ValueError(f"{what}: mask must be a bool tile, got "
                         f"{mask.type if isinstance(mask, Op) else describe(mask)}")
    from tlc.parse.semantics import broadcast_shapes
    ms = mask.type.shape if isinstance(mask.type, TileType) else None
    if ms is not None and (len(ms) > len(shape) or broadcast_shapes(ms, shape) != shape):
        raise ValueError(f"{what}: mask shape {ms} does not broadcast to the tile shape {shape}")
    return fv.b.broadcast_to(mask, shape)


def load(fv, pointer, shape=None, mask=None, other=None):
    """``tl.load(view, shape, mask=, other=)``: a tile; ``tl.load(view)``: the one element at the
    view's origin as a scalar (``other``, default 0, when it lies outside the tensor)."""
    view = _as_view(pointer, "tl.load")
    if shape is None:
        if mask is not None:
            raise ValueError("tl.load: a scalar load (no shape) takes no mask")
        t = load(fv, view, (1,) * view.type.rank, other=other)
        return fv.b.emit("item", (t,))
    shape = _as_shape(shape, "tl.load", fv)
    rank = view.type.rank
    if len(shape) != rank:
        raise ValueError(f"tl.load shape {shape} has rank {len(shape)} but the tensor has rank {rank}"
                         f"{_rank_note(fv, view, len(shape))}")
    operands = [view]
    m = _mask(fv, mask, shape, "tl.load") if mask is not None else None
    if m is not None:
        operands.append(m)
    if other is not None:
        if isinstance(other, Op) and not isinstance(other.type, ScalarType):
            raise ValueError(f"tl.load: `other` must be a scalar, got {other.type}")
        if not isinstance(other, (Op, int, float, bool)):
            raise ValueError(f"tl.load: `other` must be a number, got {describe(other)}")
        operands.append(fv.b.materialize(other, view.type.dtype))
    return fv.b.emit("load", operands, shape=shape, has_mask=m is not None,
                     has_other=other is not None, checked=(True,) * rank)


def store(fv, pointer, value, mask=None):
    view = _as_view(pointer, "tl.store")
    rank = view.type.rank
    value = _tile_or_scalar(fv, value, "tl.store")
    b = fv.b
    if not isinstance(value, Op):
        value = b.const(value, view.type.dtype)
    if isinstance(value.type, ScalarType):
        value = b.emit("splat", (value,), shape=(1,) * rank)
    elif value.type.shape == () and rank > 0:
        value = b.reshape(value, (1,) * rank)
    if len(value.type.shape) != rank:
        raise ValueError(f"store of wrong rank: the tensor has rank {rank} but the value has "
                         f"shape {value.type.shape}{_rank_note(fv, view, len(value.type.shape))}")
    value = b.cast(value, view.type.dtype)
    operands = [view, value]
    m = _mask(fv, mask, value.type.shape, "tl.store") if mask is not None else None
    if m is not None:
        operands.append(m)
    return b.emit("store", operands, has_mask=m is not None, checked=(True,) * rank)


# ----------------------------------------------------------------------------- elementwise
def _unary(opcode):
    def f(fv, x):
        return fv.b.unary(opcode, _tile_or_scalar(fv, x, f"tl.{opcode}"))
    f.__name__ = opcode
    return f


def _py_unary(opcode, x):
    fn = {"exp": math.exp, "log": math.log, "sqrt": math.sqrt, "abs": abs, "floor": math.floor,
          "ceil": math.ceil, "tanh": math.tanh, "erf": math.erf,
          "gelu": lambda v: 0.5 * v * math.erfc(-v / math.sqrt(2.0))}.get(opcode)
    return fn(x) if fn else None


def _binary(opcode):
    def f(fv, x, y):
        x, y = _tile_or_scalar(fv, x, f"tl.{opcode}"), _tile_or_scalar(fv, y, f"tl.{opcode}")
        return fv.b.binary(opcode, x, y)
    f.__name__ = opcode
    return f


def where(fv, condition, x, y):
    return fv.b.where(*(_tile_or_scalar(fv, v, "tl.where") for v in (condition, x, y)))


def fma(fv, x, y, z):
    """tl.fma(x, y, z) = x * y + z in float32, rounded once on targets with FMA (x86 AVX2/AVX-512,
    NEON, RVV), a multiply then an add on the SSE2 baseline; with y = +-1 it is exactly x + z or
    z - x everywhere (kernels use that to run additions on the FMA units too)."""
    return fv.b.fma(*(_tile_or_scalar(fv, v, "tl.fma") for v in (x, y, z)))


def cast(fv, x, dtype):
    dtype = _as_dtype(dtype, "cast")
    x = _tile_or_scalar(fv, x, "cast")
    if not isinstance(x, Op):
        x = fv.b.const(x, dtype)
    return fv.b.cast(x, dtype)


def cdiv(fv, x, div):
    if not isinstance(x, Op) and not isinstance(div, Op):
        return -((-x) // div)
    b = fv.b
    return b.unary("neg", b.binary("floordiv", b.unary("neg", x) if isinstance(x, Op) else -x, div))


# ----------------------------------------------------------------------------- tile ops
def dot(fv, a, b, acc=None, out_dtype=None):
    a, b_ = _tile(fv, a, "tl.dot"), _tile(fv, b, "tl.dot")
    bl = fv.b
    if len(a.type.shape) != 2 or len(b_.type.shape) != 2:
        raise ValueError(f"tl.dot needs 2-D tiles, got shapes {a.type.shape} and {b_.type.shape}")
    if a.type.shape[1] != b_.type.shape[0]:
        raise ValueError(f"tl.dot shapes do not match: {a.type.shape} x {b_.type.shape}")
    d = promote(a.type.dtype, b_.type.dtype)
    if not d.is_float and d is not DType.int8:
        d = DType.float32
    a, b_ = bl.cast(a, d), bl.cast(b_, d)
    out = _as_dtype(out_dtype, "tl.dot out_dtype") if out_dtype is not None else dot_out_dtype(d)
    shape = (a.type.shape[0], b_.type.shape[1])
    operands = [a, b_]
    if acc is not None:
        acc = _tile_or_scalar(fv, acc, "tl.dot acc")
        acc = bl.broadcast_to(bl.materialize(acc, out), shape)
        operands.append(acc)
    return bl.emit("dot", operands, has_acc=acc is not None, out_dtype=out)


def _reduction(op):
    def f(fv, input, axis=None, keepdims=False):
        x = _tile(fv, input, f"tl.{op}")
        b = fv.b
        if axis is None:
            rank = len(x.type.shape)
            flat = b.reshape(x, (x.type.numel,))
            r = b.emit("reduce", (flat,), op=op, axis=0, keepdims=False)
            return b.reshape(r, (1,) * rank) if keepdims else r
        axis = _as_axis(axis, len(x.type.shape), f"tl.{op}")
        return b.emit("reduce", (x,), op=op, axis=axis, keepdims=bool(keepdims))
    f.__name__ = op
    return f


def arange(fv, start, stop=None):
    if stop is None:
        start, stop = 0, start
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (start, stop)):
        raise ValueError(f"tl.arange bounds must be compile-time ints, got {describe(start, fv.env)}, "
                         f"{describe(stop, fv.env)}")
    if stop <= start:
        raise ValueError(f"tl.arange needs start < stop, got {start}, {stop}")
    return fv.b.emit("arange", start=start, stop=stop)


def full(fv, shape, value, dtype=None):
    shape = _as_shape(shape, "tl.full", fv)
    if isinstance(value, Op):
        if not isinstance(value.type, ScalarType):
            raise ValueError(f"tl.full value must be a scalar, got {value.type}")
        v = fv.b.cast(value, _as_dtype(dtype, "tl.full") if dtype is not None else value.type.dtype)
        return fv.b.emit("splat", (v,), shape=shape)
    if dtype is None:
        dtype = DType.bool if isinstance(value, bool) else DType.float32 if isinstance(value, float) \
            else DType.int32
    dtype = _as_dtype(dtype, "tl.full")
    if isinstance(value, str):
        raise ValueError(STRINGS_UNSUPPORTED)
    value = (float(value) if dtype.is_float else bool(value) if dtype.is_bool
             else int_in_range(int(value), dtype))
    return fv.b.emit("full", shape=shape, value=value, dtype=dtype)


def zeros(fv, shape, dtype=DType.float32):
    return full(fv, shape, 0, dtype)


def zeros_like(fv, input):
    x = _tile(fv, input, "tl.zeros_like")
    return full(fv, x.type.shape, 0, x.type.dtype)


def item(fv, input):
    """``tile.item()``: the value of a one-element tile as a scalar (e.g. a full ``tl.sum``)."""
    x = _tile_or_scalar(fv, input, ".item()")
    if isinstance(x, Op) and isinstance(x.type, ScalarType):
        return x
    if not isinstance(x, Op) or x.type.numel != 1:
        raise ValueError(f".item() needs a tile of one element, got {describe(x)}")
    return fv.b.emit("item", (x,))


def reshape(fv, input, *shape):
    x = _tile_or_scalar(fv, input, "reshape")
    if len(shape) == 1 and isinstance(shape[0], tuple):
        shape = shape[0]
    shape = tuple(shape)
    if not isinstance(x, Op):
        raise ValueError("reshape needs a tile")
    n = x.type.numel if isinstance(x.type, TileType) else 1
    if shape.count(-1) == 1:
        rest = 1
        for s in shape:
            rest *= s if s != -1 else 1
        shape = tuple(n // rest if s == -1 else s for s in shape)
    shape = _as_shape(shape, "reshape", fv)
    if isinstance(x.type, ScalarType):
        x = fv.b.emit("splat", (x,), shape=(1,) * len(shape))
    return fv.b.reshape(x, shape)


def trans(fv, input, *dims):
    x = _tile(fv, input, "tl.trans")
    rank = len(x.type.shape)
    if len(dims) == 1 and isinstance(dims[0], tuple):
        dims = dims[0]
    perm = tuple(dims) if dims else tuple(reversed(range(rank)))
    if sorted(perm) != list(range(rank)):
        raise ValueError(f"tl.trans: {perm} is not a permutation of the axes of a rank-{rank} tile")
    if perm == tuple(range(rank)):
        return x
    return fv.b.emit("trans", (x,), perm=perm)


def to(fv, x, dtype):
    return cast(fv, x, dtype)


def static_assert(fv, cond, msg=""):
    if isinstance(cond, (Op, ShapeProxy)):
        raise ValueError("tl.static_assert needs a compile-time condition")
    if not cond:
        raise ValueError(f"static assertion failed{': ' + str(msg) if msg else ''}")


def subscript_tile(fv, x: Op, idx):
    """``x[:, None]`` / ``x[None, :]``: full slices and None (new axes) only."""
    if not isinstance(x.type, TileType):
        raise ValueError(f"cannot index {x.type}")
    if not isinstance(idx, tuple):
        idx = (idx,)
    shape, i = [], 0
    for e in idx:
        if e is None:
            shape.append(1)
        elif e == slice(None):
            if i >= len(x.type.shape):
                raise ValueError(f"too many indices for a tile of shape {x.type.shape}")
            shape.append(x.type.shape[i])
            i += 1
        else:
            raise ValueError("tile indexing supports only `:` and None (e.g. x[:, None])")
    shape.extend(x.type.shape[i:])
    return fv.b.reshape(x, tuple(shape))


def py_builtin(fv, name, args, kwargs):
    """Python builtins on compile-time values (and float()/int() casts of runtime scalars)."""
    if name == "range":
        raise ValueError("range(...) is only valid as the iterable of a `for`")
    if name == "dict":
        if args:
            raise ValueError("dict(...) takes keyword arguments only")
        return dict(kwargs)
    if kwargs:
        raise ValueError(f"{name}() takes no keyword arguments here")
    if any(isinstance(a, (Op, ShapeProxy)) for a in args):
        if name in ("float", "int", "bool") and len(args) == 1:
            d = {"float": DType.float32, "int": DType.int64, "bool": DType.bool}[name]
            return cast(fv, args[0], d)
        if name in ("min", "max") and len(args) == 2:
            return fv.b.binary("minimum" if name == "min" else "maximum", *args)
        if name == "abs" and len(args) == 1:
            return fv.b.unary("abs", args[0])
        raise ValueError(f"{name}() needs compile-time arguments")
    import builtins
    return getattr(builtins, name)(*args)


_IMPLS = {
    "program_id": program_id, "num_programs": num_programs, "load": load, "store": store,
    "where": where, "fma": fma, "cast": cast, "cdiv": cdiv, "dot": dot, "arange": arange, "full": full,
    "zeros": zeros, "zeros_like": zeros_like, "reshape": reshape, "trans": trans,
    "static_assert": static_assert,
    **{k: _unary(k) for k in ("exp", "log", "sqrt", "rsqrt", "tanh", "erf", "gelu", "sigmoid",
                              "abs", "floor", "ceil", "isnan")},
    **{k: _binary(k) for k in ("maximum", "minimum", "truncdiv", "fmod")},
    **{k: _reduction(k) for k in ("sum", "max", "min", "argmax", "argmin")},
}
_METHOD_IMPLS = {"to": to, "reshape": reshape, "trans": trans, "item": item,
                 **{k: _reduction(k) for k in ("sum", "max", "min", "argmax", "argmin")}}


def keyed(impls: dict, documented, what: str) -> dict:
    """``impls`` restricted and ordered by the documented names; ImportError naming every name
    that has an implementation but no documented stub in tl/language.py, or the reverse."""
    missing, extra = sorted(set(documented) - set(impls)), sorted(set(impls) - set(documented))
    if missing or extra:
        raise ImportError(f"{what}: documented in tl/language.py without an implementation here: "
                          f"{missing}; implemented here without a documented stub: {extra}")
    return {n: impls[n] for n in documented}


# The accepted names come from tl.language (one stub per builtin, with its docstring).
BUILTINS = keyed(_IMPLS, _lang.BUILTINS, "tl.<builtin>")
METHODS = keyed(_METHOD_IMPLS, _lang.TILE_METHODS, "tile methods (tl.Tile)")
SPECIAL = _lang.SPECIAL
_ = (Builtin, PyBuiltin)
