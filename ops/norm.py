"""Row normalisations over the last axis: layer_norm and rms_norm (float32, float16, bfloat16).

``x, out``: rank-2 tensors (R, N), any strides, N >= 1; ``w`` (and ``b``): rank-1 tensors (N,)
of the same dtype; ``eps``: float32 scalar. Statistics accumulate in float32 with compensation across chunks
(error independent of N; inf/NaN lanes keep the plain sum): each step adds the exact rounding
error of acc + u, found by Knuth's branch-free TwoSum (TAOCP vol. 2, 4.2.2): the same error term
as Neumaier's ordered Fast2Sum, so the same results, in 6 operations instead of 9.
layer_norm uses two passes (mean, then sum of squared deviations; never E[x^2] - E[x]^2,
SEMANTICS C-14), so the variance is never negative; both work on x - x[row, 0] (exact for
nearby values), so a large common offset costs no accuracy: mean = x0 + dm with dm small. The
price: x - x0 rounds when x is far from x0, so a first element k standard deviations from the
mean costs about k ulp (relative to the output's scale) in every output of its row. Each program handles one row (BR = 1: one
sequential stream per program; measured faster than 4 rows at 4096^2) in 64-wide
chunks (so the loop-carried partial sums stay in vector registers) with runtime loops over
N = x.shape[1]. layer_norm's first pass reads the lanes past the row end as x[row, 0] (so
x - x0 is exactly 0 there, no mask); its second pass runs the whole chunks unmasked and the
partial last chunk, if any, in a separate masked loop.
Instances: ``layer_norm__DT_<dtype>``, ``rms_norm__DT_<dtype>``.
"""
import tl


@tl.func
def two_sum_step(acc, cmp, u):
    """(acc + u, cmp + the exact rounding error of acc + u): Knuth's TwoSum, lane-wise."""
    s_ = acc + u
    bb = s_ - acc
    return s_, cmp + ((acc - (s_ - bb)) + (u - bb))


@tl.kernel(grid=lambda x, w, b, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def layer_norm(x: tl.tensor(DT, 2), w: tl.tensor(DT, 1), b: tl.tensor(DT, 1), out: tl.tensor(DT, 2),
               eps: tl.float32, DT: tl.constexpr = tl.float32, BR: tl.constexpr = 1,
               BLOCK: tl.constexpr = 64):
    """out = (x - mean) / sqrt(var + eps) * w + b, var the biased variance of the row."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    nf = tl.cast(n, tl.float32)
    cols = tl.arange(0, BLOCK)
    x0 = tl.load(x + (r, 0))
    shift = tl.load(x + (r, 0), (BR, 1)).to(tl.float32)
    acc = tl.zeros((BR, BLOCK), tl.float32)
    cmp = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        # lanes past the row end read x0, so t - shift is exactly 0 there: no mask
        t = tl.load(x + (r, c), (BR, BLOCK), other=x0).to(tl.float32)
        acc, cmp = two_sum_step(acc, cmp, t - shift)
    dm = tl.sum(tl.where(tl.abs(acc) < float("inf"), acc + cmp, acc), axis=1, keepdims=True) / nf
    acc2 = tl.zeros((BR, BLOCK), tl.float32)
    cmp2 = tl.zeros((BR, BLOCK), tl.float32)
    nfull = n - n % BLOCK
    for c in range(0, nfull, BLOCK):   # whole chunks: no mask
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        d = (t - shift) - dm
        acc2, cmp2 = two_sum_step(acc2, cmp2, d * d)
    for c in range(nfull, n, BLOCK):   # the partial last chunk (at most one): padding lanes give 0
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        d = tl.where((cols < tl.cast(n - c, tl.int32))[None, :], (t - shift) - dm, 0.0)
        acc2, cmp2 = two_sum_step(acc2, cmp2, d * d)
    var = tl.sum(tl.where(tl.abs(acc2) < float("inf"), acc2 + cmp2, acc2), axis=1, keepdims=True) / nf
    rstd = 1.0 / tl.sqrt(var + eps)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        wv = tl.load(w + (c,), (BLOCK,)).to(tl.float32)[None, :]
        bv = tl.load(b + (c,), (BLOCK,)).to(tl.float32)[None, :]
        tl.store(out + (r, c), (((t - shift) - dm) * rstd * wv + bv).to(DT))


@tl.kernel(grid=lambda x, w, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def rms_norm(x: tl.tensor(DT, 2), w: tl.tensor(DT, 1), out: tl.tensor(DT, 2), eps: tl.float32,
             DT: tl.constexpr = tl.float32, BR: tl.constexpr = 1, BLOCK: tl.constexpr = 64):
    """out = x / sqrt(mean(x^2) + eps) * w."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    nf = tl.cast(n, tl.float32)
    acc = tl.zeros((BR, BLOCK), tl.float32)
    cmp = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        acc, cmp = two_sum_step(acc, cmp, t * t)
    ms = tl.sum(tl.where(tl.abs(acc) < float("inf"), acc + cmp, acc), axis=1, keepdims=True) / nf
    rinv = 1.0 / tl.sqrt(ms + eps)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        wv = tl.load(w + (c,), (BLOCK,)).to(tl.float32)[None, :]
        tl.store(out + (r, c), (t * rinv * wv).to(DT))
