"""Row softmax and log_softmax over the last axis (float32, float16, bfloat16).

``x, out``: rank-2 tensors (R, N), any strides, N >= 1. Each program handles 4 rows in three
runtime-bounded passes over 256-wide chunks (max, sum of exp, write), using the real length
N = x.shape[1] (C-10); padding lanes read -inf so they add exp(-inf) = 0. ``t - max`` is
computed once per lane, so it is exactly 0 at the maximum (C-20). The sum of exps is Neumaier-compensated across chunks. A row that is all -inf gives
NaN (ONNX, PyTorch); a NaN anywhere in a row makes the whole row NaN.
Instances: ``softmax__DT_<dtype>``, ``log_softmax__DT_<dtype>``.
"""
import tl


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def softmax(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i, :] = exp(x[i, :] - max) / sum(exp(x[i, :] - max))."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    m = tl.full((BR, BLOCK), float("-inf"), tl.float32)
    for c in range(0, n, BLOCK):
        m = tl.maximum(m, tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32))
    mx = tl.max(m, axis=1, keepdims=True)
    s = tl.zeros((BR, BLOCK), tl.float32)
    cmp = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        e = tl.exp(t - mx)
        s_ = s + e
        cmp = cmp + tl.where(tl.abs(s) >= tl.abs(e), (s - s_) + e, (e - s_) + s)
        s = s_
    s = tl.where(tl.abs(s) < float("inf"), s + cmp, s)
    total = tl.sum(s, axis=1, keepdims=True)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        tl.store(out + (r, c), (tl.exp(t - mx) / total).to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def log_softmax(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
                DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i, :] = (x[i, :] - max) - log(sum(exp(x[i, :] - max)))."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    m = tl.full((BR, BLOCK), float("-inf"), tl.float32)
    for c in range(0, n, BLOCK):
        m = tl.maximum(m, tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32))
    mx = tl.max(m, axis=1, keepdims=True)
    s = tl.zeros((BR, BLOCK), tl.float32)
    cmp = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        e = tl.exp(t - mx)
        s_ = s + e
        cmp = cmp + tl.where(tl.abs(s) >= tl.abs(e), (s - s_) + e, (e - s_) + s)
        s = s_
    s = tl.where(tl.abs(s) < float("inf"), s + cmp, s)
    lse = tl.log(tl.sum(s, axis=1, keepdims=True))
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        tl.store(out + (r, c), ((t - mx) - lse).to(DT))
