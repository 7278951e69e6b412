"""Flash-attention forward: out = softmax(q k^T * scale + mask) v without materialising scores.

``q``: (BH, L, E) of dtype DT (float32, float16 or bfloat16), ``k``: keys transposed,
(BHk, E, S) (so key blocks feed the dot without a transpose), ``v``: (BHk, S, E), of DT, with
BH = BHk * group (query head h reads kv head h // group: grouped-query heads), ``mask``:
(BH, L, S) float32 additive mask (only read when MASK = 1; a zero stride broadcasts, -inf masks
out), ``out``: (BH, L, E) of DT. Runtime scalars: ``scale`` (float32), ``group`` (int64 >= 1),
``coff`` (int64, causal offset: with CAUSAL = 1 key j is visible to query i iff j <= i + coff).
Any strides. E <= D (D is the head-dim block; lanes past E read 0 and are not stored).

Each program owns one (head, BM-row query block) and loops over BN-key blocks with two
``tl.dot`` calls (the target's GEMM microkernel) and an online softmax in float32: the running
max is -inf safe (a block, or a whole row, with every key masked adds nothing; a fully masked
row gives 0, docs/semantics.md#c-11). float16/bfloat16 inputs are computed in float32 and rounded once
at the store (PyTorch's CPU semantics; ONNX Attention's round-to-T-per-stage semantics are in
tl/_ops_attention.py). The key loop is split: blocks entirely in range and, with CAUSAL, entirely
visible to every row of the query block skip the per-element mask; the causal diagonal and the
sequence tail are masked; with CAUSAL the loop stops at the last visible block. Blocks BM = 64
queries x BN = 128 keys (measured best of 64x64, 128x64, 64x128, 32x128 on causal 2048x16x64
float32, 1 and 2 threads).
Instances (DT x D in {32, 64, 128} x CAUSAL x MASK):
``flash_attention__CAUSAL_<c>__D_<d>__DT_<dt>__MASK_<m>``.
"""
import tl


@tl.func
def scores(qt, k, mask, h, hk, i, j, D: tl.constexpr, MASK: tl.constexpr, BM: tl.constexpr,
           BN: tl.constexpr):
    """(BM, BN) float32 scores of the query block qt against key block j (plus the additive mask)."""
    kt = tl.reshape(tl.load(k + (hk, 0, j), (1, D, BN)), (D, BN)).to(tl.float32)
    s = tl.dot(qt, kt)
    if MASK:
        s = s + tl.reshape(tl.load(mask + (h, i, j), (1, BM, BN)), (BM, BN))
    return s


@tl.func
def online_update(s, v, hk, j, m, l, acc, GUARD: tl.constexpr, D: tl.constexpr, BN: tl.constexpr):
    """One online-softmax step (Milakov & Gimelshein 2018; Dao et al. 2022): the new running max,
    normaliser and output accumulator after key block j with scores s. GUARD: rows whose scores
    may all be -inf so far subtract 0 instead of -inf (no NaN from -inf - -inf)."""
    mn = tl.maximum(m, tl.max(s, axis=1, keepdims=True))
    base = mn
    if GUARD:
        base = tl.where(mn == float("-inf"), 0.0, mn)
    p = tl.exp(s - base)
    alpha = tl.exp(m - base)
    l = l * alpha + tl.sum(p, axis=1, keepdims=True)
    vt = tl.reshape(tl.load(v + (hk, j, 0), (1, BN, D)), (BN, D)).to(tl.float32)
    return mn, l, tl.dot(p, vt, acc * alpha)


