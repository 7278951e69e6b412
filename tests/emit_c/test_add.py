"""End-to-end: an add kernel (2-D tiles, edges masked by bounds checks) on every variant."""
import numpy as np
import pytest

from harness import B, VARIANTS, kernel, run, sarg, targ
from tlc.lower import ir
from tlc.lower.dtypes import DType


def add_kernel(BM=4, BN=37):
    args = [targ("x", 0, rank=2), targ("y", 1, rank=2), targ("out", 2, rank=2)]
    b = B()
    r = b.ew("mul", b.pid(0), b.const(BM))
    c = b.ew("mul", b.pid(1), b.const(BN))
    a_ = b.load(b.view(args[0], r, c), (BM, BN))
    b_ = b.load(b.view(args[1], r, c), (BM, BN))
    b.store(b.view(args[2], r, c), b.ew("add", a_, b_))
    g = B()
    gargs = [ir.make("arg", (), a.type, name=a.attr("name"), index=a.attr("index")) for a in args]
    d0 = g.mk("dim", (gargs[2],), ir.ScalarType(DType.int64), axis=0)
    d1 = g.mk("dim", (gargs[2],), ir.ScalarType(DType.int64), axis=1)
    n0 = g.ew("floordiv", g.ew("add", d0, g.const(BM - 1)), g.const(BM))
    n1 = g.ew("floordiv", g.ew("add", d1, g.const(BN - 1)), g.const(BN))
    g.mk("yield", (n0, n1))
    return kernel("add", args, b.block(args), g.block(gargs))


@pytest.mark.parametrize("isa", sorted(VARIANTS))
@pytest.mark.parametrize("shape", [(1, 1), (5, 37), (9, 75), (3, 100)])
def test_add(isa, shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    out = np.full(shape, np.nan, np.float32)
    run([add_kernel()], isa, "add", [x, y, out])
    np.testing.assert_array_equal(out, x + y)
