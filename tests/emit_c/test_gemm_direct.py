"""The x86 GEMM paths that read the operands in place (tlc/emit_asm/gemm.py): the one-row GEMV
kernel (M == 1, B streamed at its run-time row stride, up to 16/12 accumulators per call; wider N
in passes of 4 rows over all columns), and the dots with several row blocks whose A is copied by
the dot itself while the next K step's A and B are prefetched. Operands are windows of larger arrays (row strides !=
the tile widths) and, for the copy fallbacks, column-strided views. Results equal float64 NumPy
to fp32 accuracy and the portable vector loops bit for bit (same fma order)."""
import numpy as np
import pytest

from harness import VARIANTS, compile_bundle, dot_kernel, Loaded, run_micro_and_portable

UK_ISAS = sorted(isa for isa, v in VARIANTS.items() if v.ukernel in ("avx512", "avx2"))
SHAPES = ([(1, k, n) for k in (1, 3, 5, 130) for n in (16, 48, 256, 272, 400)]
          # wide N: gemm_row_stream.j2 (N = 333: row stride (N + 3) * 4 a multiple of 64 bytes, B
          # off its 64-byte lines by the same bytes in every row: the AVX-512 shifted passes)
          + [(1, 7, 9), (1, 4, 40), (1, 6, 288), (1, 9, 320), (1, 9, 333)]
          + [(13, 9, 64), (25, 33, 96), (40, 130, 48), (7, 5, 32), (30, 17, 200)])


@pytest.mark.parametrize("isa", UK_ISAS)
def test_in_place_operands(isa):
    v = VARIANTS[isa]
    ks = []
    for n, (M, K, N) in enumerate(SHAPES):
        for micro in (True, False):
            ks.append(dot_kernel(f"mm{n}_{int(micro)}", M, K, N, v, n % 2 == 1, micro, a_at=(1, 2), b_at=(3, 1))[0])
    lib = Loaded(compile_bundle(ks, isa))
    rng = np.random.default_rng(11)
    for n, (M, K, N) in enumerate(SHAPES):
        with_acc = n % 2 == 1
        for layout in ("window", "strided"):      # in place / column stride 2 (tile copy fallback)
            s = 2 if layout == "strided" else 1
            A = rng.standard_normal((M + 3, s * (K + 5))).astype(np.float32)
            Bm = rng.standard_normal((K + 6, s * (N + 3))).astype(np.float32)
            A, Bm = A[:, ::s], Bm[:, ::s]
            C0 = rng.standard_normal((M, N)).astype(np.float32)
            outs = run_micro_and_portable(lib, n, A, Bm, C0, with_acc)
            want = A[1:1 + M, 2:2 + K].astype(np.float64) @ Bm[3:3 + K, 1:1 + N] + (C0 if with_acc else 0)
            np.testing.assert_allclose(outs[0], want, rtol=1e-5, atol=1e-5 * (K + 1),
                                       err_msg=f"{isa} {layout} {M}x{K}x{N}")
            assert np.array_equal(outs[0], outs[1]), f"{isa} {layout} {M}x{K}x{N}: microkernel != portable"


def test_row_kernel_chunks():
    """One-row dots split N into near-equal chunks of at most ROW_CAP vectors."""
    from tlc.emit_asm import gemm
    assert gemm.b_from_source("avx512", 1, 1, 256) and not gemm.b_from_source("avx512", 1, 1, 250)
    assert not gemm.b_from_source("neon", 1, 1, 256)          # no one-row kernel there
    assert gemm.a_from_source("avx2", 13, 6) and not gemm.a_from_source("avx2", 6, 6)
    name, src = gemm.row_function("avx512", 16, 5, True)
    assert src.count("vfmadd231ps") == 16 * 5 and "prefetcht0" in src
    # wider than ROW_CAP vectors: passes of 4 rows over all columns, 4 vectors per loop step
    # (K = 9: a first pass from zero, one looped pass, a one-row tail pass); AVX-512 also has the
    # shifted passes for B off 64-byte lines (first and last vector stored under masks k1, k2)
    name, src = gemm.row_stream_function("avx2", 20, 9, False)
    assert src.count("vfmadd231ps") == 4 * 4 + 4 * 4 + 1 * 4 and src.count("vxorps") == 4 and "%%k1" not in src
    name, src = gemm.row_stream_function("avx512", 20, 9, False)
    assert src.count("vfmadd231ps") == (4 + 4 + 1) * 4 + (4 + 4 + 1) * (1 + 4 + 3 + 1)   # head, loop, 3, last
    assert src.count("%{%%k1%}") == src.count("%{%%k2%}") == 3
