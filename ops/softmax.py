"""Row softmax and log_softmax over the last axis (float32, float16, bfloat16).

``x, out``: rank-2 tensors (R, N), any strides, N >= 1. Each program handles one row
(BR = 1: one sequential stream per program; measured faster than 4 rows at 4096^2) in
three runtime-bounded passes over 64-wide chunks, using the real length N = x.shape[1] (docs/semantics.md#c-10);
padding lanes read -inf so they add exp(-inf) = 0. Pass 1: row max (a plain compare and select;
NaN is left to pass 2, where it turns the sum NaN). Pass 2: e = exp(x - max) on the chunk's four
V = 16 wide vectors, summed as a tree ((e0 + e1) + (e2 + e3): positive terms, so <= 2 roundings
of the chunk sum), then added to a V-lane compensated sum: each chunk adds the exact rounding
error of s + e found by Knuth's branch-free TwoSum (TAOCP vol. 2, 4.2.2), so the row sum's error
does not grow with N (one TwoSum per 64 elements instead of one per 16: 2.5 instead of 7 adds a
vector); float32 stores e in the same loop. Pass 3: float32 softmax rescales the e that pass 2
stored in ``out`` in place (the row is still in L1/L2: one exp per element), float16 and
bfloat16 recompute e (storing it would round twice); both multiply by 1/sum (one extra rounding:
<= 1 ulp more than a division). ``t - max`` is computed once per lane, so it is exactly 0 at the
maximum (docs/semantics.md#c-20). A row that is all -inf gives NaN (ONNX, PyTorch); a NaN anywhere in a row makes
the whole row NaN.
Accuracy (float32, measured against float64 evaluated on the same float32 differences
d = x - max, random rows of N = 1 ... 65536, normal, uniform on [-10, 10], [-80, 80], [-150, 0],
[-1e4, 1e4], 0.1 + 1e-3 noise, constant; 3 seeds): softmax <= 5.6 ulp; log_softmax <= 2.8 ulp
of max(|result|, log(sum), 1) (the same maxima as with one TwoSum per vector). The rounding of
d itself (up to 2^-24 |d| relative, amplified by exp) comes on top, as in any float32 softmax:
vs float64 on x, softmax <= 67 ulp at |d| <= 160.
Instances: ``softmax__DT_<dtype>``, ``log_softmax__DT_<dtype>``.
"""
import tl


@tl.kernel(grid=lambda x, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def softmax(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R", "N")),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 1, V: tl.constexpr = 16):
    """Softmax along the last axis (axis 1: each row i on its own):
    out[i, :] = exp(x[i, :] - max) / sum(exp(x[i, :] - max)), max = max(x[i, :]).

    x, out: (R, N) of dtype DT, any strides, N >= 1. A row of all -inf
    gives NaN; a NaN anywhere in a row makes the row NaN. Grid (R,): one program per row.
    """
    r = tl.program_id(0) * BR
    n = x.shape[1]
    BLOCK = 4 * V
    m = tl.full((BR, BLOCK), float("-inf"), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        m = tl.where(t > m, t, m)   # drops NaN: a NaN in the row still makes its sum, so the row, NaN
    mx = tl.max(m, axis=1, keepdims=True)
    s = tl.zeros((BR, V), tl.float32)
    cmp = tl.zeros((BR, V), tl.float32)
    for c in range(0, n, BLOCK):
        # four V-wide vectors per chunk: their exps, summed as a tree, then one TwoSum step
        d0, d1, d2, d3 = out + (r, c), out + (r, c + V), out + (r, c + 2 * V), out + (r, c + 3 * V)
        e0 = tl.exp(tl.load(x + (r, c), (BR, V), other=float("-inf")).to(tl.float32) - mx)
        e1 = tl.exp(tl.load(x + (r, c + V), (BR, V), other=float("-inf")).to(tl.float32) - mx)
        e2 = tl.exp(tl.load(x + (r, c + 2 * V), (BR, V), other=float("-inf")).to(tl.float32) - mx)
        e3 = tl.exp(tl.load(x + (r, c + 3 * V), (BR, V), other=float("-inf")).to(tl.float32) - mx)
        e = (e0 + e1) + (e2 + e3)
        s_ = s + e
        bb = s_ - s
        cmp = cmp + ((s - (s_ - bb)) + (e - bb))   # TwoSum: the exact rounding error of s + e
        s = s_
        if DT == tl.float32:   # after the sum: exp, sum and stores fuse into one loop
            tl.store(d0, e0)
            tl.store(d1, e1)
            tl.store(d2, e2)
            tl.store(d3, e3)
    s = tl.where(tl.abs(s) < float("inf"), s + cmp, s)
    inv = 1.0 / tl.sum(s, axis=1, keepdims=True)
    for c in range(0, n, BLOCK):
        if DT == tl.float32:
            e = tl.load(out + (r, c), (BR, BLOCK))
            tl.store(out + (r, c), e * inv)
        else:
            t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
            tl.store(out + (r, c), (tl.exp(t - mx) * inv).to(DT))


@tl.kernel(grid=lambda x, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def log_softmax(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R", "N")),
                DT: tl.constexpr = tl.float32, BR: tl.constexpr = 1, V: tl.constexpr = 16):
    """log(softmax) along the last axis (axis 1: each row i on its own):
    out[i, :] = (x[i, :] - max) - log(sum(exp(x[i, :] - max))), max = max(x[i, :]).

    x, out: (R, N) of dtype DT, any strides, N >= 1. Grid (R,).
    """
    r = tl.program_id(0) * BR
    n = x.shape[1]
    BLOCK = 4 * V
    m = tl.full((BR, BLOCK), float("-inf"), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        m = tl.where(t > m, t, m)   # drops NaN: a NaN in the row still makes its sum, so the row, NaN
    mx = tl.max(m, axis=1, keepdims=True)
    s = tl.zeros((BR, V), tl.float32)
    cmp = tl.zeros((BR, V), tl.float32)
    for c in range(0, n, BLOCK):
        e0 = tl.exp(tl.load(x + (r, c), (BR, V), other=float("-inf")).to(tl.float32) - mx)
        e1 = tl.exp(tl.load(x + (r, c + V), (BR, V), other=float("-inf")).to(tl.float32) - mx)
        e2 = tl.exp(tl.load(x + (r, c + 2 * V), (BR, V), other=float("-inf")).to(tl.float32) - mx)
        e3 = tl.exp(tl.load(x + (r, c + 3 * V), (BR, V), other=float("-inf")).to(tl.float32) - mx)
        e = (e0 + e1) + (e2 + e3)
        s_ = s + e
        bb = s_ - s
        cmp = cmp + ((s - (s_ - bb)) + (e - bb))   # TwoSum: the exact rounding error of s + e
        s = s_
    s = tl.where(tl.abs(s) < float("inf"), s + cmp, s)
    lse = tl.log(tl.sum(s, axis=1, keepdims=True))
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        tl.store(out + (r, c), ((t - mx) - lse).to(DT))
