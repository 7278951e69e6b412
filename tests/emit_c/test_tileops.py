"""load/store edge cases, reductions, dot, trans, arange, for/if on every variant."""
import numpy as np
import pytest

from harness import B, VARIANTS, compile_bundle, Loaded, kernel, sarg, targ
from tlc.lower import ir
from tlc.lower.dtypes import DType

ISAS = sorted(VARIANTS)
f32 = DType.float32


def run(k, isa, args, grid=(1,)):
    Loaded(compile_bundle([k], isa))(k.name, args, grid=grid)


def reduce_kernel(op, R, C, axis, dt=f32, other=None, name="red"):
    """out = reduce(load(x, (R, C), other), axis) for one program; x may be smaller (padding)."""
    x, out = targ("x", 0, dt, 2), targ("out", 1, DType.int32 if op.startswith("arg") else dt, 1)
    b = B()
    z = b.const(0)
    oth = b.const(other, dt) if other is not None else None
    t = b.load(b.view(x, z, z), (R, C), other=oth)
    r = b.reduce(t, op, axis)
    b.store(b.view(out, z), r)
    return kernel(name, [x, out], b.block([x, out]))


@pytest.mark.parametrize("isa", ISAS)
def test_sum_max_row_c04(isa):
    ns = [1, 3, 5, 17, 24, 48, 100, 1000]
    ops = ("sum", "max", "min")
    lib = Loaded(compile_bundle([reduce_kernel(op, 1, n, 1, name=f"{op}{n}") for n in ns for op in ops], isa))
    for n in ns:
        a = (2.0 * np.arange(1, n + 1, dtype=np.float32))[None, :]
        for op, want in zip(ops, (a.sum(), a.max(), a.min())):
            out = np.full(1, np.nan, np.float32)
            lib(f"{op}{n}", [a, out], grid=(1,))
            assert out[0] == want, (op, n, out, want)


@pytest.mark.parametrize("isa", ISAS)
def test_max_negative_padded_c12(isa):
    L = 17
    row = (-1 - ((37 * np.arange(L) + 37) % L) / L).astype(np.float32)[None, :]
    out = np.full(1, np.nan, np.float32)
    run(reduce_kernel("max", 1, 32, 1, other=float("-inf")), isa, [row, out])
    assert out[0] == -1.0
    am = np.full(1, -5, np.int32)
    run(reduce_kernel("argmax", 1, 32, 1, other=float("-inf")), isa, [row, am])
    assert am[0] == L - 1


@pytest.mark.parametrize("isa", ISAS)
def test_masked_sum_c02(isa):
    x, out = targ("x", 0, f32, 1), targ("out", 1, f32, 1)
    b = B()
    z = b.const(0)
    offs = b.mk("arange", (), ir.TileType(DType.int32, (256,)), start=0, stop=256)
    lim = b.mk("splat", (b.const(16, DType.int32),), ir.TileType(DType.int32, (256,)), shape=(256,))
    m = b.ew("lt", offs, lim)
    t = b.load(b.view(x, z), (256,), mask=m, other=b.const(0.0, f32))
    b.store(b.view(out, z), b.mk("reshape", (b.reduce(t, "sum", 0, keepdims=True),), ir.TileType(f32, (1,)), shape=(1,)))
    k = kernel("red", [x, out], b.block([x, out]))
    xs = np.arange(2, 33, 2, dtype=np.float32)
    xs = np.concatenate([xs, np.full(300, 1e9, np.float32)])
    o = np.zeros(1, np.float32)
    run(k, isa, [xs, o])
    assert o[0] == 272.0


@pytest.mark.parametrize("isa", ISAS)
def test_argmax_nan_ties_c16_c17(isa):
    ks = [reduce_kernel("argmax", 1, 3, 1, name="amax3"), reduce_kernel("argmin", 1, 3, 1, name="amin3"),
          reduce_kernel("argmax", 4, 3, 0, DType.int32, name="ax0"),
          reduce_kernel("argmax", 4, 3, 1, DType.int32, name="ax1"),
          reduce_kernel("argmax", 1, 33, 1, name="am33"), reduce_kernel("argmax", 1, 1025, 1, name="am1025")]
    lib = Loaded(compile_bundle(ks, isa))
    for row, am, an in (([np.nan, 2.5, 3.0], 0, 0), ([1.0, np.nan, 3.0], 1, 1)):
        a = np.array([row], np.float32)
        for name, want in (("amax3", am), ("amin3", an)):
            o = np.full(1, -1, np.int32)
            lib(name, [a, o], grid=(1,))
            assert o[0] == want
    m = np.array([[3, 1, 4], [4, 4, 1], [1, 4, 4], [4, 2, 4]], np.int32)
    for name, want in (("ax0", [1, 1, 0]), ("ax1", [2, 0, 1, 0])):
        o = np.full(len(want), -1, np.int32)
        lib(name, [m, o], grid=(1,))
        np.testing.assert_array_equal(o, want)
    for n in (33, 1025):
        a = np.zeros((1, n), np.float32)
        a[0, 0] = a[0, -1] = 5
        o = np.full(1, -1, np.int32)
        lib(f"am{n}", [a, o], grid=(1,))
        assert o[0] == 0


