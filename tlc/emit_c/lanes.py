"""Lane expressions: the C (GCC vector extension) form of elementwise ops on L lanes.

A lane value has a *kind*: "f" float32 lanes (tl_vf: float32/float16/bfloat16 values),
"i" int32 lanes (tl_vi: int8/int32), "l" int64 lanes (tl_vl), "m" a bool mask (tl_vi of
-1/0). Tile memory holds bools as int32 0/1; :func:`from_memory`/:func:`to_memory` convert.
Every table below raises KeyError for an (op, kind) it does not cover.
"""
from __future__ import annotations

import math
import struct

from tlc.lower.dtypes import DType

KIND = {DType.float32: "f", DType.float16: "f", DType.bfloat16: "f", DType.int8: "i",
        DType.int32: "i", DType.int64: "l", DType.bool: "m"}
VEC = {"f": "tl_vf", "i": "tl_vi", "l": "tl_vl", "m": "tl_vi"}
SUFFIX = {"f": "f", "i": "i", "l": "l", "m": "i"}           # tl_ld_<s>, tl_st_<s>
SPLAT = {"f": "tl_splat_f({})", "i": "tl_splat_i({})", "l": "tl_splat_l({})", "m": "tl_splat_i(-({}))"}
UNSIGNED = {"i": "tl_vu", "l": "tl_vul"}
# scalar C types of values held in compute form (scalars and tile elements)
SCALAR_C = {"f": "float", "i": "int32_t", "l": "int64_t", "m": "int32_t"}
MEM_C = {"f": "float", "i": "int32_t", "l": "int64_t", "m": "int32_t"}

_INT_ARITH = {"add": "+", "sub": "-", "mul": "*"}
_CMP = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_BITS = {"and": "&", "or": "|", "xor": "^"}
_FLOAT_UNARY = {"exp": "tl_v_exp({})", "log": "tl_v_log({})", "sqrt": "tl_sqrt({})",
                "rsqrt": "tl_v_rsqrt({})", "tanh": "tl_v_tanh({})", "erf": "tl_v_erf({})",
                "gelu": "tl_v_gelu({})",
                "sigmoid": "tl_v_sigmoid({})", "floor": "tl_v_floor({})", "ceil": "tl_v_ceil({})",
                "abs": "tl_v_abs({})", "neg": "(-({}))", "isnan": "(({0}) != ({0}))"}
_FLOAT_BINARY = {"add": "(({}) + ({}))", "sub": "(({}) - ({}))", "mul": "(({}) * ({}))",
                 "div": "(({}) / ({}))", "maximum": "tl_v_max({}, {})", "minimum": "tl_v_min({}, {})",
                 "floordiv": "tl_v_pyfloordiv({}, {})", "truncdiv": "tl_v_trunc(({}) / ({}))",
                 "mod": "tl_v_pymod({}, {})", "fmod": "tl_v_cfmod({}, {})", "pow": "tl_v_pow({}, {})"}
_INT_CALL = {"floordiv": "tl_floordiv_{}", "mod": "tl_mod_{}", "truncdiv": "tl_truncdiv_{}",
             "fmod": "tl_fmod_{}"}


def c_float(v: float) -> str:
    """A float32 C literal, exact (hex float), deterministic; inf/nan as builtins."""
    if math.isnan(v):
        return "__builtin_nanf(\"\")"
    if math.isinf(v):
        return "__builtin_inff()" if v > 0 else "(-__builtin_inff())"
    f32 = struct.unpack("<f", struct.pack("<f", v))[0]
    return f"{f32.hex()}f"


def c_int(v: int, kind: str) -> str:
    if kind == "l":
        return f"((int64_t){int(v) & (2**64 - 1)}ULL)"
    return f"((int32_t){int(v) & (2**32 - 1)}U)"


def c_const(value, dtype: DType) -> str:
    """A scalar constant of ``dtype`` in compute form (bools are 0/1)."""
    kind = KIND[dtype]
    if kind == "f":
        return c_float(float(value))
    if kind == "m":
        return "1" if value else "0"
    return c_int(int(value), kind)


def mask_to_i(expr: str, kind: str) -> str:
    """A comparison result of lanes of ``kind`` as an int32 mask (tl_vi)."""
    return f"__builtin_convertvector({expr}, tl_vi)" if kind == "l" else expr


def select(kind: str, m: str, a: str, b: str) -> str:
    fn = {"f": "tl_sel_f", "i": "tl_sel_i", "m": "tl_sel_i", "l": "tl_sel_l"}[kind]
    return f"{fn}({m}, {a}, {b})"


def cast(expr: str, src: DType, dst: DType) -> str:
    """Lanes of ``src`` (in compute form) converted to ``dst`` (in compute form)."""
    s, d = KIND[src], KIND[dst]
    if s == "m" and d != "m":
        expr, s = f"(({expr}) & 1)", "i"
    if d == "m":
        return {"f": "(({}) != 0.0f)", "i": "(({}) != 0)", "m": "({})",
                "l": "__builtin_convertvector(({}) != 0, tl_vi)"}[s].format(expr)
    if d == "f":
        v = expr if s == "f" else f"__builtin_convertvector({expr}, tl_vf)"
        if dst is DType.float16 and src is not DType.float16:
            return f"tl_v_round_f16({v})"
        if dst is DType.bfloat16 and src is not DType.bfloat16:
            return f"tl_v_round_bf16({v})"
        return v
    if d == "l":
        if s == "f":        # the ISA table's f2l (RVV avoids instructions QEMU 7.2 aborts on)
            return f"tl_v_f2l({expr})"
        return expr if s == "l" else f"__builtin_convertvector({expr}, tl_vl)"
    # d == "i"
    v = expr if s == "i" else f"tl_v_f2i({expr})" if s == "f" else f"__builtin_convertvector({expr}, tl_vi)"
    if dst is DType.int8 and src is not DType.int8:
        v = f"(((tl_vi)((tl_vu)({v}) << 24)) >> 24)"
    return v


