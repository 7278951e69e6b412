"""Constant folding checked by brute force against an independent Python reference
(including negative operands, INT_MIN // -1 and docs/semantics.md#c-06)."""
from fractions import Fraction
import itertools

import pytest

import builders as B
from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.lower.passes import fold_constants as fc
from tlc.lower.rewrite import dce_block, rewrite_block

BITS = {DType.int8: 8, DType.int32: 32, DType.int64: 64}


def wrap(v, d):
    if d is DType.bool:
        return bool(v)
    m = 1 << BITS[d]
    v %= m
    return v - m if v >= m // 2 else v


def trunc(a, b):
    return int(Fraction(a, b))


REF = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "floordiv": lambda a, b: a // b, "mod": lambda a, b: a - b * (a // b),
    "truncdiv": trunc, "fmod": lambda a, b: a - b * trunc(a, b),
    "maximum": max, "minimum": min, "and": lambda a, b: a & b, "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b, "lt": lambda a, b: a < b, "le": lambda a, b: a <= b,
    "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
}
UNARY = {"neg": lambda a: -a, "abs": abs, "not": lambda a: ~a}


def evaluate(block, env):
    """A tiny scalar interpreter with reference semantics; returns the yielded values."""
    vals = dict(env)
    for op in block.ops:
        g = [vals[id(o)] for o in op.operands]
        if op.opcode == "const":
            v = op.attr("value")
        elif op.opcode == "yield":
            return g
        elif op.opcode == "cast":
            v = wrap(int(g[0]), op.attr("dtype"))
        elif op.opcode == "where":
            v = g[1] if g[0] else g[2]
        elif op.opcode in UNARY:
            v = wrap(UNARY[op.opcode](g[0]), op.type.dtype)
        elif op.opcode in ("floordiv", "mod", "truncdiv", "fmod") and g[1] == 0:
            v = "div0"
        else:
            v = REF[op.opcode](*g)
            v = v if op.opcode in ir.COMPARISONS else wrap(v, op.type.dtype)
        vals[id(op)] = v
    raise AssertionError("no yield")


def fold(block):
    return dce_block(rewrite_block(block, fc._rule))


def limits(d):
    b = BITS[d]
    return [-(1 << (b - 1)), -(1 << (b - 1)) + 1, (1 << (b - 1)) - 1, -1, 1, 0]


@pytest.mark.parametrize("d", [DType.int8, DType.int32, DType.int64])
@pytest.mark.parametrize("opcode", sorted(REF))
def test_binary_const_folding_brute_force(opcode, d):
    vals = sorted(set(range(-20, 21)) | set(limits(d)))
    b = B.B()
    outs = []
    for x, y in itertools.product(vals, vals):
        outs.append(b.op(opcode, (b.const(x, d), b.const(y, d)),
                         ir.ScalarType(DType.bool if opcode in ir.COMPARISONS else d)))
    b.op("yield", outs)
    blk = b.block()
    want = evaluate(blk, {})
    folded = fold(blk)
    got = evaluate(folded, {})
    assert got == want
    # everything folded except division by zero
    left = [o.opcode for o in folded.ops if o.opcode not in ("const", "yield")]
    assert all(o == opcode for o in left)
    assert len(left) == (len(vals) if opcode in ("floordiv", "mod", "truncdiv", "fmod") else 0)


def test_int_min_div_minus_one_wraps():
    for d in (DType.int32, DType.int64, DType.int8):
        lo = -(1 << (BITS[d] - 1))
        assert fc.eval_int("floordiv", d, lo, -1) == lo
        assert fc.eval_int("truncdiv", d, lo, -1) == lo
        assert fc.eval_int("mod", d, lo, -1) == 0 and fc.eval_int("fmod", d, lo, -1) == 0
    assert fc.eval_int("floordiv", DType.int32, 7, -2) == -4 and fc.eval_int("mod", DType.int32, 7, -2) == -1
    assert fc.eval_int("fmod", DType.int32, -7, 2) == -1 and fc.eval_int("truncdiv", DType.int32, -7, 2) == -3


@pytest.mark.parametrize("d", [DType.int8, DType.int32, DType.int64])
@pytest.mark.parametrize("opcode", ["neg", "abs", "not"])
def test_unary_const_folding_brute_force(opcode, d):
    vals = sorted(set(range(-20, 21)) | set(limits(d)))
    b = B.B()
    b.op("yield", [b.op(opcode, (b.const(x, d),), ir.ScalarType(d)) for x in vals])
    blk = b.block()
    assert evaluate(fold(blk), {}) == evaluate(blk, {})
    assert all(o.opcode in ("const", "yield") for o in fold(blk).ops)


