"""Row argmax and argmin over the last axis: row_argmax, row_argmin.

Input ``x`` is a rank-2 tensor (R, N) with any strides and N >= 1 (``tl.ops`` handles empty
inputs without launching); output ``out`` is rank 1 (R,) of int64 indices. Each program reduces
4 rows, walking the row in 256-wide chunks with a runtime loop (the real length N = x.shape[1],
docs/semantics.md#c-10). Padding lanes are filled with the chunk's first element (docs/semantics.md#c-12: no identity).

row_argmax  float32/float16/bfloat16/int32; the first index wins on ties; NaN counts as the
            maximum, first NaN wins (docs/semantics.md#c-16, docs/semantics.md#c-17).
row_argmin  the same with min (float32/float16/bfloat16/int32/int64); NaN counts as the minimum.
Both share the @tl.func helpers below (LARGEST picks the side). Split from ops/reduce.py so
each family rebuilds alone (see ops/reduce_extreme.py); ``chunk_or_first`` is that file's
``chunk`` (a TL file cannot import another). Instances: ``row_<op>__DT_<dtype>``.
"""
import tl


@tl.func
def chunk_or_first(x, r, c, n, cols, BR: tl.constexpr, BLOCK: tl.constexpr):
    """x[r:r+BR, c:c+BLOCK], lanes past the row end = the chunk's first element (docs/semantics.md#c-12)."""
    edge = (cols < tl.cast(min(n - c, BLOCK), tl.int32))[None, :]
    return tl.where(edge, tl.load(x + (r, c), (BR, BLOCK)), tl.load(x + (r, c), (BR, 1)))


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
    the first NaN wins (docs/semantics.md#c-16, docs/semantics.md#c-17)."""
    r = tl.program_id(0) * BR
    n = x.shape[1]
    cols = tl.arange(0, BLOCK)
    bv, bi = chunk_best(chunk_or_first(x, r, 0, n, cols, BR, BLOCK), LARGEST)
    for c in range(BLOCK, n, BLOCK):
        cv, ci = chunk_best(chunk_or_first(x, r, c, n, cols, BR, BLOCK), LARGEST)
        better = cv > bv if LARGEST else cv < bv
        upd = better | ((cv != cv) & (bv == bv))
        bv = tl.where(upd, cv, bv)
        bi = tl.where(upd, ci + c, bi)
    tl.store(out + (r,), bi)


_MAX_SPECS = [dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16), dict(DT=tl.int32)]
_MIN_SPECS = _MAX_SPECS + [dict(DT=tl.int64)]


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),), specializations=_MAX_SPECS)
def row_argmax(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(tl.int64, ("R",)),
               DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = first j with x[i, j] maximal (NaN is the maximum). Requires N >= 1."""
    row_arg_extreme(x, out, 1, BR, BLOCK)


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4),), specializations=_MIN_SPECS)
def row_argmin(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(tl.int64, ("R",)),
               DT: tl.constexpr = tl.float32, BR: tl.constexpr = 4, BLOCK: tl.constexpr = 256):
    """out[i] = first j with x[i, j] minimal (NaN is the minimum). Requires N >= 1."""
    row_arg_extreme(x, out, 0, BR, BLOCK)