def lane_expr(opcode: str, operands: list[tuple[str, DType]], result: DType, attrs=None) -> str:
    """The lane expression of one elementwise op (operands are (C expr, dtype) pairs of one
    kind, except ``where``'s mask). Raises KeyError for an unsupported (op, kind)."""
    if opcode == "cast":
        (a, src), = operands
        return cast(a, src, result)
    if opcode == "where":
        (m, _), (a, dt), (b, _) = operands
        return select(KIND[dt], m, a, b)
    if opcode == "fma":
        (a, _), (b, _), (c, _) = operands
        return f"tl_fma({a}, {b}, {c})"
    kind = KIND[operands[0][1]]
    names = [o[0] for o in operands]
    if opcode in _CMP:
        return mask_to_i(f"(({names[0]}) {_CMP[opcode]} ({names[1]}))", kind)
    if kind == "f":
        if len(names) == 1:
            return _FLOAT_UNARY[opcode].format(*names)
        return _FLOAT_BINARY[opcode].format(*names)
    if opcode in _BITS:
        return f"(({names[0]}) {_BITS[opcode]} ({names[1]}))"
    if opcode == "not":
        return f"(~({names[0]}))"
    if kind == "m":
        raise KeyError(f"no lane expression for {opcode} on bool")
    u, v = UNSIGNED[kind], VEC[kind]
    if opcode in _INT_ARITH:
        return f"(({v})(({u})({names[0]}) {_INT_ARITH[opcode]} ({u})({names[1]})))"
    if opcode == "neg":
        return f"(({v})(({u}){{0}} - ({u})({names[0]})))"
    if opcode == "abs":
        neg = f"(({v})(({u}){{0}} - ({u})({names[0]})))"
        return select(kind, mask_to_i(f"(({names[0]}) < 0)", kind), neg, names[0])
    if opcode in ("maximum", "minimum"):
        op = ">" if opcode == "maximum" else "<"
        return select(kind, mask_to_i(f"(({names[0]}) {op} ({names[1]}))", kind), names[0], names[1])
    if opcode in _INT_CALL:
        return f"{_INT_CALL[opcode].format(kind)}({names[0]}, {names[1]})"
    raise KeyError(f"no lane expression for {opcode} on {operands[0][1]}")


def from_memory(expr: str, dtype: DType) -> str:
    """Lanes loaded from tile memory (compute form) as lane values (bools become masks)."""
    return f"(({expr}) != 0)" if KIND[dtype] == "m" else expr


def to_memory(expr: str, dtype: DType) -> str:
    return f"(({expr}) & 1)" if KIND[dtype] == "m" else expr


# scalar index arithmetic emitted directly (int64/int32 scalars); anything else goes through
# the lane expressions on splatted operands, so scalars and tiles compute identical bits.
_SCALAR_INT_CALL = {"floordiv": "tl_floordiv_s", "mod": "tl_mod_s", "truncdiv": "tl_truncdiv_s",
                    "fmod": "tl_fmod_s", "minimum": "tl_min_s", "maximum": "tl_max_s"}


def scalar_expr(opcode: str, operands: list[tuple[str, DType]], result: DType) -> str:
    """A scalar C expression (compute form) for one elementwise op on scalars."""
    kinds = {KIND[dt] for _, dt in operands}
    names = [o[0] for o in operands]
    if kinds <= {"i", "l"} and opcode != "cast":
        kind = "l" if "l" in kinds else "i"
        ct, ut = ("int64_t", "uint64_t") if kind == "l" else ("int32_t", "uint32_t")
        if opcode in _INT_ARITH:
            return f"(({ct})(({ut})({names[0]}) {_INT_ARITH[opcode]} ({ut})({names[1]})))"
        if opcode in _CMP:
            return f"(int32_t)(({names[0]}) {_CMP[opcode]} ({names[1]}))"
        if opcode in _BITS:
            return f"(({names[0]}) {_BITS[opcode]} ({names[1]}))"
        if opcode == "neg":
            return f"(({ct})(({ut})0 - ({ut})({names[0]})))"
        if opcode in _SCALAR_INT_CALL:
            return f"(({ct}){_SCALAR_INT_CALL[opcode]}({names[0]}, {names[1]}))"
    if kinds == {"m"} and opcode in ("and", "or", "xor", "eq", "ne"):
        op = {**_BITS, "eq": "==", "ne": "!="}[opcode]
        return f"(int32_t)(({names[0]}) {op} ({names[1]}))"
    if kinds == {"m"} and opcode == "not":
        return f"(int32_t)(!({names[0]}))"
    if opcode == "where":
        (m, _), (a, _), (b, _) = operands
        return f"(({m}) ? ({a}) : ({b}))"
    splat = [(SPLAT[KIND[dt]].format(n), dt) for n, dt in operands]
    expr = lane_expr(opcode, splat, result)
    rk = KIND[result] if opcode not in _CMP and opcode != "isnan" else "m"
    if rk == "m":
        return f"(int32_t)(({expr})[0] & 1)"
    return f"({expr})[0]"
