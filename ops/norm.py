"""Row normalisations over the last axis: layer_norm and rms_norm (float32, float16, bfloat16).

``x, out``: rank-2 tensors (R, N), any strides, N >= 1; ``w`` (and ``b``): rank-1 tensors (N,)
of the same dtype; ``eps``: float32 scalar. Statistics accumulate in float32.
layer_norm uses two passes (mean, then sum of squared deviations; never E[x^2] - E[x]^2,
SEMANTICS C-14), so the variance is never negative; both work on x - x[row, 0] (exact for
nearby values), so a large common offset costs no accuracy: mean = x0 + dm with dm small. Each program handles 4 rows in 256-wide
chunks with runtime loops over N = x.shape[1].
Instances: ``layer_norm__DT_<dtype>``, ``rms_norm__DT_<dtype>``.
"""
import tl


@tl.kernel(grid=lambda x, w, b, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def layer_norm(x: tl.tensor(DT, 2), w: tl.tensor(DT, 1), b: tl.tensor(DT, 1), out: tl.tensor(DT, 2),
               eps: tl.float32, DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4,
               BLOCK: tl.constexpr = 256):
    """out = (x - mean) / sqrt(var + eps) * w + b, var the biased variance of the row."""
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
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=1, keepdims=True) / nf + eps)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        wv = tl.load(w + (c,), (BLOCK,)).to(tl.float32)[None, :]
        bv = tl.load(b + (c,), (BLOCK,)).to(tl.float32)[None, :]
        tl.store(out + (r, c), (((t - shift) - dm) * rstd * wv + bv).to(DT))


@tl.kernel(grid=lambda x, w, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def rms_norm(x: tl.tensor(DT, 2), w: tl.tensor(DT, 1), out: tl.tensor(DT, 2), eps: tl.float32,
             DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out = x / sqrt(mean(x^2) + eps) * w."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    nf = tl.cast(n, tl.float32)
    acc = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        acc = acc + t * t
    rinv = 1.0 / tl.sqrt(tl.sum(acc, axis=1, keepdims=True) / nf + eps)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        wv = tl.load(w + (c,), (BLOCK,)).to(tl.float32)[None, :]
        tl.store(out + (r, c), (t * rinv * wv).to(DT))
