"""A 1-D unary/binary elementwise kernel builder shared by tests: out = op(x[, y]) in tiles of
BLOCK with bounds-checked edges; ``fused=True`` wraps the op in a ``fused`` region."""
from harness import B, kernel, targ
from tlc.lower import ir
from tlc.lower.dtypes import DType


def ew_kernel(name, opcode, nin=1, BLOCK=64, dt=DType.float32, out_dt=None, fused=False, cast_to=None):
    out_dt = out_dt or (DType.bool if opcode in ir.COMPARISONS or opcode == "isnan" else dt)
    args = [targ(f"x{i}", i, dt, 1) for i in range(nin)] + [targ("out", nin, out_dt, 1)]
    b = B()
    off = b.ew("mul", b.pid(0), b.const(BLOCK))
    xs = [b.load(b.view(a, off), (BLOCK,)) for a in args[:nin]]
    if fused:
        fb = B()
        fargs = [ir.make("arg", (), ir.ScalarType(x.type.dtype), name=f"in{i}", index=i) for i, x in enumerate(xs)]
        r = fb.cast(fargs[0], cast_to) if opcode == "cast" else fb.ew(opcode, *fargs)
        fb.mk("yield", (r,))
        f = b.mk("fused", xs, ir.TupleType((ir.TileType(r.type.dtype, (BLOCK,)),)), (fb.block(fargs),),
                 shape=(BLOCK,), lanes=16, inner=1)
        y = b.mk("getitem", (f,), ir.TileType(r.type.dtype, (BLOCK,)), index=0)
    else:
        y = b.cast(xs[0], cast_to) if opcode == "cast" else b.ew(opcode, *xs)
    b.store(b.view(args[-1], off), y)
    return kernel(name, args, b.block(args))
