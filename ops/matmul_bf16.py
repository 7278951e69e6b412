"""bfloat16 matmul: c[z] = a[z] @ b[z], bfloat16 inputs, float32 accumulation and output.

``a``: (B, M, K) bfloat16, ``b``: (B, K, N) bfloat16, ``c``: (B, M, N) float32; any strides (a
zero batch stride broadcasts). Grid (cdiv(M, BM), cdiv(N, 256), B); each program computes a
BM x 256 tile of c, stepping K by BK = 256 (the K tail reads zeros). BM is 256, or 16 / 64 for
few rows (``tl.ops.matmul`` picks by M), so skinny products do not compute 256-row tiles of zeros.

On variants with a bfloat16 microkernel (x86_64-avx512bf16: ``vdpbf16ps``, see
tlc/emit_asm/gemm_bf16.py) the ``dot`` sums pairs (k, k+1) in float32 with input/output
denormals flushed to zero; an in-bounds, unit-stride tile of a or b is packed straight from
the tensor's bf16. Elsewhere the same source runs the float32 path (one FMA per k). Both meet
the contract |c - a @ b (float64)| <= K * 2**-23 * (|a| @ |b|) elementwise, for inputs and products
in float32's normal range; bfloat16 denormal inputs may read as zero and results below 2**-126
may flush to zero (the vdpbf16ps path does both) (tests/ops/test_matmul_bf16.py).
Instances: ``matmul_bf16__BM_16``, ``matmul_bf16__BM_64``, ``matmul_bf16__BM_256``.
"""
import tl


@tl.kernel(grid=lambda a, b, c, BM: (tl.cdiv(c.shape[1], BM), tl.cdiv(c.shape[2], 256), c.shape[0]),
           specializations=[dict(BM=16), dict(BM=64), dict(BM=256)])
def matmul_bf16(a: tl.tensor(tl.bfloat16, ("Z", "M", "K")), b: tl.tensor(tl.bfloat16, ("Z", "K", "N")),
                c: tl.tensor(tl.float32, ("Z", "M", "N")),
                BM: tl.constexpr = 256, BN: tl.constexpr = 256, BK: tl.constexpr = 256):
    """c[z, i, j] = sum_k a[z, i, k] * b[z, k, j] in BM x 256 tiles of c."""
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    z = tl.program_id(2)
    # the first K step starts the sum (no zero tile to clear and read back: ~2% at 1024^3)
    at0 = tl.reshape(tl.load(a + (z, i, 0), (1, BM, BK)), (BM, BK))
    bt0 = tl.reshape(tl.load(b + (z, 0, j), (1, BK, BN)), (BK, BN))
    acc = tl.dot(at0, bt0)
    for k in range(BK, a.shape[2], BK):
        at = tl.reshape(tl.load(a + (z, i, k), (1, BM, BK)), (BM, BK))
        bt = tl.reshape(tl.load(b + (z, k, j), (1, BK, BN)), (BK, BN))
        acc = tl.dot(at, bt, acc)
    tl.store(c + (z, i, j), tl.reshape(acc, (1, BM, BN)))