def test_cast_and_bool_folding():
    b = B.B()
    outs = [b.op("cast", (b.const(v, DType.int64),), ir.ScalarType(DType.int8), dtype=DType.int8)
            for v in (-129, 128, 255, -1, 300)]
    outs += [b.op("cast", (b.const(v, DType.int32),), ir.ScalarType(DType.bool), dtype=DType.bool)
             for v in (0, 5, -1)]
    t, f = b.const(True, DType.bool), b.const(False, DType.bool)
    for oc in ("and", "or", "xor"):
        outs.append(b.op(oc, (t, f), ir.ScalarType(DType.bool)))
    b.op("yield", outs)
    got = evaluate(fold(b.block()), {})
    assert got == [127, -128, -1, -1, 44, False, True, True, False, True, True]


@pytest.mark.parametrize("d", [DType.int32, DType.int64, DType.int8])
def test_identities_brute_force(d):
    """x+0, 0+x, x-0, x*1, 1*x, x*0, 0*x, x//1, x%1, truncdiv(x,1), fmod(x,1), with x unknown."""
    x = B.arg("x", 0, ir.ScalarType(d))
    b = B.B([x])
    z, one = b.const(0, d), b.const(1, d)
    s = ir.ScalarType(d)
    outs = [b.op("add", (x, z), s), b.op("add", (z, x), s), b.op("sub", (x, z), s),
            b.op("mul", (x, one), s), b.op("mul", (one, x), s), b.op("mul", (x, z), s),
            b.op("mul", (z, x), s), b.op("floordiv", (x, one), s), b.op("mod", (x, one), s),
            b.op("truncdiv", (x, one), s), b.op("fmod", (x, one), s),
            b.op("sub", (z, x), s)]           # 0 - x is NOT an identity: stays
    b.op("yield", outs)
    blk = b.block()
    folded = fold(blk)
    assert [o.opcode for o in folded.ops if o.opcode not in ("const", "yield")] == ["sub"]
    for v in sorted(set(range(-20, 21)) | set(limits(d))):
        assert evaluate(folded, {id(x): v}) == evaluate(blk, {id(x): v})


def test_c06_trunc_vs_floor_brute_force():
    """(241 + 48*x) / 16: truncating vs flooring division, x in [-20, 20] (docs/semantics.md#c-06)."""
    for x in range(-20, 21):
        for opcode, ref in (("truncdiv", trunc), ("floordiv", lambda a, b: a // b)):
            b = B.B()
            s = ir.ScalarType(DType.int64)
            m = b.op("mul", (b.const(48), b.const(x)), s)
            a = b.op("add", (b.const(241), m), s)
            b.op("yield", [b.op(opcode, (a, b.const(16)), s)])
            got = evaluate(fold(b.block()), {})[0]
            assert got == ref(241 + 48 * x, 16)
            if x == -10:
                assert got == (-14 if opcode == "truncdiv" else -15)


def test_floats_never_folded():
    x = B.arg("x", 0, ir.ScalarType(B.F32))
    b = B.B([x])
    s = ir.ScalarType(B.F32)
    outs = [b.op("add", (x, b.const(0.0, B.F32)), s), b.op("mul", (x, b.const(1.0, B.F32)), s),
            b.op("mul", (x, b.const(0.0, B.F32)), s),
            b.op("add", (b.const(1.0, B.F32), b.const(2.0, B.F32)), s)]
    b.op("yield", outs)
    folded = fold(b.block())
    assert [o.opcode for o in folded.ops if o.opcode not in ("const", "yield")] == ["add", "mul", "mul", "add"]


def test_tile_int_identity_uses_full():
    t = ir.TileType(DType.int32, (4,))
    x = B.arg("x", 0, t)
    b = B.B([x])
    zs = b.op("splat", (b.const(0, DType.int32),), t, shape=(4,))
    os_ = b.op("splat", (b.const(1, DType.int32),), t, shape=(4,))
    b.op("yield", [b.op("add", (x, zs), t), b.op("mul", (x, zs), t), b.op("mul", (os_, x), t)])
    folded = fold(b.block())
    y = folded.ops[-1]
    assert y.operands[0] is x and y.operands[2] is x
    assert y.operands[1].opcode == "full" and y.operands[1].attr("value") == 0
