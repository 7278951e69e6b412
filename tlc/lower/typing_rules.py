"""Shape and dtype rules of the tile IR: one table, one entry per opcode.

``infer_type(opcode, operand_types, attrs)`` returns the result type of an op or raises
``ValueError`` with a user-facing message (the frontend turns it into a located
``TLCompileError``; the verifier reports it against the op). Every opcode of
:data:`tlc.lower.ir.OPCODES` is covered except ``fused`` and ``buffer`` (produced by passes,
typed by them). An opcode missing from the table is an error, never a silent default.

Conventions checked here (see ir.OPCODES): elementwise operands have one identical type
(scalars or tiles of one shape); comparisons and ``isnan`` give bool; ``div``, the math
functions and ``pow`` take floats only; ``and``/``or``/``xor``/``not`` take bool or ints;
``const`` carries attrs ``value`` and ``dtype`` (the frontend always sets ``dtype``).

Region ops: ``for`` and ``if`` take keyword ``region_types`` (per region, the tuple of types
its ``yield`` passes) when known; ``arg`` takes keyword ``result_type`` (its declared type).
"""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from tlc.lower.dtypes import DType
from tlc.lower.ir import (COMPARISONS, ELEMENTWISE_BINARY, ELEMENTWISE_UNARY, NONE, REDUCTIONS,
                          ScalarType, TensorType, TileType, TupleType)

_FLOAT_ONLY_UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "erf", "gelu", "sigmoid", "floor",
                     "ceil")
_LOGICAL = ("and", "or", "xor", "not")


def _shape_of(t) -> tuple[int, ...] | None:
    return t.shape if isinstance(t, TileType) else None


def _value_type(t, what: str):
    if not isinstance(t, (ScalarType, TileType)):
        raise ValueError(f"{what} expects scalars or tiles, got {t}")
    return t


def _with_dtype(t, dtype: DType):
    return TileType(dtype, t.shape, t.space) if isinstance(t, TileType) else ScalarType(dtype)


def _check_count(opcode: str, types: Sequence, n: int | tuple[int, int]) -> None:
    lo, hi = (n, n) if isinstance(n, int) else n
    if not lo <= len(types) <= hi:
        want = str(lo) if lo == hi else f"{lo}..{hi}"
        raise ValueError(f"`{opcode}` takes {want} operands, got {len(types)}")


def _unary(opcode: str, types, attrs):
    _check_count(opcode, types, 1)
    t = _value_type(types[0], f"`{opcode}`")
    d = t.dtype
    if opcode in _FLOAT_ONLY_UNARY and not d.is_float:
        raise ValueError(f"`{opcode}` needs a float operand, got {t}")
    if opcode == "not" and d.is_float:
        raise ValueError(f"`~`/not needs a bool or integer operand, got {t}")
    if opcode == "isnan":
        return _with_dtype(t, DType.bool)
    if opcode == "neg" and d.is_bool:
        raise ValueError(f"cannot negate a bool value ({t})")
    return t


def _binary(opcode: str, types, attrs):
    _check_count(opcode, types, 2)
    a = _value_type(types[0], f"`{opcode}`")
    b = _value_type(types[1], f"`{opcode}`")
    if a != b:
        raise ValueError(f"`{opcode}` operands must have one type (insert cast/splat/broadcast), "
                         f"got {a} and {b}")
    d = a.dtype
    if opcode in ("div", "pow") and not d.is_float:
        raise ValueError(f"`{opcode}` needs float operands, got {a}")
    if opcode in _LOGICAL and d.is_float:
        sym = {"and": "&", "or": "|", "xor": "^"}.get(opcode)
        name = f"`{sym}` (bitwise {opcode})" if sym else f"`{opcode}`"
        raise ValueError(f"{name} needs bool or integer operands, got {a}")
    if opcode in ("add", "sub", "mul", "floordiv", "mod", "truncdiv", "fmod") and d.is_bool:
        raise ValueError(f"arithmetic `{opcode}` on bool values ({a}); cast to an integer first")
    if opcode in COMPARISONS:
        return _with_dtype(a, DType.bool)
    return a


