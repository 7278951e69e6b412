"""Sort ranks per row: the building block of tl.ops.sort / argsort / topk.

``sort_rank(x, out)``: x (R, N) any strides, out (R, N) int64 contiguous. out[i, j] = the
position of x[i, j] in row i sorted descending (LARGEST=1) or ascending (LARGEST=0), ties by
lower index first (a stable sort; ONNX TopK's tie rule). NaN (float dtypes) is larger than
every number and equal to every NaN, so NaNs come first descending and last ascending (NumPy /
torch order). Ranks of a row are a permutation of 0..N-1. Rank counting, O(N^2) per row: one
program per (row, 64 columns), a runtime loop over the row in 64-wide chunks; meant for rows of
up to a few thousand. Instances ``sort_rank__DT_<dt>__LARGEST_<0|1>`` for float32/float16/
bfloat16/int32/int64.
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
