"""Hand-built IR kernels for the pass tests (no frontend needed)."""
from __future__ import annotations

from tlc.lower import ir
from tlc.lower.dtypes import DType

F32, I64, I32, BOOL = DType.float32, DType.int64, DType.int32, DType.bool
S = ir.ScalarType
T = ir.TileType
LOC = ir.Loc("k.py", 3, 5)


class B:
    """A tiny block builder: b.op(opcode, operands, type, **attrs) appends and returns the op."""

    def __init__(self, args=()):
        self.args = list(args)
        self.ops: list[ir.Op] = []

    def op(self, opcode, operands=(), type=ir.NONE, regions=(), line=3, **attrs):
        o = ir.make(opcode, operands, type, ir.Loc("k.py", line, 5), regions, **attrs)
        self.ops.append(o)
        return o

    def const(self, v, d=I64):
        return self.op("const", (), S(d), value=v, dtype=d)

    def block(self):
        return ir.Block(tuple(self.args), tuple(self.ops))


def arg(name, index, type):
    return ir.make("arg", (), type, None, name=name, index=index)


def kernel(name, params_types, build, grid=None) -> ir.Module:
    """params_types: [(name, type)]; build(b, *args) fills the body."""
    args = [arg(n, i, t) for i, (n, t) in enumerate(params_types)]
    b = B(args)
    build(b, *args)
    params = tuple(ir.Param(n, "tensor" if isinstance(t, ir.TensorType) else "scalar", t.dtype,
                            getattr(t, "rank", 0)) for n, t in params_types)
    k = ir.Kernel(name, params, b.block(), grid, ir.Loc("k.py", 1, 1), base_name=name)
    return ir.Module((k,), "k.py")


def load(b, view, shape, dtype=F32, **kw):
    return b.op("load", (view,), T(dtype, shape), shape=shape, has_mask=False, has_other=False,
                checked=(True,) * len(shape), **kw)


def store(b, view, val):
    return b.op("store", (view, val), ir.NONE, has_mask=False, checked=(True,) * len(val.type.shape))


def chain_module():
    """out[r:r+4, :64] = exp(x) * 2 + x  (load -> exp -> mul(splat) -> add -> store)."""
    def build(b, x, out):
        pid = b.op("program_id", (), S(I64), axis=0)
        r = b.op("mul", (pid, b.const(4)), S(I64))
        z = b.const(0)
        t = load(b, b.op("view", (x, r, z), x.type), (4, 64))
        e = b.op("exp", (t,), t.type)
        s = b.op("splat", (b.const(2.0, F32),), t.type, shape=(4, 64))
        m = b.op("mul", (e, s), t.type)
        a = b.op("add", (m, t), t.type)
        store(b, b.op("view", (out, r, z), out.type), a)
    return kernel("chain", [("x", ir.TensorType(F32, 2)), ("out", ir.TensorType(F32, 2))], build)


def loop_module():
    """Row max with a loop-carried tile: m = full(-inf); for c in range(0, x.shape[1], 16):
    t = load(x + (row, c), (1, 16)); m = maximum(m, t); store(out + (row, 0), m); also a
    temporary inside the loop."""
    def build(b, x, out):
        row = b.op("program_id", (), S(I64), axis=0)
        z = b.const(0)
        m0 = b.op("full", (), T(F32, (1, 16)), shape=(1, 16), value=float("-inf"), dtype=F32)
        hi = b.op("dim", (x,), S(I64), axis=1)
        iv = arg("iv", 0, S(I64))
        carried = arg("m", 1, T(F32, (1, 16)))
        bb = B([iv, carried])
        t = load(bb, bb.op("view", (x, row, iv), x.type), (1, 16))
        e = bb.op("abs", (t,), t.type)
        mm = bb.op("maximum", (carried, e), t.type)
        bb.op("yield", (mm,))
        f = b.op("for", (z, hi, b.const(16), m0), ir.TupleType((T(F32, (1, 16)),)),
                 regions=(bb.block(),))
        res = b.op("getitem", (f,), T(F32, (1, 16)), index=0)
        store(b, b.op("view", (out, row, z), out.type), res)
    return kernel("rowmax", [("x", ir.TensorType(F32, 2)), ("out", ir.TensorType(F32, 2))], build)


def bounds_module():
    """for r in range(0, x.shape[0], 1): t = load(x + (r, 0), (1, 8)); store(out + (r, 0), t)."""
    def build(b, x, out):
        z = b.const(0)
        hi = b.op("dim", (x,), S(I64), axis=0)
        iv = arg("iv", 0, S(I64))
        bb = B([iv])
        t = load(bb, bb.op("view", (x, iv, z), x.type), (1, 8))
        store(bb, bb.op("view", (out, iv, z), out.type), t)
        bb.op("yield", ())
        b.op("for", (z, hi, b.const(1)), ir.TupleType(()), regions=(bb.block(),))
    return kernel("copyrows", [("x", ir.TensorType(F32, 2)), ("out", ir.TensorType(F32, 2))], build)
