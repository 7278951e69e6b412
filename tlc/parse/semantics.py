"""Typed op construction for the frontend: implicit cast, splat and broadcast insertion.

A :class:`Builder` appends ops to the innermost open block. Values handled here are IR ops
(scalars, tiles, tensors) or Python compile-time numbers ("weak" literals that take the
other operand's dtype). Type errors raise ``ValueError`` (the frontend locates them).
"""
from __future__ import annotations

from tlc.lower import ir
from tlc.lower.dtypes import DType, promote
from tlc.lower.ir import Op, ScalarType, TensorType, TileType
from tlc.lower.typing_rules import infer_type

INT64 = ScalarType(DType.int64)
_NEEDS_FLOAT = ("div", "pow")
_ARITH = ("add", "sub", "mul", "floordiv", "mod", "truncdiv", "fmod", "maximum", "minimum")



def int_in_range(value: int, dtype: DType) -> int:
    """``value`` if it fits the signed integer ``dtype``; ValueError otherwise (a literal is never
    wrapped silently: 2**70 as an int64 offset, or 2**40 in an int32 tile)."""
    bits = 8 * dtype.itemsize
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if not lo <= value <= hi:
        raise ValueError(f"integer constant {value} does not fit {dtype} ([{lo}, {hi}])")
    return value

class Builder:
    """Appends typed ops to a stack of open blocks; ``loc`` is stamped on every op."""

    def __init__(self) -> None:
        self.stack: list[list[Op]] = [[]]
        self.loc: ir.Loc | None = None

    def emit(self, opcode: str, operands=(), *, type=None, region_types=None, regions=(), **attrs) -> Op:
        if type is None:
            type = infer_type(opcode, [o.type for o in operands], attrs, region_types=region_types)
        op = ir.make(opcode, operands, type, self.loc, regions, **attrs)
        self.stack[-1].append(op)
        return op

    def push(self) -> None:
        self.stack.append([])

    def pop(self, args=()) -> ir.Block:
        return ir.Block(tuple(args), tuple(self.stack.pop()))

    # ------------------------------------------------------------------ conversions
    def const(self, value, dtype: DType) -> Op:
        if isinstance(value, str):
            raise ValueError(STRINGS_UNSUPPORTED)
        if dtype.is_float:
            value = float(value)
        elif dtype.is_bool:
            value = bool(value)
        else:
            value = int_in_range(int(value), dtype)
        return self.emit("const", value=value, dtype=dtype)

    def cast(self, x: Op, dtype: DType) -> Op:
        return x if x.type.dtype is dtype else self.emit("cast", (x,), dtype=dtype)

    def to_int64(self, x) -> Op:
        """An int64 scalar op from a Python int or an integer scalar op (view offsets, bounds)."""
        if isinstance(x, bool) or isinstance(x, float):
            raise ValueError(f"expected an integer, got {describe(x)}")
        if isinstance(x, int):
            return self.const(x, DType.int64)
        if not isinstance(x, Op) or not isinstance(x.type, ScalarType) or not x.type.dtype.is_int:
            raise ValueError(f"expected an integer scalar, got {describe(x)}")
        return self.cast(x, DType.int64)

    def materialize(self, x, dtype: DType) -> Op:
        """A Python number becomes a const of ``dtype``; an op is cast to ``dtype``."""
        if isinstance(x, Op):
            return self.cast(x, dtype)
        return self.const(x, dtype)

    def reshape(self, x: Op, shape) -> Op:
        shape = tuple(shape)
        return x if x.type.shape == shape else self.emit("reshape", (x,), shape=shape)

    def broadcast_to(self, x: Op, shape) -> Op:
        """Scalar -> splat; lower-rank tile -> reshape with leading 1s; then broadcast."""
        shape = tuple(shape)
        if isinstance(x.type, ScalarType):
            return self.emit("splat", (x,), shape=shape)
        if x.type.shape == shape:
            return x
        if len(x.type.shape) < len(shape):
            x = self.reshape(x, (1,) * (len(shape) - len(x.type.shape)) + x.type.shape)
        if x.type.shape == shape:
            return x
        return self.emit("broadcast", (x,), shape=shape)

    # ------------------------------------------------------------------ typed ops
    def binary(self, opcode: str, a, b) -> Op:
        """``a <opcode> b`` with weak literals, dtype promotion and numpy broadcasting."""
        dtype = binary_dtype(opcode, a, b)
        shape = broadcast_shapes(value_shape(a), value_shape(b))
        xs = [self.materialize(v, dtype) for v in (a, b)]
        if shape is not None:
            xs = [self.broadcast_to(v, shape) for v in xs]
        return self.emit(opcode, xs)

    def where(self, c, a, b) -> Op:
        dtype = binary_dtype("where", a, b)
        shape = broadcast_shapes(broadcast_shapes(value_shape(c), value_shape(a)), value_shape(b))
        if isinstance(c, Op) and c.type.dtype is not DType.bool:
            c = self.emit("ne", (c, self.const(0, c.type.dtype)))
        xs = [self.materialize(c, DType.bool)] + [self.materialize(v, dtype) for v in (a, b)]
        if shape is not None:
            xs = [self.broadcast_to(v, shape) for v in xs]
        return self.emit("where", xs)

    def fma(self, a, b, c) -> Op:
        """``a * b + c`` in float32 with numpy broadcasting (one rounding where the target has FMA)."""
        for v in (a, b, c):
            if isinstance(v, Op) and v.type.dtype is not DType.float32:
                raise ValueError(f"tl.fma operands must be float32 (use .to(tl.float32)), got {v.type}")
        shape = broadcast_shapes(broadcast_shapes(value_shape(a), value_shape(b)), value_shape(c))
        xs = [self.materialize(v, DType.float32) for v in (a, b, c)]
        if shape is not None:
            xs = [self.broadcast_to(v, shape) for v in xs]
        return self.emit("fma", xs)

    def unary(self, opcode: str, x) -> Op:
        if not isinstance(x, Op):
            x = self.const(x, DType.float32 if isinstance(x, float) else DType.int64)
        check_value(x)
        d = x.type.dtype
        if opcode in ("exp", "log", "sqrt", "rsqrt", "tanh", "erf", "gelu", "sigmoid", "floor", "ceil") \
                and not d.is_float:
            x = self.cast(x, DType.float32)
        if opcode == "neg" and d.is_bool:
            x = self.cast(x, DType.int32)
        return self.emit(opcode, (x,))


