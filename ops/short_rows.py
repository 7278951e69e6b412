"""Short rows: softmax, log_softmax, sum, max and min over a last axis of N <= BN <= 32 elements.

``x``: rank-2 (R, N), any strides, 1 <= N <= BN; ``out``: (R, N) for the softmaxes, (R,) for the
reductions. ``tl.ops`` uses these for tall-skinny inputs ((131072, 8) and the like), where the
row kernels of ops/softmax.py and ops/reduce.py run one program per row over a 64- or 256-wide
chunk that is mostly padding. Here a program takes BR = 32 whole rows as one (32, BN) tile, BN
the smallest of 4, 8, 16, 32 that holds N; lanes past N read -inf (softmax: exp(-inf) = 0),
0 (sum) or the row's first element (max/min, so no identity value is needed).

softmax_short   exp(x - max) / sum, in float32, rounded once to DT; a row of all -inf gives
                NaN, a NaN anywhere in a row makes the row NaN (as ops/softmax.py). The sum of at
                most 32 positive terms is a plain float32 sum (<= 31 roundings, below 2e-6
                relative); LOG = 1: (x - max) - log(sum).
row_short       OP sum (float32 accumulation, rounded once to DT), max, min (NaN propagates).
Instances: ``softmax_short__BN_<bn>__DT_<dtype>__LOG_<0|1>``, ``row_short__BN_<bn>__DT_<dtype>__OP_<op>``.
"""
import tl

_BNS = [4, 8, 16, 32]
_FLOATS = [tl.float32, tl.float16, tl.bfloat16]


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 32),),
           specializations=dict(BN=_BNS, DT=_FLOATS, LOG=[0, 1]))
def softmax_short(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R", "N")), BN: tl.constexpr = 8,
                  DT: tl.constexpr = tl.float32, LOG: tl.constexpr = 0, BR: tl.constexpr = 32):
    """out[i, :] = softmax (LOG = 0) or log_softmax (LOG = 1) of x[i, :]; requires N <= BN."""
    r = tl.program_id(0) * BR
    t = tl.load(x + (r, 0), (BR, BN), other=float("-inf")).to(tl.float32)
    m = tl.max(t, axis=1, keepdims=True)
    d = t - m
    e = tl.exp(d)
    s = tl.sum(e, axis=1, keepdims=True)
    if LOG:
        tl.store(out + (r, 0), (d - tl.log(s)).to(DT))
    else:
        tl.store(out + (r, 0), (e / s).to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 32),),
           specializations=dict(BN=_BNS, DT=_FLOATS, OP=["sum", "max", "min"]))
def row_short(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R",)), BN: tl.constexpr = 8,
              DT: tl.constexpr = tl.float32, OP: tl.constexpr = "sum", BR: tl.constexpr = 32):
    """out[i] = OP over x[i, :N]; requires 1 <= N <= BN."""
    r = tl.program_id(0) * BR
    if OP == "sum":
        tl.store(out + (r,), tl.sum(tl.load(x + (r, 0), (BR, BN)).to(tl.float32), axis=1).to(DT))
    else:
        cols = tl.arange(0, BN)
        first = tl.load(x + (r, 0), (BR, 1))
        t = tl.where((cols < tl.cast(x.shape[1], tl.int32))[None, :], tl.load(x + (r, 0), (BR, BN)), first)
        if OP == "max":
            tl.store(out + (r,), tl.max(t, axis=1))
        else:
            tl.store(out + (r,), tl.min(t, axis=1))
