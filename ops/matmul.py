"""Batched matmul: c[z] = a[z] @ b[z] with float32 accumulation and float32 output.

``a``: (B, M, K), ``b``: (B, K, N) of dtype DT (float32, float16 or bfloat16), ``c``: (B, M, N) float32;
any strides (a zero batch stride broadcasts). Grid (cdiv(M, BM), cdiv(N, BN), B); each program
computes a BM x BN tile of c (256 x 128), stepping K by BK = 128 (the K tail reads zeros); the
``dot`` is emitted with the target's assembly microkernel (tlc/emit_asm) where it has one.
``matmul_rows`` is the same computation for fewer rows (M <= 128): BM in {1, 8, 16, 32, 128},
BN = 256, so skinny products stream b once instead of computing 256-row tiles of zeros. fp32 products are IEEE
fp32 (no reduced precision). ``matmul_big`` is ``matmul`` with bigger tiles (float32 only). Wide, 256 x 256:
each packed A block feeds twice as many columns, so A is copied half as often (the copies, not
the FMAs, were ~20% of the time at 1024..4096 by perf on Zen 5); ``tl.ops.matmul`` uses it when
the product is large enough to keep both threads busy. Tall, 512 x 128: each packed B panel feeds twice as many rows, so B is packed half
as often per FMA (Zen 5, 1 thread, same-run A/B against the wide tiles, medians: +2% at 1024, +3% at
2048, within noise at 4096); ``tl.ops.matmul`` uses it from 1024 rows where 512-row tiles waste no
more rows than 256-row ones. Instances:
``matmul__DT_float32``, ``matmul__DT_bfloat16``, ``matmul_big__BM_256__BN_256__DT_float32`` (wide),
``matmul_big__BM_512__BN_128__DT_float32`` (tall). float16 (``matmul``, ``matmul_rows``, ``matmul_big``
with ``DT_float16``): tiles load as float32 lanes (F16C ``vcvtph2ps`` on x86 AVX2/AVX-512, exact), then
the float32 microkernel runs unchanged, so a float16 product is the float32 product of the exactly
widened inputs (float32 accumulation, the one rounding is the caller's cast of c).
``matmul_gemv`` (float32, BN in {1024, 2048, 4096}: ``matmul_gemv__BN_2048``, ...) is one row of c
and BN columns per program for memory-bound products with M == 1: its x86 ``dot`` reads B in place
in passes of 4 rows across all BN columns (tlc/emit_asm/templates/gemm_row_stream.j2), 4 long
contiguous streams that the hardware prefetcher follows, where 256-column programs read each B row
as a 1 KB piece (Zen 5, 1 thread, K = N = 4096, B from DRAM: 44 vs 36 GB/s in a C harness);
``tl.ops.matmul`` uses it on x86 bundles for one row when k * n >= 2^20 and a BN divides n.
"""
import tl


@tl.func
def matmul_tile(a, b, c, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """The BM x BN tile of c[z] = a[z] @ b[z] at program (row block, column block, z), in K steps
    of BK (the shared body of every kernel here)."""
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    z = tl.program_id(2)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, a.shape[2], BK):
        at = tl.reshape(tl.load(a + (z, i, k), (1, BM, BK)), (BM, BK))
        bt = tl.reshape(tl.load(b + (z, k, j), (1, BK, BN)), (BK, BN))
        acc = tl.dot(at, bt, acc)
    tl.store(c + (z, i, j), tl.reshape(acc, (1, BM, BN)))


@tl.kernel(grid=lambda a, b, c: (tl.cdiv(c.shape[1], 256), tl.cdiv(c.shape[2], 128), c.shape[0]),
           specializations=[dict(DT=tl.float32), dict(DT=tl.bfloat16), dict(DT=tl.float16)])
def matmul(a: tl.tensor(DT, ("Z", "M", "K")), b: tl.tensor(DT, ("Z", "K", "N")),
           c: tl.tensor(tl.float32, ("Z", "M", "N")),
           DT: tl.constexpr = tl.float32, BM: tl.constexpr = 256, BN: tl.constexpr = 128,
           BK: tl.constexpr = 128):
    """c[z, i, j] = sum_k a[z, i, k] * b[z, k, j]."""
    matmul_tile(a, b, c, BM, BN, BK)


@tl.kernel(grid=lambda a, b, c, BM: (tl.cdiv(c.shape[1], BM), tl.cdiv(c.shape[2], 256), c.shape[0]),
           specializations=dict(DT=[tl.float32, tl.float16], BM=[1, 8, 16, 32, 128]))
def matmul_rows(a: tl.tensor(DT, ("Z", "M", "K")), b: tl.tensor(DT, ("Z", "K", "N")),
                c: tl.tensor(tl.float32, ("Z", "M", "N")),
                DT: tl.constexpr = tl.float32, BM: tl.constexpr = 8, BN: tl.constexpr = 256,
                BK: tl.constexpr = 256):
    """c[z, i, j] = sum_k a[z, i, k] * b[z, k, j] for few rows (BM of them per program)."""
    matmul_tile(a, b, c, BM, BN, BK)


@tl.kernel(grid=lambda a, b, c, BN: (c.shape[1], tl.cdiv(c.shape[2], BN), c.shape[0]),
           specializations=dict(BN=[1024, 2048, 4096]))
def matmul_gemv(a: tl.tensor(tl.float32, ("Z", "M", "K")), b: tl.tensor(tl.float32, ("Z", "K", "N")),
                c: tl.tensor(tl.float32, ("Z", "M", "N")),
                BM: tl.constexpr = 1, BN: tl.constexpr = 2048, BK: tl.constexpr = 64):
    """c[z, i, j] = sum_k a[z, i, k] * b[z, k, j], one row of c and BN columns per program."""
    matmul_tile(a, b, c, BM, BN, BK)


@tl.kernel(grid=lambda a, b, c, BM, BN: (tl.cdiv(c.shape[1], BM), tl.cdiv(c.shape[2], BN), c.shape[0]),
           specializations=[dict(DT=tl.float32, BM=256, BN=256), dict(DT=tl.float32, BM=512, BN=128),
                            dict(DT=tl.float16, BM=256, BN=256), dict(DT=tl.float16, BM=512, BN=128)])
def matmul_big(a: tl.tensor(DT, ("Z", "M", "K")), b: tl.tensor(DT, ("Z", "K", "N")),
               c: tl.tensor(tl.float32, ("Z", "M", "N")),
               DT: tl.constexpr = tl.float32, BM: tl.constexpr = 256, BN: tl.constexpr = 256,
               BK: tl.constexpr = 128):
    """c[z, i, j] = sum_k a[z, i, k] * b[z, k, j] in BM x BN tiles of c (256 x 256: wide, 512 x 128: tall)."""
    matmul_tile(a, b, c, BM, BN, BK)