@tl.kernel(grid=lambda q, k, v, mask, out, scale, group, coff: (tl.cdiv(q.shape[1], 64), q.shape[0]),
           specializations=[
               dict(DT=tl.float32, D=32, CAUSAL=0, MASK=0),
               dict(DT=tl.float32, D=32, CAUSAL=0, MASK=1),
               dict(DT=tl.float32, D=32, CAUSAL=1, MASK=0),
               dict(DT=tl.float32, D=32, CAUSAL=1, MASK=1),
               dict(DT=tl.float32, D=64, CAUSAL=0, MASK=0),
               dict(DT=tl.float32, D=64, CAUSAL=0, MASK=1),
               dict(DT=tl.float32, D=64, CAUSAL=1, MASK=0),
               dict(DT=tl.float32, D=64, CAUSAL=1, MASK=1),
               dict(DT=tl.float32, D=128, CAUSAL=0, MASK=0),
               dict(DT=tl.float32, D=128, CAUSAL=0, MASK=1),
               dict(DT=tl.float32, D=128, CAUSAL=1, MASK=0),
               dict(DT=tl.float32, D=128, CAUSAL=1, MASK=1),
               dict(DT=tl.float16, D=32, CAUSAL=0, MASK=0),
               dict(DT=tl.float16, D=32, CAUSAL=0, MASK=1),
               dict(DT=tl.float16, D=32, CAUSAL=1, MASK=0),
               dict(DT=tl.float16, D=32, CAUSAL=1, MASK=1),
               dict(DT=tl.float16, D=64, CAUSAL=0, MASK=0),
               dict(DT=tl.float16, D=64, CAUSAL=0, MASK=1),
               dict(DT=tl.float16, D=64, CAUSAL=1, MASK=0),
               dict(DT=tl.float16, D=64, CAUSAL=1, MASK=1),
               dict(DT=tl.float16, D=128, CAUSAL=0, MASK=0),
               dict(DT=tl.float16, D=128, CAUSAL=0, MASK=1),
               dict(DT=tl.float16, D=128, CAUSAL=1, MASK=0),
               dict(DT=tl.float16, D=128, CAUSAL=1, MASK=1),
               dict(DT=tl.bfloat16, D=32, CAUSAL=0, MASK=0),
               dict(DT=tl.bfloat16, D=32, CAUSAL=0, MASK=1),
               dict(DT=tl.bfloat16, D=32, CAUSAL=1, MASK=0),
               dict(DT=tl.bfloat16, D=32, CAUSAL=1, MASK=1),
               dict(DT=tl.bfloat16, D=64, CAUSAL=0, MASK=0),
               dict(DT=tl.bfloat16, D=64, CAUSAL=0, MASK=1),
               dict(DT=tl.bfloat16, D=64, CAUSAL=1, MASK=0),
               dict(DT=tl.bfloat16, D=64, CAUSAL=1, MASK=1),
               dict(DT=tl.bfloat16, D=128, CAUSAL=0, MASK=0),
               dict(DT=tl.bfloat16, D=128, CAUSAL=0, MASK=1),
               dict(DT=tl.bfloat16, D=128, CAUSAL=1, MASK=0),
               dict(DT=tl.bfloat16, D=128, CAUSAL=1, MASK=1)])
def flash_attention(q: tl.tensor(DT, 3), k: tl.tensor(DT, 3), v: tl.tensor(DT, 3),
                    mask: tl.tensor(tl.float32, 3), out: tl.tensor(DT, 3), scale: tl.float32,
                    group: tl.int64, coff: tl.int64, DT: tl.constexpr = tl.float32,
                    D: tl.constexpr = 64, CAUSAL: tl.constexpr = 0, MASK: tl.constexpr = 0,
                    BM: tl.constexpr = 64, BN: tl.constexpr = 128):
    """One (head, query block): online softmax over key blocks."""
    i = tl.program_id(0) * BM
    h = tl.program_id(1)
    hk = h // group
    n = k.shape[2]
    qt = tl.reshape(tl.load(q + (h, i, 0), (1, BM, D)), (BM, D)).to(tl.float32) * scale
    rows = (tl.arange(0, BM).to(tl.int64) + i)[:, None]
    m = tl.full((BM, 1), float("-inf"), tl.float32)
    l = tl.zeros((BM, 1), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    hi = n
    lo = n // BN * BN
    if CAUSAL:
        hi = tl.minimum(n, i + BM + coff)
        lo = tl.minimum(tl.maximum(i + coff + 1, 0) // BN * BN, lo)
    # key blocks [0, lo): every key in range and visible to every row of the block
    for j in range(0, lo, BN):
        s = scores(qt, k, mask, h, hk, i, j, D, MASK, BM, BN)
        m, l, acc = online_update(s, v, hk, j, m, l, acc, MASK, D, BN)
    # the rest: the sequence tail and the causal diagonal, masked per element
    for j in range(lo, hi, BN):
        s = scores(qt, k, mask, h, hk, i, j, D, MASK, BM, BN)
        cols = (tl.arange(0, BN).to(tl.int64) + j)[None, :]
        ok = cols < n
        if CAUSAL:
            ok = ok & (cols <= rows + coff)
        s = tl.where(ok, s, float("-inf"))
        m, l, acc = online_update(s, v, hk, j, m, l, acc, 1, D, BN)
    o = tl.where(l == 0.0, 0.0, acc / l)
    tl.store(out + (h, i, 0), tl.reshape(o, (1, BM, D)).to(DT))