STRINGS_UNSUPPORTED = "strings are not supported in kernels"


def check_value(x) -> None:
    if isinstance(x, str):
        raise ValueError(STRINGS_UNSUPPORTED)
    if isinstance(x, Op) and not isinstance(x.type, (ScalarType, TileType)):
        raise ValueError(f"expected a scalar or a tile, got {describe(x)}")


def describe(x, env: dict | None = None) -> str:
    """A value as the TL user sees it, never an IR repr: "runtime int64 scalar", "tile<4x16xf32>",
    "a tensor (...)", "tl.float32", "string 'a'", a number as written, a tuple element-wise. With
    ``env`` (name -> value) a runtime value bound to a name is shown as "`n` (runtime int64 scalar)"."""
    if isinstance(x, Op):
        t = x.type
        if isinstance(t, TensorType):
            return f"a tensor ({t}); load a tile from it with tl.load(view, shape)"
        text = f"runtime {t.dtype.name} scalar" if isinstance(t, ScalarType) else str(t)
        name = bound_name(x, env)
        return f"`{name}` ({text})" if name else text
    if isinstance(x, tuple):
        return "(" + ", ".join(describe(v, env) for v in x) + ("," if len(x) == 1 else "") + ")"
    if isinstance(x, list):
        return "[" + ", ".join(describe(v, env) for v in x) + "]"
    if isinstance(x, DType):
        return repr(x)
    if isinstance(x, str):
        return f"string {x!r}"
    if isinstance(x, (bool, int, float)) or x is None:
        return repr(x)
    from tlc.parse import values as V
    if isinstance(x, V.Builtin):
        return f"tl.{x.name}"
    if isinstance(x, V.PyBuiltin):
        return f"Python builtin `{x.name}`"
    if isinstance(x, V.ShapeProxy):
        return "a tensor's `.shape` (index it: x.shape[0])"
    if isinstance(x, V.TLModule):
        return "the tl module"
    if isinstance(x, V.BoundMethod):
        return f"method `.{x.name}`"
    if isinstance(x, V.TensorAnnot):
        return "tl.tensor"
    return f"a {type(x).__name__} value"


def bound_name(x, env: dict | None) -> str | None:
    """The kernel-level name bound to exactly this value (a parameter or a local), or None."""
    for k, v in (env or {}).items():
        if v is x:
            return k
    return None


def runtime_in(x) -> bool:
    """True when x (or an element of a tuple x) is a runtime value."""
    if isinstance(x, tuple):
        return any(runtime_in(v) for v in x)
    return isinstance(x, Op)


def value_shape(x) -> tuple[int, ...] | None:
    """The tile shape of a value, or None for scalars and Python numbers."""
    return x.type.shape if isinstance(x, Op) and isinstance(x.type, TileType) else None


def broadcast_shapes(a, b):
    """NumPy broadcasting of two tile shapes (None = scalar). Raises ValueError naming both."""
    if a is None:
        return b
    if b is None:
        return a
    n = max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(pa, pb):
        if x != y and 1 not in (x, y):
            raise ValueError(f"incompatible shapes for broadcasting: {tuple(a)} and {tuple(b)}")
        out.append(max(x, y) if 1 in (x, y) else x)
    return tuple(out)


def _weak_dtype(v) -> DType:
    if isinstance(v, bool):
        return DType.bool
    return DType.float32 if isinstance(v, float) else DType.int64


def binary_dtype(opcode: str, a, b) -> DType:
    """Operand dtype of a binary op: strong dtypes promote; a Python literal is weak (takes the
    other side's dtype unless it is a float meeting an int/bool, which gives float32)."""
    for v in (a, b):
        check_value(v)
    da = a.type.dtype if isinstance(a, Op) else None
    db = b.type.dtype if isinstance(b, Op) else None
    if da is None and db is None:
        d = promote(_weak_dtype(a), _weak_dtype(b))
    elif da is None or db is None:
        strong, weak = (db, a) if da is None else (da, b)
        wd = _weak_dtype(weak)
        if wd.is_float and not strong.is_float:
            d = DType.float32
        elif wd is DType.int64 and strong.is_bool:
            d = DType.int32
        else:
            d = strong
    else:
        d = promote(da, db)
    if opcode in _NEEDS_FLOAT and not d.is_float:
        d = DType.float32
    if opcode in _ARITH and d.is_bool:
        d = DType.int32
    return d
