"""Row sum over the last axis: row_sum (float32/float16/bfloat16).

Input ``x`` is a rank-2 tensor (R, N) with any strides and N >= 1 (``tl.ops`` handles empty
inputs without launching); output ``out`` is rank 1 (R,). Each program reduces one row (a
single sequential stream, measured faster than 4 rows at 4096^2), walking the row in 64-wide
chunks (so its two loop-carried partial-sum tiles stay in vector registers) with a runtime loop
(the real length N = x.shape[1], docs/semantics.md#c-10).

row_sum   float32/float16/bfloat16, accumulated in float32 lane-wise across chunks with
          compensation (error independent of N/64; exact semantics with -ffp-contract=off): each
          step adds the exact rounding error of acc + t from Knuth's branch-free TwoSum (TAOCP
          vol. 2, 4.2.2), the error term Neumaier's ordered Fast2Sum gives, in 6 operations not 9,
          then a tree sum across lanes; rounded once to DT. inf/NaN propagate as in a plain sum.
The row reductions are split by family into ops/reduce.py (row_sum), ops/reduce_extreme.py
(row_max, row_min) and ops/reduce_arg.py (row_argmax, row_argmin): each file is one compile
unit per CPU variant, so editing one family rebuilds only its instances.
Instances: ``row_sum__DT_<dtype>``.
"""
import tl


@tl.kernel(grid=lambda x, out: (x.shape[0],),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def row_sum(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(DT, ("R",)),
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
