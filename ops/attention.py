"""Kernels for attention, dropout and rotary embeddings.

softmax0   row softmax (like ops/softmax.py) except that a row whose maximum is -inf (fully
           masked) gives 0, not NaN (docs/semantics.md#c-11). float32/float16/bfloat16, rank 2.
dropout    out = keep ? x / (1 - p) : 0 and mask = keep (bool), rank 2 (R, C). keep is
           u >= p with u in [0, 1) from a counter-based hash of (seed, r * C + c): four rounds
           of MINSTD multiplications and modular squarings mod 2^31 - 1 in int64 (not
           Philox; same seed and shape give the same mask on every target and grid).
softmax_t  ONNX Attention's softmax computed in the input type T (float16/bfloat16; float32
           too, where every rounding is a no-op): with m the row max (0 for a fully masked
           row), e = T(exp(T(x - m))), total = the sum of e and out = T(e / total) (0 for a
           row of all -inf: total 0 is replaced by 1, as the ONNX reference does). ACC = 0 sums
           in float32 and rounds the total to T once (the reference's float16 sum: NumPy's
           pairwise half sum accumulates in float); ACC = 1 rounds to T after every add, left to
           right (the reference's bfloat16 sum: ml_dtypes' add loop), one column per step.
Instances: ``softmax0__DT_<dt>``, ``dropout__DT_<dt>``, ``softmax_t__ACC_<0|1>__DT_<dt>``.
"""
import tl


@tl.func
def row_max_f32(x, r, n, BR: tl.constexpr, BLOCK: tl.constexpr):
    """(BR, 1) float32 maximum of rows r..r+BR of x (-inf for an all -inf or empty row)."""
    m = tl.full((BR, BLOCK), float("-inf"), tl.float32)
    for c in range(0, n, BLOCK):
        m = tl.maximum(m, tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32))
    return tl.max(m, axis=1, keepdims=True)


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def softmax0(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
             DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """Row softmax; a row of all -inf gives zeros."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    mx = row_max_f32(x, r, n, BR, BLOCK)
    dead = mx == float("-inf")
    ms = tl.where(dead, 0.0, mx)
    s = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        s = s + tl.exp(t - ms)
    total = tl.sum(s, axis=1, keepdims=True)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        tl.store(out + (r, c), tl.where(dead, 0.0, tl.exp(t - ms) / total).to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32, ACC=0), dict(DT=tl.float16, ACC=0),
                            dict(DT=tl.bfloat16, ACC=0), dict(DT=tl.float16, ACC=1),
                            dict(DT=tl.bfloat16, ACC=1)])
def softmax_t(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2), DT: tl.constexpr = tl.float32,
              ACC: tl.constexpr = 0, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """Row softmax with every stage rounded to DT (ONNX Attention, softmax_precision unset)."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    mx = row_max_f32(x, r, n, BR, BLOCK)
    ms = tl.where(mx == float("-inf"), 0.0, mx)
    if ACC == 0:
        s = tl.zeros((BR, BLOCK), tl.float32)
        for c in range(0, n, BLOCK):
            t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
            s = s + tl.exp((t - ms).to(DT).to(tl.float32)).to(DT).to(tl.float32)
        total = tl.sum(s, axis=1, keepdims=True).to(DT).to(tl.float32)
    else:
        total = tl.zeros((BR, 1), tl.float32)
        for c in range(0, n):
            t = tl.load(x + (r, c), (BR, 1), other=float("-inf")).to(tl.float32)
            e = tl.exp((t - ms).to(DT).to(tl.float32)).to(DT).to(tl.float32)
            total = (total + e).to(DT).to(tl.float32)
    total = tl.where(total == 0.0, 1.0, total)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32)
        e = tl.exp((t - ms).to(DT).to(tl.float32)).to(DT).to(tl.float32)
        tl.store(out + (r, c), (e / total).to(DT))


@tl.kernel(grid=lambda x, out, mask, p, seed: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def dropout(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2), mask: tl.tensor(tl.bool_, 2), p: tl.float32,
            seed: tl.int64, DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4,
            BN: tl.constexpr = 256):
    """Inverted dropout with a counter-based mask."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    rows = (tl.arange(0, BM).to(tl.int64) + r)[:, None]
    cols = (tl.arange(0, BN).to(tl.int64) + c)[None, :]
    m31 = 2147483647
    h = (rows * out.shape[1] + cols + (seed % m31) * 7919 + 1) % m31
    h = (h * 48271 + 12345) % m31
    h = (h * h + seed % 65521 + 3) % m31
    h = (h * 16807 + 1) % m31
    h = (h * h + 7) % m31
    u = h.to(tl.float32) * (1.0 / 2147483648.0)
    keep = u >= p
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), tl.where(keep, v * (1.0 / (1.0 - p)), 0.0).to(DT))
    tl.store(mask + (r, c), keep)
