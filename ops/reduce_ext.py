"""Row reductions and scans over the last axis, beyond ops/reduce.py, ops/reduce_extreme.py and
ops/reduce_arg.py (row_sum, row_max/min, row_argmax/argmin): row_prod, row_var (mean and
variance), row_cumsum.

``x``: rank-2 (R, N), any strides, N >= 1 (``tl.ops`` handles empty axes). Each program handles
4 rows in 256-wide chunks with runtime loops over N = x.shape[1] (docs/semantics.md#c-10).
row_prod     float32/float16/bfloat16, float32 product, one column per step.
row_var      float32/float16/bfloat16: mean (R,) and var (R,) = sum((x - mean)^2) / (N - corr),
             two passes around a row shift (no E[x^2] - E[x]^2 cancellation, docs/semantics.md#c-14).
row_cumsum   float32/float16/bfloat16 (float32 running sum) and int32/int64: out[i, j] =
             sum_{k <= j} x[i, k], strictly left to right (one column per step).
Instances: ``<kernel>__DT_<dt>``; row_var ``row_var__DT_<dt>__OT_<ot>`` writes mean and var as OT
(DT, or float32 for a float16/bfloat16 x: the statistics unrounded, for batch norm).
"""
import tl


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def row_prod(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R",)),
             DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = prod_j x[i, j] (left to right, float32)."""
    r = tl.program_id(0) * BR
    acc = tl.full((BR, 1), 1.0, tl.float32)
    for c in range(0, x.shape[1]):
        acc = acc * tl.load(x + (r, c), (BR, 1)).to(tl.float32)
    tl.store(out + (r,), tl.reshape(acc, (BR,)).to(DT))


@tl.kernel(grid=lambda x, mean, var, corr: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32, OT=tl.float32), dict(DT=tl.float16, OT=tl.float16),
                            dict(DT=tl.bfloat16, OT=tl.bfloat16), dict(DT=tl.float16, OT=tl.float32),
                            dict(DT=tl.bfloat16, OT=tl.float32)])
def row_var(x: tl.tensor(DT, ("R", "N")), mean: tl.tensor(OT, ("R",)), var: tl.tensor(OT, ("R",)), corr: tl.float32,
            DT: tl.constexpr = tl.float32, OT: tl.constexpr = tl.float32, BR: tl.constexpr = 4,
            BLOCK: tl.constexpr = 256):
    """mean[i], var[i] of row i (var divides by N - corr)."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    nf = tl.cast(n, tl.float32)
    cols = tl.arange(0, BLOCK)
    shift = tl.load(x + (r, 0), (BR, 1)).to(tl.float32)
    acc = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        acc = acc + tl.where((cols + c < n)[None, :], t - shift, 0.0)
    dm = tl.sum(acc, axis=1, keepdims=True) / nf
    acc2 = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        d = tl.where((cols + c < n)[None, :], (t - shift) - dm, 0.0)
        acc2 = acc2 + d * d
    tl.store(mean + (r,), tl.reshape(shift + dm, (BR,)).to(OT))
    tl.store(var + (r,), (tl.sum(acc2, axis=1) / (nf - corr)).to(OT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 8),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16), dict(DT=tl.int32),
 dict(DT=tl.int64)])
def row_cumsum(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R", "N")),
               DT: tl.constexpr = tl.float32, BR: tl.constexpr = 8):
    """out[i, j] = x[i, 0] + ... + x[i, j]."""
    r = tl.program_id(0) * BR
    at = tl.float32 if DT == tl.float16 or DT == tl.bfloat16 else DT
    acc = tl.zeros((BR, 1), at)
    for c in range(0, x.shape[1]):
        acc = acc + tl.load(x + (r, c), (BR, 1)).to(at)
        tl.store(out + (r, c), acc.to(DT))
