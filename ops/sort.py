"""Sort ranks per row: the building block of tl.ops.sort / argsort / topk.

``sort_rank(x, out)``: x (R, N) any strides, out (R, N) int64 contiguous. out[i, j] = the
position of x[i, j] in row i sorted descending (LARGEST=1) or ascending (LARGEST=0), ties by
lower index first (a stable sort; ONNX TopK's tie rule). NaN (float dtypes) is larger than
every number and equal to every NaN, so NaNs come first descending and last ascending (NumPy /
torch order). Ranks of a row are a permutation of 0..N-1. Rank counting, O(N^2) per row: one
program per (row, 64 columns), a runtime loop over the row in 64-wide chunks; meant for rows of
up to a few hundred (tl.ops uses it for N <= 256).

``merge_pass(kin, iin, kout, iout, w)``: one pass of a bottom-up merge sort (von Neumann; Knuth,
TAOCP vol. 3, 5.2.4) over rows of (key, index) pairs: each program merges the sorted runs
[s, s + w) and [s + w, s + 2w) of one row into kout/iout, taking from the left run unless the
right key sorts strictly before (stable), with the order of sort_rank (NaN largest). O(w) scalar
steps per program; ceil(log2 N) passes from w = 1 sort a row in O(N log N). All four arrays are
(R, N), contiguous, kout/iout distinct from kin/iin.
Instances ``sort_rank__DT_<dt>__LARGEST_<0|1>`` and ``merge_pass__DT_<dt>__LARGEST_<0|1>`` for
float32/float16/bfloat16/int32/int64.
"""
import tl

SPECS = [dict(DT=tl.float32, LARGEST=0),
 dict(DT=tl.float32, LARGEST=1),
 dict(DT=tl.float16, LARGEST=0),
 dict(DT=tl.float16, LARGEST=1),
 dict(DT=tl.bfloat16, LARGEST=0),
 dict(DT=tl.bfloat16, LARGEST=1),
 dict(DT=tl.int32, LARGEST=0),
 dict(DT=tl.int32, LARGEST=1),
 dict(DT=tl.int64, LARGEST=0),
 dict(DT=tl.int64, LARGEST=1)]


@tl.kernel(grid=lambda x, out: (x.shape[0], tl.cdiv(x.shape[1], 64)), specializations=SPECS)
def sort_rank(x: tl.tensor(DT, 2), out: tl.tensor(tl.int64, 2), DT: tl.constexpr = tl.float32,
              LARGEST: tl.constexpr = 1, BI: tl.constexpr = 64, BJ: tl.constexpr = 64):
    """out[r, i] = #{j : x[r, j] sorts before x[r, i]}."""
    row = tl.program_id(0)
    i0 = tl.program_id(1) * BI
    n = x.shape[1]
    xi = tl.reshape(tl.load(x + (row, i0), (1, BI)), (BI, 1))
    ii = (tl.arange(0, BI).to(tl.int64) + i0)[:, None]
    cnt = tl.zeros((BI,), tl.int32)
    for j0 in range(0, n, BJ):
        xj = tl.load(x + (row, j0), (1, BJ))
        jj = (tl.arange(0, BJ).to(tl.int64) + j0)[None, :]
        if LARGEST == 1:
            gt = xj > xi
        else:
            gt = xj < xi
        eq = xj == xi
        if DT == tl.float32 or DT == tl.float16 or DT == tl.bfloat16:
            ni = tl.isnan(xi)
            nj = tl.isnan(xj)
            if LARGEST == 1:
                gt = gt | (nj & ~ni)
            else:
                gt = (gt & ~ni) | (ni & ~nj)
            eq = eq | (nj & ni)
        before = (gt | (eq & (jj < ii))) & (jj < n)
        cnt = cnt + tl.sum(before.to(tl.int32), axis=1)
    tl.store(out + (row, i0), tl.reshape(cnt.to(tl.int64), (1, BI)))


@tl.kernel(grid=lambda kin, iin, kout, iout, w: (kin.shape[0], tl.cdiv(kin.shape[1], 2 * w)),
           specializations=SPECS)
def merge_pass(kin: tl.tensor(DT, 2), iin: tl.tensor(tl.int64, 2), kout: tl.tensor(DT, 2),
               iout: tl.tensor(tl.int64, 2), w: tl.int64, DT: tl.constexpr = tl.float32,
               LARGEST: tl.constexpr = 1):
    """Merge runs [s, s+w) and [s+w, s+2w) of row program_id(0), s = program_id(1) * 2w."""
    row = tl.program_id(0)
    n = kin.shape[1]
    s = tl.program_id(1) * 2 * w
    mid = tl.minimum(s + w, n)
    end = tl.minimum(s + 2 * w, n)
    a = s
    b = mid
    for o in range(s, end):
        tb = 0
        if a >= mid:
            tb = 1
        elif b < end:
            x = tl.load(kin + (row, a))
            y = tl.load(kin + (row, b))
            if LARGEST == 1:
                if y > x:
                    tb = 1
                if y != y:
                    if x == x:
                        tb = 1
            else:
                if y < x:
                    tb = 1
                if x != x:
                    if y == y:
                        tb = 1
        if tb == 1:
            tl.store(kout + (row, o), tl.load(kin + (row, b)))
            tl.store(iout + (row, o), tl.load(iin + (row, b)))
            b = b + 1
        else:
            tl.store(kout + (row, o), tl.load(kin + (row, a)))
            tl.store(iout + (row, o), tl.load(iin + (row, a)))
            a = a + 1