def _where(opcode, types, attrs):
    _check_count(opcode, types, 3)
    c, x, y = (_value_type(t, "`where`") for t in types)
    if c.dtype is not DType.bool:
        raise ValueError(f"`where` condition must be bool, got {c}")
    if x != y or _shape_of(c) != _shape_of(x):
        raise ValueError(f"`where` operands must have one shape and x, y one type, got {c}, {x}, {y}")
    return x


def _fma(opcode, types, attrs):
    _check_count(opcode, types, 3)
    x, y, z = (_value_type(t, "`fma`") for t in types)
    if x.dtype is not DType.float32 or not x == y == z:
        raise ValueError(f"`fma` operands must be float32 of one shape, got {x}, {y}, {z}")
    return x


def _cast(opcode, types, attrs):
    _check_count(opcode, types, 1)
    t = _value_type(types[0], "`cast`")
    return _with_dtype(t, attrs["dtype"])


def _splat(opcode, types, attrs):
    _check_count(opcode, types, 1)
    if not isinstance(types[0], ScalarType):
        raise ValueError(f"`splat` needs a scalar operand, got {types[0]}")
    return TileType(types[0].dtype, tuple(attrs["shape"]))


def _broadcast(opcode, types, attrs):
    _check_count(opcode, types, 1)
    t, shape = types[0], tuple(attrs["shape"])
    if not isinstance(t, TileType) or len(t.shape) != len(shape):
        raise ValueError(f"`broadcast` needs a tile of rank {len(shape)}, got {types[0]}")
    for s, d in zip(t.shape, shape):
        if s != d and s != 1:
            raise ValueError(f"cannot broadcast shape {t.shape} to {shape}")
    return TileType(t.dtype, shape)


def _arange(opcode, types, attrs):
    _check_count(opcode, types, 0)
    start, stop = attrs["start"], attrs["stop"]
    if not isinstance(start, int) or not isinstance(stop, int) or stop <= start:
        raise ValueError(f"arange needs compile-time ints start < stop, got {start}, {stop}")
    return TileType(DType.int32, (stop - start,))


def _full(opcode, types, attrs):
    _check_count(opcode, types, 0)
    return TileType(attrs["dtype"], _check_shape(attrs["shape"]))


def _check_shape(shape) -> tuple[int, ...]:
    shape = tuple(shape)
    if not all(isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in shape):
        raise ValueError(f"tile shapes must be positive compile-time ints, got {shape}")
    return shape


def _const(opcode, types, attrs):
    _check_count(opcode, types, 0)
    return ScalarType(attrs["dtype"])


def _index(opcode, types, attrs):
    _check_count(opcode, types, 0)
    if attrs.get("axis") not in (0, 1, 2):
        raise ValueError(f"`{opcode}` axis must be 0, 1 or 2, got {attrs.get('axis')}")
    return ScalarType(DType.int64)


def _dim(opcode, types, attrs):
    _check_count(opcode, types, 1)
    t = types[0]
    if not isinstance(t, TensorType):
        raise ValueError(f"`.shape` of a tensor only; got {t}")
    if not 0 <= attrs["axis"] < t.rank:
        raise ValueError(f"axis {attrs['axis']} is out of range for a tensor of rank {t.rank}")
    return ScalarType(DType.int64)


def _view(opcode, types, attrs):
    t = types[0] if types else None
    if not isinstance(t, TensorType):
        raise ValueError(f"a view offset applies to a tensor, got {t}")
    offs = types[1:]
    if len(offs) != t.rank:
        raise ValueError(f"wrong number of view offsets: the tensor has rank {t.rank} but "
                         f"{len(offs)} offset{'s' if len(offs) != 1 else ''} were given")
    for o in offs:
        if o != ScalarType(DType.int64):
            raise ValueError(f"view offsets must be int64 scalars, got {o}")
    return t


