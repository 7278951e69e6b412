"""Kernels for attention, dropout and rotary embeddings.

softmax0   row softmax (like ops/softmax.py) except that a row whose maximum is -inf (fully
           masked) gives 0, not NaN (SEMANTICS C-11). float32/float16/bfloat16, rank 2.
dropout    out = keep ? x / (1 - p) : 0 and mask = keep (bool), rank 2 (R, C). keep is
           u >= p with u in [0, 1) from a counter-based hash of (seed, r * C + c): four rounds
           of MINSTD multiplications and modular squarings mod 2^31 - 1 in int64 (not
           Philox; same seed and shape give the same mask on every target and grid).
Instances: ``softmax0__DT_<dt>``, ``dropout__DT_<dt>``.
"""
import tl


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def softmax0(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
             DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """Row softmax; a row of all -inf gives zeros."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    m = tl.full((BR, BLOCK), float("-inf"), tl.float32)
    for c in range(0, n, BLOCK):
        m = tl.maximum(m, tl.load(x + (r, c), (BR, BLOCK), other=float("-inf")).to(tl.float32))
    mx = tl.max(m, axis=1, keepdims=True)
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
