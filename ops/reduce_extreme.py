"""Row maximum and minimum over the last axis: row_max, row_min.

Input ``x`` is a rank-2 tensor (R, N) with any strides and N >= 1 (``tl.ops`` handles empty
inputs without launching); output ``out`` is rank 1 (R,). Each program reduces 4 rows, walking
the row in 256-wide chunks with a runtime loop (the real length N = x.shape[1], docs/semantics.md#c-10).

row_max   float32/float16/bfloat16/int32; NaN propagates (IEEE maximum). Padding lanes are
          filled with the chunk's first element, so no identity value is needed (docs/semantics.md#c-12: never 0).
row_min   the same with min (float32/float16/bfloat16/int32/int64); NaN propagates.
Both share the @tl.func helpers below (LARGEST picks the side); ``chunk`` is repeated in
ops/reduce_arg.py (a TL file cannot import another).
The row reductions are split by family into ops/reduce.py (row_sum), ops/reduce_extreme.py
(row_max, row_min) and ops/reduce_arg.py (row_argmax, row_argmin): each file is one compile
unit per CPU variant, so editing one family rebuilds only its instances.
Instances: ``row_<op>__DT_<dtype>``.
"""
import tl


@tl.func
def chunk(x, r, c, n, cols, BR: tl.constexpr, BLOCK: tl.constexpr):
    """x[r:r+BR, c:c+BLOCK] with the lanes past the row end repeating the chunk's first element
    (so no identity value is needed, docs/semantics.md#c-12); the edge test compares in int32."""
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


_MAX_SPECS = [dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16), dict(DT=tl.int32)]
_MIN_SPECS = _MAX_SPECS + [dict(DT=tl.int64)]


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),), specializations=_MAX_SPECS)
def row_max(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R",)),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = max_j x[i, j] (NaN propagates). Requires N >= 1."""
    row_extreme(x, out, 1, BR, BLOCK)


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),), specializations=_MIN_SPECS)
def row_min(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R",)),
            DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = min_j x[i, j] (NaN propagates). Requires N >= 1."""
    row_extreme(x, out, 0, BR, BLOCK)
