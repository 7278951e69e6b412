"""Elementwise ops through lone tile ops and ``fused`` regions: tails 1..2L+1, specials,
integer floor division (docs/semantics.md#c-18), IEEE min/max with signed zeros
(docs/semantics.md#c-19), casts and rounding, all variants bit-identical."""
import numpy as np
import pytest

from harness import VARIANTS, compile_bundle, Loaded
from tlc.lower.dtypes import DType
from unary import ew_kernel

ISAS = sorted(VARIANTS)


def call(k, isa, *xs, out_dtype=np.float32, poison=np.nan):
    n = len(xs[0])
    out = np.full(n, poison, out_dtype)
    Loaded(compile_bundle([k], isa))("k", [*xs, out], grid=(max(1, -(-n // 64)),))
    return out


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("fused", [False, True])
def test_tails_add(isa, fused):
    lanes = VARIANTS[isa].lanes
    k = ew_kernel("k", "add", 2, BLOCK=2 * lanes + 1, fused=fused)
    lib = Loaded(compile_bundle([k], isa))
    rng = np.random.default_rng(1)
    for n in range(1, 2 * lanes + 2):
        x, y = rng.standard_normal((2, n)).astype(np.float32)
        # exact-size buffers: nothing past n may be touched
        out = np.full(n, np.nan, np.float32)
        lib("k", [x, y, out], grid=(1,))
        np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("isa", ISAS)
def test_minmax_signed_zero_nan(isa):
    a = np.array([-0.0, 0.0, np.nan, 1.0, -np.inf, 3.0], np.float32)
    b = np.array([0.0, -0.0, 1.0, np.nan, 2.0, 3.0], np.float32)
    mn = call(ew_kernel("k", "minimum", 2), isa, a, b)
    mx = call(ew_kernel("k", "maximum", 2), isa, a, b)
    assert np.signbit(mn[:2]).all() and not np.signbit(mx[:2]).any()
    assert np.isnan(mn[2:4]).all() and np.isnan(mx[2:4]).all()
    np.testing.assert_array_equal(mn[4:], [-np.inf, 3.0])
    np.testing.assert_array_equal(mx[4:], [2.0, 3.0])


@pytest.mark.parametrize("isa", ISAS)
@pytest.mark.parametrize("dt,npdt", [(DType.int32, np.int32), (DType.int64, np.int64)])
def test_int_floordiv_mod(isa, dt, npdt):
    info = np.iinfo(npdt)
    a = np.array([info.min, 7, -7, 7, -7, 0, 5, info.min, 13], npdt)
    b = np.array([-1, -2, 2, 2, -2, 3, 0, 3, -4], npdt)
    fd = call(ew_kernel("k", "floordiv", 2, dt=dt), isa, a, b, out_dtype=npdt, poison=99)
    md = call(ew_kernel("k", "mod", 2, dt=dt), isa, a, b, out_dtype=npdt, poison=99)
    with np.errstate(all="ignore"):
        want_fd = np.where(b == 0, 0, np.floor_divide(a, np.where(b == 0, 1, b)))
        want_md = np.where(b == 0, 0, np.remainder(a, np.where(b == 0, 1, b)))
    want_fd[0] = info.min   # INT_MIN // -1 wraps
    np.testing.assert_array_equal(fd, want_fd)
    np.testing.assert_array_equal(md, want_md)


@pytest.mark.parametrize("isa", ISAS)
def test_float_remainder_c08(isa):
    x = np.array([-1.25, -0.5, -0.0, 0.0, 0.75, 2.5], np.float32)
    y = np.ones_like(x)
    r = call(ew_kernel("k", "mod", 2), isa, x, y)
    f = call(ew_kernel("k", "fmod", 2), isa, x, y)
    np.testing.assert_array_equal(r, [0.75, 0.5, 0.0, 0.0, 0.75, 0.5])
    assert not np.signbit(r[2])
    np.testing.assert_array_equal(f, [-0.25, -0.5, -0.0, 0.0, 0.75, 0.5])
    assert np.signbit(f[2])


@pytest.mark.parametrize("isa", ISAS)
def test_floor_ceil_c19(isa):
    x = np.array([-0.5, 0.5, -0.0, 1.5, -1.5, 1e30, np.nan, -np.inf, 8388609.0, -2.0], np.float32)
    fl = call(ew_kernel("k", "floor"), isa, x)
    ce = call(ew_kernel("k", "ceil"), isa, x)
    np.testing.assert_array_equal(fl, np.floor(x))
    np.testing.assert_array_equal(ce, np.ceil(x))
    np.testing.assert_array_equal(np.signbit(ce), np.signbit(np.ceil(x)))
    assert 1 / (ce[0] + np.float32(0.0)) == np.inf


@pytest.mark.parametrize("isa", ISAS)
def test_f16_bf16_round_trip(isa):
    rng = np.random.default_rng(5)
    bits = np.arange(0, 1 << 16, dtype=np.uint32).astype(np.uint16)
    # every float16 bit pattern: load f16 -> float -> store f16 is the identity (NaNs stay NaN)
    h = bits.view(np.float16)[:65533]   # last block partial: masked path too
    out = call(ew_kernel("k", "abs", dt=DType.float16), isa, h, out_dtype=np.float16)
    np.testing.assert_array_equal(out.view(np.uint16)[~np.isnan(h)], np.abs(h).view(np.uint16)[~np.isnan(h)])
    assert np.isnan(out[np.isnan(h)]).all()
    # float32 -> float16 rounding (RNE, overflow to inf, subnormals) matches numpy
    x = np.concatenate([rng.standard_normal(5000) * 1e3, rng.standard_normal(5000) * 1e-6,
                        [65519.0, 65520.0, 1e6, -1e6, 2.0 ** -25, 2.0 ** -25 * 1.5, 0.0, -0.0]]).astype(np.float32)
    out = call(ew_kernel("k", "cast", cast_to=DType.float16, out_dt=DType.float16), isa, x, out_dtype=np.float16)
    np.testing.assert_array_equal(out.view(np.uint16), x.astype(np.float16).view(np.uint16))
    # float32 -> bfloat16 (stored as uint16): RNE on the bits
    out = call(ew_kernel("k", "cast", cast_to=DType.bfloat16, out_dt=DType.bfloat16), isa, x, out_dtype=np.uint16, poison=0)
    u = x.view(np.uint32).astype(np.uint64)
    want = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("isa", ISAS)
def test_compare_to_bool_and_int8_wrap(isa):
    a = np.array([1.0, np.nan, -0.0, 2.0, 5.0], np.float32)
    b = np.array([2.0, 1.0, 0.0, 2.0, 1.0], np.float32)
    lt = call(ew_kernel("k", "lt", 2), isa, a, b, out_dtype=np.uint8, poison=7)
    np.testing.assert_array_equal(lt, (a < b).astype(np.uint8))
    eq = call(ew_kernel("k", "eq", 2), isa, a, b, out_dtype=np.uint8, poison=7)
    np.testing.assert_array_equal(eq, (a == b).astype(np.uint8))
    x = np.array([127, -128, 100, -1], np.int8)
    s = call(ew_kernel("k", "add", 2, dt=DType.int8), isa, x, x, out_dtype=np.int8, poison=0)
    np.testing.assert_array_equal(s, (x.astype(np.int32) * 2).astype(np.int8))


@pytest.mark.parametrize("isa", ISAS)
def test_large_offsets_c01(isa):
    """Program 2^21 of tile 1024 starts at element 2^31: a zero-stride tensor of 2^31 + 1030
    elements (one real element) is read and written there without 32-bit overflow."""
    k = ew_kernel("k", "add", 2, BLOCK=1024)
    lib = Loaded(compile_bundle([k], isa))
    x = np.lib.stride_tricks.as_strided(np.array([2.5], np.float32), (2**31 + 1030,), (0,))
    out_base = np.full(1, np.nan, np.float32)
    out = np.lib.stride_tricks.as_strided(out_base, (2**31 + 1030,), (0,))
    lib("k", [x, x, out], grid=(2**21 + 2,), programs=(2**21 + 1, 2**21 + 2))   # partial last tile
    assert out_base[0] == 5.0


@pytest.mark.parametrize("isa", ISAS)
def test_fused_broadcast_scalar(isa):
    """out(4,37) = x * col(4,1) + row(1,37) - s, one fused region with splatted inputs."""
    from harness import B, kernel, sarg, targ
    from tlc.lower import ir
    f32 = DType.float32
    args = [targ("x", 0, f32, 2), targ("col", 1, f32, 2), targ("row", 2, f32, 2), sarg("s", 3, f32),
            targ("out", 4, f32, 2)]
    b = B()
    z = b.const(0)
    x = b.load(b.view(args[0], z, z), (4, 37))
    c = b.load(b.view(args[1], z, z), (4, 1))
    r = b.load(b.view(args[2], z, z), (1, 37))
    fb = B()
    fa = [ir.make("arg", (), ir.ScalarType(f32), name=f"in{i}", index=i) for i in range(4)]
    y = fb.ew("sub", fb.ew("add", fb.ew("mul", fa[0], fa[1]), fa[2]), fa[3])
    fb.mk("yield", (y,))
    f = b.mk("fused", (x, c, r, args[3]), ir.TupleType((ir.TileType(f32, (4, 37)),)), (fb.block(fa),),
             shape=(4, 37), lanes=VARIANTS[isa].lanes, inner=1)
    g = b.mk("getitem", (f,), ir.TileType(f32, (4, 37)), index=0)
    b.store(b.view(args[4], z, z), g)
    k = kernel("k", args, b.block(args))
    rng = np.random.default_rng(2)
    X = rng.standard_normal((4, 37)).astype(np.float32)
    Cc = rng.standard_normal((4, 1)).astype(np.float32)
    Rr = rng.standard_normal((1, 37)).astype(np.float32)
    out = np.full((4, 37), np.nan, np.float32)
    Loaded(compile_bundle([k], isa))("k", [X, Cc, Rr, 1.5, out], grid=(1,))
    np.testing.assert_array_equal(out, X * Cc + Rr - np.float32(1.5))


def _guarded(n, dtype=np.float32):
    """An array of n elements ending exactly at a PROT_NONE page (docs/semantics.md#c-09)."""
    import ctypes, mmap
    page = mmap.PAGESIZE
    m = mmap.mmap(-1, 2 * page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc = ctypes.CDLL(None)
    assert libc.mprotect(ctypes.c_void_p(base + page), page, 0) == 0
    nbytes = n * np.dtype(dtype).itemsize
    arr = np.frombuffer(m, dtype=np.uint8, count=nbytes, offset=page - nbytes).view(dtype)
    return arr, m


@pytest.mark.parametrize("isa", ISAS)
def test_guard_page_tails_c09(isa):
    lanes = VARIANTS[isa].lanes
    for fused in (False, True):
        k = ew_kernel("k", "add", 2, BLOCK=lanes, fused=fused)
        lib = Loaded(compile_bundle([k], isa))
        for n in range(1, 2 * lanes + 2):
            x, mx = _guarded(n)
            y, my = _guarded(n)
            out, mo = _guarded(n)
            x[:] = np.arange(n)
            y[:] = 1
            out[:] = np.nan
            lib("k", [x, y, out], grid=(-(-n // lanes),))
            np.testing.assert_array_equal(out, np.arange(n) + 1)
            del x, y, out
