"""The assembly GEMM microkernels (tlc/emit_asm) reached from ``dot``: every edge of the register
block (M, N, K from 1 to past 2x the block, odd sizes), with and without an accumulator, on every
variant that has a microkernel family; results equal float64 NumPy to fp32 accuracy and the
portable vector loops bit for bit (same fma order)."""
import numpy as np
import pytest

from harness import VARIANTS, compile_bundle, dot_kernel, Loaded, run_micro_and_portable

UK_ISAS = sorted(isa for isa, v in VARIANTS.items() if v.ukernel)


def _shapes():
    out = [(m, 5, 97) for m in range(1, 18)]
    out += [(9, 7, n) for n in (1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 40, 47, 48, 49, 63, 64, 80, 95, 96, 97)]
    out += [(8, k, 48) for k in (1, 2, 3, 4, 5, 7, 8, 9, 31)]
    out += [(13, 33, 61), (24, 17, 144), (3, 2, 7)]
    return out


@pytest.mark.parametrize("isa", UK_ISAS)
def test_ukernel_edges(isa):
    """One bundle per variant; odd-numbered shapes accumulate into a loaded C tile."""
    v = VARIANTS[isa]
    shapes = _shapes()
    ks, used = [], 0
    for n, (M, K, N) in enumerate(shapes):
        for micro in (True, False):
            k, uk = dot_kernel(f"mm{n}_{int(micro)}", M, K, N, v, n % 2 == 1, micro)
            used += uk is not None
            ks.append(k)
    assert used == sum(N >= v.lanes for _, _, N in shapes)     # only N < lanes falls back
    lib = Loaded(compile_bundle(ks, isa))
    rng = np.random.default_rng(7)
    for n, (M, K, N) in enumerate(shapes):
        with_acc = n % 2 == 1
        A = rng.standard_normal((M, K)).astype(np.float32)
        Bm = rng.standard_normal((K, N)).astype(np.float32)
        C0 = rng.standard_normal((M, N)).astype(np.float32)
        outs = run_micro_and_portable(lib, n, A, Bm, C0, with_acc)
        want = A.astype(np.float64) @ Bm + (C0 if with_acc else 0)
        np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=1e-5 * (K + 1), err_msg=f"{M}x{K}x{N}")
        assert np.array_equal(outs[0], outs[1]), f"{isa} {M}x{K}x{N}: microkernel != portable loops"


def test_choose_blocks():
    v = VARIANTS["avx512"]
    from tlc.emit_asm import gemm
    assert gemm.choose("avx512", v.vregs, 16, 64, 32, 192) == (8, 3)
    assert gemm.choose("avx512", v.vregs, 16, 1, 32, 192) == (1, 3)
    assert gemm.choose("avx512", v.vregs, 16, 64, 32, 8) is None
    assert gemm.choose("avx2", 16, 8, 64, 32, 64) == (6, 2)
    assert gemm.choose("sse2", 16, 4, 64, 32, 64) is None
