"""Row reductions over the last axis: row_sum, row_max, row_argmax.

Input ``x`` is a rank-2 tensor (R, N) with any strides and N >= 1 (``tl.ops`` handles empty
inputs without launching); output ``out`` is rank 1 (R,). Each program reduces 4 rows (row_sum:
one row, a single sequential stream, measured faster at 4096^2), walking
the row in 256-wide chunks with a runtime loop (the real length N = x.shape[1], SEMANTICS C-10).

row_sum   float32/float16/bfloat16, accumulated in float32 lane-wise across chunks with Neumaier
          compensation (error independent of N/256; exact semantics with -ffp-contract=off),
          then a tree sum across lanes; rounded once to DT. inf/NaN propagate as in a plain sum.
row_max   float32/float16/bfloat16/int32; NaN propagates (IEEE maximum). Padding lanes are
          filled with the chunk's first element, so no identity value is needed (C-12: never 0).
row_argmax  same dtypes; int64 indices; the first index wins on ties; NaN counts as the
          maximum, first NaN wins (C-16, C-17).
Instances: ``row_<op>__DT_<dtype>``.
"""
import tl


@tl.kernel(grid=lambda x, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def row_sum(x: tl.tensor(DT, 2), out: tl.tensor(DT, 1),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 1, BLOCK: tl.constexpr = 256):
    """out[i] = sum_j x[i, j]."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    acc = tl.zeros((BR, BLOCK), tl.float32)
    comp = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        s = acc + t
        comp = comp + tl.where(tl.abs(acc) >= tl.abs(t), (acc - s) + t, (t - s) + acc)
        acc = s
    # inf/NaN lanes keep acc (their compensation is NaN); finite lanes add it back.
    tot = tl.where(tl.abs(acc) < float("inf"), acc + comp, acc)
    tl.store(out + (r,), tl.sum(tot, axis=1).to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16),
                            dict(DT=tl.int32)])
def row_max(x: tl.tensor(DT, 2), out: tl.tensor(DT, 1),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = max_j x[i, j] (NaN propagates). Requires N >= 1."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    cols = tl.arange(0, BLOCK)
    first = tl.load(x + (r, 0), (BR, 1))
    m = tl.where((cols < n)[None, :], tl.load(x + (r, 0), (BR, BLOCK)), first)
    for c in range(BLOCK, n, BLOCK):
        first = tl.load(x + (r, c), (BR, 1))
        t = tl.where((cols < tl.cast(min(n - c, BLOCK), tl.int32))[None, :], tl.load(x + (r, c), (BR, BLOCK)), first)
        m = tl.maximum(m, t)
    tl.store(out + (r,), tl.max(m, axis=1))


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16),
                            dict(DT=tl.int32)])
def row_argmax(x: tl.tensor(DT, 2), out: tl.tensor(tl.int64, 1),
               DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = first j with x[i, j] maximal (NaN is the maximum). Requires N >= 1."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    cols = tl.arange(0, BLOCK)
    first = tl.load(x + (r, 0), (BR, 1))
    t = tl.where((cols < n)[None, :], tl.load(x + (r, 0), (BR, BLOCK)), first)
    bv = tl.max(t, axis=1)
    bi = tl.argmax(t, axis=1).to(tl.int64)
    for c in range(BLOCK, n, BLOCK):
        first = tl.load(x + (r, c), (BR, 1))
        t = tl.where((cols < tl.cast(min(n - c, BLOCK), tl.int32))[None, :], tl.load(x + (r, c), (BR, BLOCK)), first)
        cv = tl.max(t, axis=1)
        ci = tl.argmax(t, axis=1).to(tl.int64) + c
        upd = (cv > bv) | ((cv != cv) & (bv == bv))
        bv = tl.where(upd, cv, bv)
        bi = tl.where(upd, ci, bi)
    tl.store(out + (r,), bi)