@pytest.mark.parametrize("isa", ISAS)
def test_reduce_axis0_random(isa):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((7, 37)).astype(np.float32)
    pairs = (("sum", np.sum), ("max", np.max), ("min", np.min), ("argmin", np.argmin))
    lib = Loaded(compile_bundle([reduce_kernel(op, 7, 37, 0, name=op) for op, _ in pairs], isa))
    for op, f in pairs:
        o = np.full(37, -7, np.int32 if op.startswith("arg") else np.float32)
        lib(op, [a, o], grid=(1,))
        np.testing.assert_allclose(o, f(a.astype(np.float64), axis=0), rtol=1e-6, atol=1e-5 * 7)


def dot_kernel(M, K, N):
    a, bb, c = targ("a", 0, f32, 2), targ("b", 1, f32, 2), targ("c", 2, f32, 2)
    b = B()
    z = b.const(0)
    ta = b.load(b.view(a, z, z), (M, K))
    tb = b.load(b.view(bb, z, z), (K, N))
    b.store(b.view(c, z, z), b.dot(ta, tb))
    return kernel("mm", [a, bb, c], b.block([a, bb, c]))


@pytest.mark.parametrize("isa", ISAS)
def test_dot(isa):
    rng = np.random.default_rng(4)
    for M, K, N in ((16, 16, 16), (5, 7, 33), (1, 1, 1), (9, 13, 70), (8, 64, 128)):
        A = rng.standard_normal((M, K)).astype(np.float32)
        Bm = rng.standard_normal((K, N)).astype(np.float32)
        C = np.full((M, N), np.nan, np.float32)
        run(dot_kernel(M, K, N), isa, [A, Bm, C])
        np.testing.assert_allclose(C, A.astype(np.float64) @ Bm, rtol=1e-5, atol=1e-5 * K)
    A = np.zeros((16, 16), np.float32)
    A[0, 0] = 1 + 2.0 ** -13
    C = np.zeros((16, 16), np.float32)
    run(dot_kernel(16, 16, 16), isa, [A, np.eye(16, dtype=np.float32), C])
    assert C[0, 0] == np.float32(1.0001220703125)   # docs/semantics.md#c-03
    # blocked and plain parts agree bit for bit: every row equal when A's rows are equal
    A = np.tile(rng.standard_normal((1, 13)).astype(np.float32), (9, 1))
    Bm = rng.standard_normal((13, 70)).astype(np.float32)
    C = np.full((9, 70), np.nan, np.float32)
    run(dot_kernel(9, 13, 70), isa, [A, Bm, C])
    assert (C == C[8]).all()


