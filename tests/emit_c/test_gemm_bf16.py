"""The AVX-512 BF16 GEMM microkernel (tlc/emit_asm/gemm_bf16.py, vdpbf16ps) reached from a
bfloat16 ``dot``: every edge of the register block (M, N, K from 1 to past 2x the block, odd K,
N not a multiple of 16), with and without an accumulator, with A/B packed straight from the
tensors (in bounds, unit stride), from the float32 tiles (strided operands) and from
zero-filled edge tiles; against float64 NumPy on the bfloat16 values with the documented
contract |C - A @ B| <= (K + 1) * 2**-23 * (|A| @ |B| + |C0|). The same kernels on the plain
x86_64-avx512 variant (float32 path) meet the same contract. Denormal handling of each path
is pinned down (vdpbf16ps: inputs read as zero, results flushed)."""

import numpy as np
import pytest

from tl import _runtime
import tl.ops as ops
from harness import B, Loaded, compile_bundle, dot_kernel, targ
from tlc.emit_asm import gemm_bf16
from tlc.lower.dtypes import DType
from tlc.backends.cpu.passes import lower_dot
from tlc.backends import resolve

BF16V, AVX512V = resolve("x86_64-avx512bf16,x86_64-avx512")
HAS_BF16 = "avx512bf16" in _runtime.cpu_features()
bf16 = ops.bfloat16


def _shapes():
    out = [(m, 6, 40) for m in range(1, 30)]                      # mr is 12 or 14 here
    out += [(13, 5, n) for n in (1, 7, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 80, 95, 96, 97)]
    out += [(9, k, 48) for k in (1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 17, 31, 33)]
    out += [(25, 33, 61), (30, 17, 100), (3, 2, 7), (1, 1, 1)]
    return out


def _bound(A, Bm, C0):
    k = A.shape[1]
    mag = np.abs(A.astype(np.float64)) @ np.abs(Bm.astype(np.float64)) + np.abs(C0)
    return (k + 1) * 2.0 ** -23 * mag


def _run_all(lib, shapes, layout, rng):
    """Runs every shape; layout: "direct" (exact-size contiguous operands), "strided" (inner
    stride 2: the float32 tiles are packed) or "edge" (operands one row/column short of the
    tile: zero-filled edge tiles)."""
    for n, (M, K, N) in enumerate(shapes):
        with_acc = n % 2 == 1
        A = rng.standard_normal((M, K)).astype(bf16)
        Bm = rng.standard_normal((K, N)).astype(bf16)
        if layout == "strided":
            A2 = np.zeros((M, 2 * K), bf16)
            A2[:, ::2] = A
            B2 = np.zeros((K, 2 * N), bf16)
            B2[:, ::2] = Bm
            a_arg, b_arg = A2[:, ::2], B2[:, ::2]
        elif layout == "edge":
            if K > 1:
                A[:, -1] = 0          # the K column the tensors lack reads as 0 on both sides
                Bm[-1, :] = 0
            a_arg, b_arg = np.ascontiguousarray(A[:, :max(K - 1, 1)]), np.ascontiguousarray(Bm[:max(K - 1, 1)])
            if K == 1:
                a_arg, b_arg = A, Bm
        else:
            a_arg, b_arg = A, Bm
        C0 = rng.standard_normal((M, N)).astype(np.float32)
        C = C0.copy() if with_acc else np.full((M, N), np.nan, np.float32)
        lib(f"mm{n}", [a_arg, b_arg, C], grid=(1,))
        acc0 = C0.astype(np.float64) if with_acc else 0.0
        want = A.astype(np.float64) @ Bm.astype(np.float64) + acc0
        err = np.abs(C - want)
        bound = _bound(A, Bm, np.abs(acc0))
        assert np.isfinite(C).all() and (err <= bound).all(), \
            f"{layout} {M}x{K}x{N} acc={with_acc}: max err {err.max()}, bound {bound[err > bound][:3]}"


@pytest.mark.parametrize("variant", [BF16V, AVX512V], ids=lambda v: v.name)
@pytest.mark.parametrize("layout", ["direct", "strided", "edge"])
def test_bf16_dot_edges(variant, layout):
    if variant is BF16V and not HAS_BF16:
        pytest.skip("this CPU has no AVX512_BF16")
    shapes = _shapes()
    ks = []
    for n, (M, K, N) in enumerate(shapes):
        k, uk = dot_kernel(f"mm{n}", M, K, N, variant, n % 2 == 1, in_dt=DType.bfloat16)
        if variant is BF16V:
            assert uk is not None and uk[0] == "avx512bf16", (M, K, N, uk)
        else:
            assert uk is None or uk[0] == "avx512"
        ks.append(k)
    lib = Loaded(compile_bundle(ks, variant))
    _run_all(lib, shapes, layout, np.random.default_rng(hash(layout) % 1000))


def test_choose_bf16_blocks():
    assert gemm_bf16.choose(32, 256, 256, 256) == (12, 2)
    assert gemm_bf16.choose(32, 5, 7, 17) == (5, 2)      # 17 columns: two vectors, the last masked
    assert gemm_bf16.choose(32, 1, 1, 1) == (1, 1)
    assert gemm_bf16.choose(32, 0, 4, 4) is None
    # float32 dots on the bf16 variant keep the float32 microkernel
    a, bb = targ("a", 0, DType.float32, 2), targ("b", 1, DType.float32, 2)
    b = B()
    z = b.const(0)
    d = b.dot(b.load(b.view(a, z, z), (64, 32)), b.load(b.view(bb, z, z), (32, 64)))
    assert lower_dot.choose(d, BF16V)[0] == "avx512"


def _one(variant, a, b):
    k = dot_kernel("one", 1, a.shape[1], 16, variant, False, in_dt=DType.bfloat16)[0]
    lib = Loaded(compile_bundle([k], variant))
    c = np.full((1, 16), np.nan, np.float32)
    lib("one", [a, b, c], grid=(1,))
    return c


def test_denormals_and_specials():
    """vdpbf16ps reads bfloat16 denormal inputs as zero and flushes results below 2**-126 (Intel
    SDM, VDPBF16PS); the float32 path keeps both. NaN and inf propagate on both."""
    tiny = np.float32(2.0 ** -130)                       # a bfloat16 denormal
    a = np.array([[tiny, 1.0]], np.float32).astype(bf16)
    b = np.ones((2, 16), np.float32).astype(bf16)
    b[1] = 0
    small = np.array([[2.0 ** -70, 0]], np.float32).astype(bf16)   # product 2**-140
    bs = np.zeros((2, 16), np.float32).astype(bf16)
    bs[0] = np.float32(2.0 ** -70)
    special = np.array([[np.inf, np.nan]], np.float32).astype(bf16)
    bsp = np.ones((2, 16), np.float32).astype(bf16)
    f32 = _one(AVX512V, a, b)
    assert (f32 == np.float32(tiny)).all()
    assert (_one(AVX512V, small, bs) == np.float32(2.0 ** -140)).all()
    assert np.isnan(_one(AVX512V, special, bsp)).all()
    if not HAS_BF16:
        pytest.skip("this CPU has no AVX512_BF16")
    assert (_one(BF16V, a, b) == 0).all()
    assert (_one(BF16V, small, bs) == 0).all()
    assert np.isnan(_one(BF16V, special, bsp)).all()
    inf = np.array([[np.inf, 1]], np.float32).astype(bf16)
    assert (_one(BF16V, inf, bsp) == np.inf).all()
