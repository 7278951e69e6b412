"""Pass fold_constants: folds integer/bool scalar ops on constants and exact integer identities.

Integer semantics (two's complement, wrapping at the dtype's width: int8, int32, int64):
  add sub mul neg abs          wrap (abs(INT_MIN) == INT_MIN)
  floordiv mod                 floor (Python): sign of the remainder follows the divisor
  truncdiv fmod                truncate (C): sign of the remainder follows the dividend
  INT_MIN // -1 and truncdiv(INT_MIN, -1) wrap to INT_MIN; division by a zero constant is not
  folded (the runtime behaviour applies).
  and or xor not               bitwise on ints, logical on bools; comparisons give bool.
  cast                         int/bool -> int (wrap) or bool (!= 0); nothing else.
  where                        a constant scalar condition selects its operand.
Identities (int dtypes only, scalars and tiles; a constant is a ``const``, a ``splat`` of one
or a ``full``): x+0, 0+x, x-0, x*1, 1*x, x//1, truncdiv(x,1) -> x; x*0, 0*x, x%1, fmod(x,1) -> 0.
Floats are never folded: no x+0.0 -> x (signed zero), no x*1.0 / x*0 (NaN, inf, -0.0), no
arithmetic on float constants (the target's rounding of transcendental/vector code rules).
"""
from __future__ import annotations

from dataclasses import dataclass

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.lower.rewrite import dce_kernel, map_kernels, rewrite_kernel

_BITS = {DType.int8: 8, DType.int32: 32, DType.int64: 64}


def wrap(v: int, dtype: DType) -> int:
    """v reduced to the two's complement range of the int dtype."""
    b = _BITS[dtype]
    return ((v + (1 << (b - 1))) % (1 << b)) - (1 << (b - 1))


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _tmod(a: int, b: int) -> int:
    return a - b * _tdiv(a, b)


_INT_BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
    "truncdiv": _tdiv, "fmod": _tmod,
    "maximum": max, "minimum": min,
    "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
}
_CMP = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
        "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}
_DIVS = ("floordiv", "mod", "truncdiv", "fmod")


def eval_int(opcode: str, dtype: DType, *vals):
    """The folded value of an int/bool op (dtype = operand dtype), or None if not foldable."""
    if opcode in _CMP:
        return bool(_CMP[opcode](*vals))
    if dtype is DType.bool:
        a = [bool(v) for v in vals]
        return {"and": lambda: a[0] and a[1], "or": lambda: a[0] or a[1],
                "xor": lambda: a[0] != a[1], "not": lambda: not a[0]}.get(opcode, lambda: None)()
    if opcode in _DIVS and vals[1] == 0:
        return None
    if opcode in _INT_BINARY:
        return wrap(_INT_BINARY[opcode](*vals), dtype)
    if opcode == "neg":
        return wrap(-vals[0], dtype)
    if opcode == "abs":
        return wrap(abs(vals[0]), dtype)
    if opcode == "not":
        return wrap(~vals[0], dtype)
    return None


def const_value(op: ir.Op):
    """The constant a scalar const / splat of a const / full stands for, else None."""
    if op.opcode == "const":
        return op.attr("value")
    if op.opcode == "splat" and op.operands[0].opcode == "const":
        return op.operands[0].attr("value")
    if op.opcode == "full":
        return op.attr("value")
    return None


def _is(op: ir.Op, c: int) -> bool:
    v = const_value(op)
    return v is not None and not isinstance(v, (bool, float)) and v == c


def _zero_like(op: ir.Op, emit) -> ir.Op:
    d = op.type.dtype
    if isinstance(op.type, ir.TileType):
        return emit(ir.make("full", (), op.type, op.loc, shape=op.type.shape, value=0, dtype=d))
    return emit(ir.make("const", (), op.type, op.loc, value=0, dtype=d))


def _identity(op: ir.Op, emit):
    if not isinstance(op.type, (ir.ScalarType, ir.TileType)) or not op.type.dtype.is_int:
        return None
    oc, ops = op.opcode, op.operands
    if len(ops) != 2 or ops[0].type != op.type or ops[1].type != op.type:
        return None
    x, y = ops
    if oc == "add":
        return x if _is(y, 0) else y if _is(x, 0) else None
    if oc == "sub":
        return x if _is(y, 0) else None
    if oc == "mul":
        if _is(x, 0) or _is(y, 0):
            return _zero_like(op, emit)
        return x if _is(y, 1) else y if _is(x, 1) else None
    if oc in ("floordiv", "truncdiv") and _is(y, 1):
        return x
    if oc in ("mod", "fmod") and _is(y, 1):
        return _zero_like(op, emit)
    return None


def _rule(op: ir.Op, emit) -> ir.Op:
    t = op.type
    if isinstance(t, ir.ScalarType) and op.operands and all(o.opcode == "const" for o in op.operands):
        src = op.operands[0].type.dtype
        vals = [o.attr("value") for o in op.operands]
        if op.opcode == "where":
            return op.operands[1] if vals[0] else op.operands[2]
        if op.opcode == "cast":
            if src.is_float or t.dtype.is_float:
                return op
            v = bool(vals[0]) if t.dtype is DType.bool else wrap(int(vals[0]), t.dtype)
            return emit(ir.make("const", (), t, op.loc, value=v, dtype=t.dtype))
        if (src.is_int or src.is_bool) and (op.opcode in ir.ELEMENTWISE_UNARY or op.opcode in ir.ELEMENTWISE_BINARY):
            v = eval_int(op.opcode, src, *vals)
            if v is not None:
                return emit(ir.make("const", (), t, op.loc, value=v, dtype=t.dtype))
        return op
    if isinstance(t, ir.ScalarType) and op.opcode == "where" and op.operands[0].opcode == "const":
        return op.operands[1] if op.operands[0].attr("value") else op.operands[2]
    r = _identity(op, emit)
    return op if r is None else r


@dataclass(frozen=True)
class FoldConstants:
    name: str = "fold_constants"

    def run(self, module: ir.Module, ctx) -> ir.Module:
        return map_kernels(module, lambda k: dce_kernel(rewrite_kernel(k, _rule)))


PASS = FoldConstants()