@pytest.mark.parametrize("isa", ISAS)
def test_strided_negative_views_and_store_edges(isa):
    """copy kernel: out[r:r+4, c:c+8] = x[...] with x a negative-stride / transposed view."""
    x, out = targ("x", 0, f32, 2), targ("out", 1, f32, 2)
    b = B()
    r = b.ew("mul", b.pid(0), b.const(4))
    c = b.ew("mul", b.pid(1), b.const(8))
    t = b.load(b.view(x, r, c), (4, 8))
    b.store(b.view(out, r, c), b.mk("trans", (b.mk("trans", (t,), ir.TileType(f32, (8, 4)), perm=(1, 0)),),
                                    ir.TileType(f32, (4, 8)), perm=(1, 0)))
    k = kernel("cp", [x, out], b.block([x, out]))
    base = np.arange(11 * 13, dtype=np.float32).reshape(11, 13)
    for src in (base[::-1, ::-2], base.T, base[2:9, 1:12]):
        o = np.full(src.shape, np.nan, np.float32)
        run(k, isa, [src, o], grid=(-(-src.shape[0] // 4), -(-src.shape[1] // 8)))
        np.testing.assert_array_equal(o, src)
    # stores past the edge are dropped: a 3x5 output inside a poisoned frame
    frame = np.full((5, 7), -1.0, np.float32)
    o = frame[1:4, 1:6]
    run(k, isa, [base[:3, :5].copy(), o], grid=(1, 1))
    np.testing.assert_array_equal(o, base[:3, :5])
    assert (frame[0] == -1).all() and (frame[4] == -1).all() and (frame[:, 0] == -1).all() and (frame[:, 6] == -1).all()


@pytest.mark.parametrize("isa", ISAS)
def test_for_loop_carried_and_if(isa):
    """rowmax with a runtime loop over columns, then an if on a scalar arg choosing +1 or -1."""
    x, out, flag = targ("x", 0, f32, 2), targ("out", 1, f32, 1), sarg("flag", 2)
    b = B()
    z = b.const(0)
    row = b.pid(0)
    init = b.mk("splat", (b.const(float("-inf"), f32),), ir.TileType(f32, (1,)), shape=(1,))
    n = b.mk("dim", (x,), ir.ScalarType(DType.int64), axis=1)
    body = B()
    iv = ir.make("arg", (), ir.ScalarType(DType.int64), name="i", index=0)
    m = ir.make("arg", (), ir.TileType(f32, (1,)), name="m", index=1)
    t = body.load(body.view(x, row, iv), (1, 16), other=body.const(float("-inf"), f32))
    nm = body.ew("maximum", m, body.reduce(t, "max", 1))
    body.mk("yield", (nm,))
    loop = b.mk("for", (z, n, b.const(16), init), ir.TupleType((ir.TileType(f32, (1,)),)), (body.block([iv, m]),))
    res = b.mk("getitem", (loop,), ir.TileType(f32, (1,)), index=0)
    cond = b.ew("ne", flag, z)
    tb, eb = B(), B()
    tb.mk("yield", (tb.ew("add", res, tb.mk("splat", (tb.const(1.0, f32),), ir.TileType(f32, (1,)), shape=(1,))),))
    eb.mk("yield", (eb.ew("sub", res, eb.mk("splat", (eb.const(1.0, f32),), ir.TileType(f32, (1,)), shape=(1,))),))
    iff = b.mk("if", (cond,), ir.TupleType((ir.TileType(f32, (1,)),)), (tb.block(), eb.block()))
    b.store(b.view(out, row), b.mk("getitem", (iff,), ir.TileType(f32, (1,)), index=0))
    k = kernel("rm", [x, out, flag], b.block([x, out, flag]))
    rng = np.random.default_rng(6)
    a = rng.standard_normal((5, 41)).astype(np.float32)
    for fl in (0, 1):
        o = np.full(5, np.nan, np.float32)
        run(k, isa, [a, o, fl], grid=(5,))
        np.testing.assert_array_equal(o, a.max(1) + (1 if fl else -1))


@pytest.mark.parametrize("isa", ISAS)
def test_row_reductions_random_ties_nan(isa):
    rng = np.random.default_rng(8)
    ks = [reduce_kernel(op, 6, 77, 1, name=op) for op in ("argmax", "argmin", "max", "min", "sum")]
    lib = Loaded(compile_bundle(ks, isa))
    a = rng.integers(-3, 4, (6, 77)).astype(np.float32)
    a[1, 40] = np.nan
    a[2, 5] = a[2, 70] = np.nan
    a[3, 76] = np.nan
    a[4, 3] = -0.0
    for op, f in (("argmax", np.argmax), ("argmin", np.argmin), ("max", np.max), ("min", np.min),
                  ("sum", np.sum)):
        o = np.full(6, -9, np.int32 if op.startswith("arg") else np.float32)
        lib(op, [a, o], grid=(1,))
        np.testing.assert_array_equal(o, f(a, axis=1))


def test_pass_pipeline_output_runs():
    """Post-pipeline IR from the PASSES engineer's builders compiles and runs (rowmax loop)."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "passes"))
    import builders
    from tlc.driver import run_pipeline
    m = run_pipeline(builders.loop_module(), VARIANTS["avx512"])
    k = m.kernels[0]
    assert k.name == "rowmax"
    rng = np.random.default_rng(9)
    x = rng.standard_normal((3, 50)).astype(np.float32)
    for isa in ISAS:
        lib = Loaded(compile_bundle([k], isa))
        out = np.full((3, 16), np.nan, np.float32)
        lib("rowmax", [x, out], grid=(3,))
        pad = np.zeros((3, 64), np.float32)
        pad[:, :50] = x
        np.testing.assert_array_equal(out, np.abs(pad).reshape(3, 4, 16).max(1))