def _load(opcode, types, attrs):
    t = types[0] if types else None
    if not isinstance(t, TensorType):
        raise ValueError(f"`load` reads from a tensor view, got {t}")
    shape = _check_shape(attrs["shape"])
    if len(shape) != t.rank:
        raise ValueError(f"load shape {shape} has rank {len(shape)} but the tensor has rank {t.rank}")
    n = 1 + bool(attrs.get("has_mask")) + bool(attrs.get("has_other"))
    _check_count(opcode, types, n)
    i = 1
    if attrs.get("has_mask"):
        if types[i] != TileType(DType.bool, shape):
            raise ValueError(f"load mask must be a bool tile of shape {shape}, got {types[i]}")
        i += 1
    if attrs.get("has_other") and types[i] != ScalarType(t.dtype):
        raise ValueError(f"load `other` must be a {t.dtype} scalar, got {types[i]}")
    return TileType(t.dtype, shape)


def _store(opcode, types, attrs):
    _check_count(opcode, types, 3 if attrs.get("has_mask") else 2)
    t, v = types[0], types[1]
    if not isinstance(t, TensorType):
        raise ValueError(f"`store` writes to a tensor view, got {t}")
    if not isinstance(v, TileType) or len(v.shape) != t.rank:
        raise ValueError(f"store of wrong rank: the tensor has rank {t.rank} but the value is {v}")
    if v.dtype is not t.dtype:
        raise ValueError(f"store value dtype {v.dtype} differs from the tensor's {t.dtype}")
    if attrs.get("has_mask") and types[2] != TileType(DType.bool, v.shape):
        raise ValueError(f"store mask must be a bool tile of shape {v.shape}, got {types[2]}")
    return NONE


def dot_out_dtype(a: DType) -> DType:
    """Default result dtype of ``dot``: int32 for int8 inputs, float32 for floats."""
    return DType.int32 if a is DType.int8 else DType.float32


def _dot(opcode, types, attrs):
    _check_count(opcode, types, 3 if attrs.get("has_acc") else 2)
    a, b = types[0], types[1]
    if not (isinstance(a, TileType) and isinstance(b, TileType) and len(a.shape) == 2
            and len(b.shape) == 2):
        raise ValueError(f"dot needs two 2-D tiles, got {a} and {b}")
    if a.shape[1] != b.shape[0]:
        raise ValueError(f"dot shapes do not match: {a.shape} x {b.shape} (inner dims "
                         f"{a.shape[1]} != {b.shape[0]})")
    if a.dtype is not b.dtype or a.dtype not in (DType.int8, DType.float16, DType.bfloat16,
                                                 DType.float32):
        raise ValueError(f"dot needs two float tiles or two int8 tiles of one dtype, got {a} and {b}")
    out = TileType(attrs.get("out_dtype") or dot_out_dtype(a.dtype), (a.shape[0], b.shape[1]))
    if attrs.get("has_acc") and types[2] != out:
        raise ValueError(f"dot accumulator must be {out}, got {types[2]}")
    return out


def reduce_dtype(op: str, d: DType) -> DType:
    """Result dtype of a reduction: int32 for arg*, int32 for sum of bool/int8, else the input."""
    if op in ("argmax", "argmin"):
        return DType.int32
    if op == "sum" and d in (DType.bool, DType.int8):
        return DType.int32
    return d


def _reduce(opcode, types, attrs):
    _check_count(opcode, types, 1)
    t = types[0]
    op, axis, keep = attrs["op"], attrs["axis"], attrs.get("keepdims", False)
    if op not in REDUCTIONS:
        raise ValueError(f"unknown reduction {op!r}; known: {', '.join(REDUCTIONS)}")
    if not isinstance(t, TileType) or not t.shape:
        raise ValueError(f"reduction `{op}` needs a tile of rank >= 1, got {t}")
    if not 0 <= axis < len(t.shape):
        raise ValueError(f"axis {axis} is out of range for a tile of shape {t.shape}")
    shape = tuple(1 if i == axis else s for i, s in enumerate(t.shape)) if keep else \
        t.shape[:axis] + t.shape[axis + 1:]
    return TileType(reduce_dtype(op, t.dtype), shape)


