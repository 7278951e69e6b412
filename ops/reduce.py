"""Row reductions over the last axis: row_sum, row_max, row_min, row_argmax, row_argmin.

Input ``x`` is a rank-2 tensor (R, N) with any strides and N >= 1 (``tl.ops`` handles empty
inputs without launching); output ``out`` is rank 1 (R,). Each program reduces 4 rows (row_sum:
one row, a single sequential stream, measured faster at 4096^2), walking
the row in 256-wide chunks (row_sum: 64-wide, so its two loop-carried partial-sum tiles stay in
vector registers) with a runtime loop (the real length N = x.shape[1], SEMANTICS C-10).

row_sum   float32/float16/bfloat16, accumulated in float32 lane-wise across chunks with
          compensation (error independent of N/64; exact semantics with -ffp-contract=off): each
          step adds the exact rounding error of acc + t from Knuth's branch-free TwoSum (TAOCP
          vol. 2, 4.2.2), the error term Neumaier's ordered Fast2Sum gives, in 6 operations not 9,
          then a tree sum across lanes; rounded once to DT. inf/NaN propagate as in a plain sum.
row_max   float32/float16/bfloat16/int32; NaN propagates (IEEE maximum). Padding lanes are
          filled with the chunk's first element, so no identity value is needed (C-12: never 0).
row_argmax  same dtypes; int64 indices; the first index wins on ties; NaN counts as the
          maximum, first NaN wins (C-16, C-17).
row_min / row_argmin  the same with min (float32/float16/bfloat16/int32/int64); NaN propagates /
          counts as the minimum. All four share the @tl.func helpers below (LARGEST picks the side).
Instances: ``row_<op>__DT_<dtype>``.
"""
import tl


@tl.kernel(grid=lambda x, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def row_sum(x: tl.tensor(DT, 2), out: tl.tensor(DT, 1),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 1, BLOCK: tl.constexpr = 64):
    """out[i] = sum_j x[i, j]."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    acc = tl.zeros((BR, BLOCK), tl.float32)
    comp = tl.zeros((BR, BLOCK), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (r, c), (BR, BLOCK)).to(tl.float32)
        s = acc + t
        bb = s - acc
        comp = comp + ((acc - (s - bb)) + (t - bb))   # TwoSum: the exact rounding error of acc + t
        acc = s
    # inf/NaN lanes keep acc (their compensation is NaN); finite lanes add it back.
    tot = tl.where(tl.abs(acc) < float("inf"), acc + comp, acc)
    tl.store(out + (r,), tl.sum(tot, axis=1).to(DT))


@tl.func
def chunk(x, r, c, n, cols, BR: tl.constexpr, BLOCK: tl.constexpr):
    """x[r:r+BR, c:c+BLOCK] with the lanes past the row end repeating the chunk's first element
    (so no identity value is needed, C-12); the edge test compares in int32."""
    first = tl.load(x + (r, c), (BR, 1))
    return tl.where((cols < tl.cast(min(n - c, BLOCK), tl.int32))[None, :], tl.load(x + (r, c), (BR, BLOCK)), first)


@tl.func
def row_extreme(x, out, LARGEST: tl.constexpr, BR: tl.constexpr, BLOCK: tl.constexpr):
    """out[r:r+BR] = max (LARGEST) or min of each row; NaN propagates."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    cols = tl.arange(0, BLOCK)
    m = chunk(x, r, 0, n, cols, BR, BLOCK)
    for c in range(BLOCK, n, BLOCK):
        if LARGEST:
            m = tl.maximum(m, chunk(x, r, c, n, cols, BR, BLOCK))
        else:
            m = tl.minimum(m, chunk(x, r, c, n, cols, BR, BLOCK))
    if LARGEST:
        tl.store(out + (r,), tl.max(m, axis=1))
    else:
        tl.store(out + (r,), tl.min(m, axis=1))


@tl.func
def chunk_best(t, LARGEST: tl.constexpr):
    """(value, int64 index) of each row's max (LARGEST) or min in the chunk t; first index wins."""
    if LARGEST:
        v, i = tl.max(t, axis=1), tl.argmax(t, axis=1)
    else:
        v, i = tl.min(t, axis=1), tl.argmin(t, axis=1)
    return v, i.to(tl.int64)


@tl.func
def row_arg_extreme(x, out, LARGEST: tl.constexpr, BR: tl.constexpr, BLOCK: tl.constexpr):
    """out[r:r+BR] = first index of each row's max (LARGEST) or min; NaN counts as the extreme and
    the first NaN wins (C-16, C-17)."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    cols = tl.arange(0, BLOCK)
    bv, bi = chunk_best(chunk(x, r, 0, n, cols, BR, BLOCK), LARGEST)
    for c in range(BLOCK, n, BLOCK):
        cv, ci = chunk_best(chunk(x, r, c, n, cols, BR, BLOCK), LARGEST)
        better = cv > bv if LARGEST else cv < bv
        upd = better | ((cv != cv) & (bv == bv))
        bv = tl.where(upd, cv, bv)
        bi = tl.where(upd, ci + c, bi)
    tl.store(out + (r,), bi)


_MAX_SPECS = [dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16), dict(DT=tl.int32)]
_MIN_SPECS = _MAX_SPECS + [dict(DT=tl.int64)]


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),), specializations=_MAX_SPECS)
def row_max(x: tl.tensor(DT, 2), out: tl.tensor(DT, 1),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = max_j x[i, j] (NaN propagates). Requires N >= 1."""
    row_extreme(x, out, 1, BR, BLOCK)


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),), specializations=_MIN_SPECS)
def row_min(x: tl.tensor(DT, 2), out: tl.tensor(DT, 1),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = min_j x[i, j] (NaN propagates). Requires N >= 1."""
    row_extreme(x, out, 0, BR, BLOCK)


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),), specializations=_MAX_SPECS)
def row_argmax(x: tl.tensor(DT, 2), out: tl.tensor(tl.int64, 1),
               DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = first j with x[i, j] maximal (NaN is the maximum). Requires N >= 1."""
    row_arg_extreme(x, out, 1, BR, BLOCK)


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),), specializations=_MIN_SPECS)
def row_argmin(x: tl.tensor(DT, 2), out: tl.tensor(tl.int64, 1),
               DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = first j with x[i, j] minimal (NaN is the minimum). Requires N >= 1."""
    row_arg_extreme(x, out, 0, BR, BLOCK)
