"""Data movement kernels: strided copy, arange, triangular masks, gathers, element scatter.

copy6        out = x for rank-6 tensors of one shape, any strides on both sides (stride 0 in x
             broadcasts, negative strides reverse). ``tl.ops`` pads lower ranks with leading
             1s and moves every dtype as raw bits of the same width (float32 as int32, bool as
             int8), so copies are bit-exact. Grid (d0*d1*d2*d3, cdiv(d4, 4), cdiv(d5, 128)).
arange       out[i] = start + i * delta (float32 math; int64 instance in int64 math), rank 1.
tri          rank-2 (R, C): keeps x[i, j] where j - i >= k (UPPER) or j - i <= k (lower), else 0.
take_cols    out[r, m] = x[r, idx[r, m]] (idx int64 in [0, K), checked by ``tl.ops``; an index
             outside reads 0): a scalar load of the index, then of the element (O(1) each).
take_rows    out[p, j, q] = x[p, idx[j], q]: Gather/index_select/embedding, one row copy per
             (p, j) program.
scatter_cols out[r, k] = data[r, k], then for m in order: where idx[r, m] == k, out[r, k] =
             upd[r, m] (REDUCE none: last write wins) or out[r, k] (+ * max min) upd[r, m].
Bit dtypes: int8 float16 bfloat16 int32 int64. Instances: ``<kernel>__DT_<dt>[...]``.
"""
import tl

BSPECS = [dict(DT=tl.int8), dict(DT=tl.float16), dict(DT=tl.bfloat16), dict(DT=tl.int32),
 dict(DT=tl.int64)]


@tl.kernel(grid=lambda x, out: (out.shape[0] * out.shape[1] * out.shape[2] * out.shape[3],
                                tl.cdiv(out.shape[4], 4), tl.cdiv(out.shape[5], 128)),
           specializations=BSPECS)
def copy6(x: tl.tensor(DT, ("A", "B", "C", "D", "E", "F")), out: tl.tensor(DT, ("A", "B", "C", "D", "E", "F")),
          DT: tl.constexpr = tl.int32,
          BM: tl.constexpr = 4, BN: tl.constexpr = 128):
    """out[...] = x[...]."""
    p = tl.program_id(0)
    d3 = out.shape[3]
    d2 = out.shape[2]
    d1 = out.shape[1]
    i3 = p % d3
    q = p // d3
    i2 = q % d2
    q = q // d2
    i1 = q % d1
    i0 = q // d1
    r = tl.program_id(1) * BM
    c = tl.program_id(2) * BN
    t = tl.load(x + (i0, i1, i2, i3, r, c), (1, 1, 1, 1, BM, BN))
    tl.store(out + (i0, i1, i2, i3, r, c), t)


@tl.kernel(grid=lambda out, start, delta: (tl.cdiv(out.shape[0], 1024),))
def arange_f32(out: tl.tensor(tl.float32, 1), start: tl.float32, delta: tl.float32,
               BLOCK: tl.constexpr = 1024):
    """out[i] = start + i * delta (float32)."""
    i = tl.program_id(0) * BLOCK
    idx = (tl.arange(0, BLOCK) + i).to(tl.float32)
    tl.store(out + (i,), start + idx * delta)


@tl.kernel(grid=lambda out, start, delta: (tl.cdiv(out.shape[0], 1024),))
def arange_i64(out: tl.tensor(tl.int64, 1), start: tl.int64, delta: tl.int64,
               BLOCK: tl.constexpr = 1024):
    """out[i] = start + i * delta (int64)."""
    i = tl.program_id(0) * BLOCK
    idx = (tl.arange(0, BLOCK)).to(tl.int64) + i
    tl.store(out + (i,), start + idx * delta)


@tl.kernel(grid=lambda x, out, k: (tl.cdiv(out.shape[0], 16), tl.cdiv(out.shape[1], 128)),
           specializations=[dict(OP="upper", DT=tl.int8), dict(OP="upper", DT=tl.float16),
 dict(OP="upper", DT=tl.bfloat16), dict(OP="upper", DT=tl.int32),
 dict(OP="upper", DT=tl.int64), dict(OP="lower", DT=tl.int8), dict(OP="lower", DT=tl.float16),
 dict(OP="lower", DT=tl.bfloat16), dict(OP="lower", DT=tl.int32),
 dict(OP="lower", DT=tl.int64)])