def _reshape(opcode, types, attrs):
    _check_count(opcode, types, 1)
    t, shape = types[0], tuple(attrs["shape"])
    if not isinstance(t, TileType):
        raise ValueError(f"reshape needs a tile, got {t}")
    n = 1
    for s in shape:
        n *= s
    if n != t.numel:
        raise ValueError(f"cannot reshape a tile of shape {t.shape} ({t.numel} elements) to {shape}")
    return TileType(t.dtype, shape)


def _trans(opcode, types, attrs):
    _check_count(opcode, types, 1)
    t, perm = types[0], tuple(attrs["perm"])
    if not isinstance(t, TileType) or sorted(perm) != list(range(len(t.shape))):
        raise ValueError(f"trans permutation {perm} does not fit {t}")
    return TileType(t.dtype, tuple(t.shape[p] for p in perm))


def _for(opcode, types, attrs, region_types=None):
    if len(types) < 3:
        raise ValueError("`for` takes (lo, hi, step, *inits)")
    for t in types[:3]:
        if t != ScalarType(DType.int64):
            raise ValueError(f"loop bounds must be int64 scalars, got {t}")
    carried = tuple(types[3:])
    if region_types is not None:
        (body,) = region_types
        for i, (a, b) in enumerate(zip(carried, body)):
            if a != b:
                raise ValueError(f"loop-carried value {i} changes type from {a} to {b}")
        if len(body) != len(carried):
            raise ValueError(f"loop body yields {len(body)} values for {len(carried)} carried")
    return TupleType(carried)


def _if(opcode, types, attrs, region_types=None):
    if not types or types[0] != ScalarType(DType.bool):
        raise ValueError(f"`if` condition must be a bool scalar, got {types[0] if types else None}")
    if region_types is None:
        raise ValueError("`if` result types come from its regions' yields (pass region_types)")
    then, other = region_types
    if tuple(then) != tuple(other):
        raise ValueError(f"`if` branches yield different types: {tuple(map(str, then))} vs "
                         f"{tuple(map(str, other))}")
    return TupleType(tuple(then))


def _yield(opcode, types, attrs):
    return NONE


def _getitem(opcode, types, attrs):
    _check_count(opcode, types, 1)
    t, i = types[0], attrs["index"]
    if not isinstance(t, TupleType) or not 0 <= i < len(t.types):
        raise ValueError(f"getitem {i} of {t}")
    return t.types[i]


def _item(opcode, types, attrs):
    _check_count(opcode, types, 1)
    t = types[0]
    if not isinstance(t, TileType) or t.numel != 1:
        raise ValueError(f"item needs a tile of one element, got {t}")
    return ScalarType(t.dtype)


RULES: dict[str, Callable[..., Any]] = {
    **{k: _unary for k in ELEMENTWISE_UNARY},
    **{k: _binary for k in ELEMENTWISE_BINARY},
    "where": _where, "fma": _fma, "cast": _cast, "splat": _splat, "broadcast": _broadcast,
    "arange": _arange, "full": _full, "const": _const,
    "program_id": _index, "num_programs": _index, "dim": _dim,
    "view": _view, "load": _load, "store": _store,
    "dot": _dot, "reduce": _reduce, "reshape": _reshape, "trans": _trans, "item": _item,
    "for": _for, "if": _if, "yield": _yield, "getitem": _getitem,
}


def infer_type(opcode: str, operand_types: Sequence, attrs: Mapping[str, Any] | Sequence = (),
               *, region_types=None, result_type=None):
    """The result type of ``opcode`` applied to operands of ``operand_types`` with ``attrs``
    (a mapping or the op's sorted attr tuple). Raises ValueError with a user-facing message."""
    attrs = dict(attrs)
    if opcode == "arg":
        if result_type is None:
            raise ValueError("an `arg` has a declared type (pass result_type)")
        return result_type
    rule = RULES.get(opcode)
    if rule is None:
        raise ValueError(f"no typing rule for opcode {opcode!r}")
    if opcode in ("for", "if"):
        return rule(opcode, list(operand_types), attrs, region_types)
    return rule(opcode, list(operand_types), attrs)
