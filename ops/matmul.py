"""Batched matmul: c[z] = a[z] @ b[z] with float32 accumulation and float32 output.

``a``: (B, M, K), ``b``: (B, K, N) of dtype DT (float32 or bfloat16), ``c``: (B, M, N) float32;
any strides (a zero batch stride broadcasts). Grid (cdiv(M, 64), cdiv(N, 64), B); each program
computes a 64x64 tile of c, stepping K by 32 (the K tail reads zeros). fp32 products are IEEE
fp32 (no reduced precision). Instances: ``matmul__DT_float32``, ``matmul__DT_bfloat16``.
"""
import tl


@tl.kernel(grid=lambda a, b, c: (tl.cdiv(c.shape[1], 64), tl.cdiv(c.shape[2], 64), c.shape[0]),
           specializations=[dict(DT=tl.float32), dict(DT=tl.bfloat16)])
def matmul(a: tl.tensor(DT, 3), b: tl.tensor(DT, 3), c: tl.tensor(tl.float32, 3),
           DT: tl.constexpr = tl.float32, BM: tl.constexpr = 64, BN: tl.constexpr = 64,
           BK: tl.constexpr = 32):
    """c[z, i, j] = sum_k a[z, i, k] * b[z, k, j]."""
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    z = tl.program_id(2)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, a.shape[2], BK):
        at = tl.reshape(tl.load(a + (z, i, k), (1, BM, BK)), (BM, BK))
        bt = tl.reshape(tl.load(b + (z, k, j), (1, BK, BN)), (BK, BN))
        acc = tl.dot(at, bt, acc)
    tl.store(c + (z, i, j), tl.reshape(acc, (1, BM, BN)))
