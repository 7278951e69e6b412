"""Row normalisations over the last axis: layer_norm and rms_norm (float32, float16, bfloat16).

``x, out``: rank-2 tensors (R, N), any strides, N >= 1; ``w`` (and ``b``): rank-1 tensors (N,)
of the same dtype; ``eps``: float32 scalar. Statistics accumulate in float32 with compensation across chunks
(error independent of N; inf/NaN lanes keep the plain sum): each step adds the exact rounding
error of acc + u, found by Knuth's branch-free TwoSum (TAOCP vol. 2, 4.2.2): the same error term
as Neumaier's ordered Fast2Sum, so the same results, in 6 operations instead of 9 (three of them
as tl.fma(a, -1, b), the same bits, so that they issue on the FMA units: see two_sum_step).
layer_norm's output is tl.fma((x - x0 - dm) * rstd, w, b) (one rounding fewer than * w + b).
layer_norm uses two passes (mean, then sum of squared deviations; never E[x^2] - E[x]^2,
docs/semantics.md#c-14), so the variance is never negative; both work on x - x[row, 0] (exact for
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
def two_sum_step(acc, cmp, u, CMP_FMA: tl.constexpr):
    """(acc + u, cmp + the exact rounding error of acc + u): Knuth's TwoSum, lane-wise. Three of
    its six differences run as tl.fma(a, -1, b) (exactly b - a, the same bits) so that they
    issue on the FMA units: cores with separate FP add pipes (AMD Zen 4/5: 2 add + 2 FMA) then
    do twice the additions per cycle; elsewhere it costs nothing. CMP_FMA puts cmp's addition
    on an FMA unit too (for callers whose other work is mostly additions)."""
    s_ = acc + u
    bb = tl.fma(acc, -1.0, s_)                              # s_ - acc
    e = tl.fma(s_ - bb, -1.0, acc) + tl.fma(bb, -1.0, u)    # (acc - (s_ - bb)) + (u - bb)
    if CMP_FMA:
        cmp = tl.fma(e, 1.0, cmp)
    else:
        cmp = cmp + e
    return s_, cmp


@tl.kernel(grid=lambda x, w, b, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def layer_norm(x: tl.tensor(DT, ("R", "N")), w: tl.tensor(DT, ("N",)), b: tl.tensor(DT, ("N",)),
               out: tl.tensor(DT, ("R", "N")),
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
        acc, cmp = two_sum_step(acc, cmp, t - shift, 1)
    dm = tl.sum(tl.where(tl.abs(acc) < float("inf"), acc + cmp, acc), axis=1, keepdims=True) / nf
    acc2 = tl.zeros((BR, BLOCK), tl.float32)
    cmp2 = tl.zeros((BR, BLOCK), tl.float32)
    nfull = n - n % BLOCK
    for c in range(0, nfull, BLOCK):   # whole chunks: no mask
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        d = (t - shift) - dm
        acc2, cmp2 = two_sum_step(acc2, cmp2, d * d, 1)
    for c in range(nfull, n, BLOCK):   # the partial last chunk (at most one): padding lanes give 0
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        d = tl.where((cols < tl.cast(n - c, tl.int32))[None, :], (t - shift) - dm, 0.0)
        acc2, cmp2 = two_sum_step(acc2, cmp2, d * d, 1)
    var = tl.sum(tl.where(tl.abs(acc2) < float("inf"), acc2 + cmp2, acc2), axis=1, keepdims=True) / nf
    rstd = 1.0 / tl.sqrt(var + eps)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        wv = tl.load(w + (c,), (BLOCK,))[None, :].to(tl.float32)
        bv = tl.load(b + (c,), (BLOCK,))[None, :].to(tl.float32)
        tl.store(out + (r, c), tl.fma(((t - shift) - dm) * rstd, wv, bv).to(DT))


@tl.kernel(grid=lambda x, w, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def rms_norm(x: tl.tensor(DT, ("R", "N")), w: tl.tensor(DT, ("N",)), out: tl.tensor(DT, ("R", "N")), eps: tl.float32,
             DT: tl.constexpr = tl.float32, BR: tl.constexpr = 1, BLOCK: tl.constexpr = 64):
    """out = x / sqrt(mean(x^2) + eps) * w."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    nf = tl.cast(n, tl.float32)
    acc = tl.zeros((BR, BLOCK), tl.float32)
    cmp = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        acc, cmp = two_sum_step(acc, cmp, t * t, 0)
    ms = tl.sum(tl.where(tl.abs(acc) < float("inf"), acc + cmp, acc), axis=1, keepdims=True) / nf
    rinv = 1.0 / tl.sqrt(ms + eps)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        wv = tl.load(w + (c,), (BLOCK,))[None, :].to(tl.float32)
        tl.store(out + (r, c), (t * rinv * wv).to(DT))