def tri(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2), k: tl.int64, OP: tl.constexpr = "upper",
        DT: tl.constexpr = tl.int32, BM: tl.constexpr = 16, BN: tl.constexpr = 128):
    """triu (OP upper) / tril (OP lower) with diagonal offset k."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    d = (tl.arange(0, BN) + c)[None, :].to(tl.int64) - (tl.arange(0, BM) + r)[:, None].to(tl.int64)
    keep = d >= k if OP == "upper" else d <= k
    t = tl.load(x + (r, c), (BM, BN))
    tl.store(out + (r, c), tl.where(keep, t, tl.zeros((BM, BN), DT)))


@tl.kernel(grid=lambda x, idx, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 128)),
           specializations=BSPECS)
def take_cols(x: tl.tensor(DT, 2), idx: tl.tensor(tl.int64, 2), out: tl.tensor(DT, 2),
              DT: tl.constexpr = tl.int32, BR: tl.constexpr = 4, BN: tl.constexpr = 128):
    """out[r, m] = x[r, idx[r, m]]: one scalar index load and one element copy per output."""
    r0 = tl.program_id(0) * BR
    c = tl.program_id(1) * BN
    hi = c + BN
    if hi > out.shape[1]:
        hi = out.shape[1]
    for rr in tl.static_range(BR):
        r = r0 + rr
        if r < out.shape[0]:
            for m in range(c, hi):
                tl.store(out + (r, m), tl.load(x + (r, tl.load(idx + (r, m)))))


@tl.kernel(grid=lambda x, idx, out, BQ: (tl.cdiv(out.shape[2], BQ), out.shape[1], out.shape[0]),
           specializations=BSPECS)
def take_rows(x: tl.tensor(DT, 3), idx: tl.tensor(tl.int64, 1), out: tl.tensor(DT, 3),
              DT: tl.constexpr = tl.int32, BQ: tl.constexpr = 256):
    """out[p, j, q] = x[p, idx[j], q]: a scalar index load, then a row copy of BQ lanes."""
    q = tl.program_id(0) * BQ
    j = tl.program_id(1)
    p = tl.program_id(2)
    i = tl.load(idx + (j,))
    tl.store(out + (p, j, q), tl.load(x + (p, i, q), (1, 1, BQ)))


@tl.kernel(grid=lambda data, idx, upd, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 128)),
           specializations=BSPECS + [dict(DT=tl.float32, REDUCE="add"), dict(DT=tl.float32, REDUCE="mul"),
                                     dict(DT=tl.float32, REDUCE="max"), dict(DT=tl.float32, REDUCE="min"),
                                     dict(DT=tl.int64, REDUCE="add")])
def scatter_cols(data: tl.tensor(DT, 2), idx: tl.tensor(tl.int64, 2), upd: tl.tensor(DT, 2),
                 out: tl.tensor(DT, 2), DT: tl.constexpr = tl.int32, REDUCE: tl.constexpr = "none",
                 BR: tl.constexpr = 4, BN: tl.constexpr = 128):
    """out = data with upd scattered along axis 1 at idx (see module doc)."""
    r = tl.program_id(0) * BR
    c = tl.program_id(1) * BN
    cols = (tl.arange(0, BN) + c)[None, :].to(tl.int64)
    acc = tl.load(data + (r, c), (BR, BN))
    for m in range(0, idx.shape[1]):
        im = tl.load(idx + (r, m), (BR, 1), other=-1)
        um = tl.load(upd + (r, m), (BR, 1))
        hit = im == cols
        if REDUCE == "none":
            acc = tl.where(hit, um, acc)
        elif REDUCE == "add":
            acc = tl.where(hit, acc + um, acc)
        elif REDUCE == "mul":
            acc = tl.where(hit, acc * um, acc)
        elif REDUCE == "max":
            acc = tl.where(hit, tl.maximum(acc, um), acc)
        else:
            acc = tl.where(hit, tl.minimum(acc, um), acc)
    tl.store(out + (r, c), acc)
