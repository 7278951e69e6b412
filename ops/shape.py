"""2-D transpose (float32, float16, bfloat16): out (C, R) = x (R, C) transposed.

Each program moves one 32x32 tile (any strides on both sides); edges are bounds-checked.
Instances: ``transpose__DT_<dtype>``.
"""
import tl


@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 32), tl.cdiv(x.shape[1], 32)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def transpose(x: tl.tensor(DT, ("M", "N")), out: tl.tensor(DT, ("N", "M")),
              DT: tl.constexpr = tl.float32, BT: tl.constexpr = 32):
    """out[j, i] = x[i, j]."""
    i = tl.program_id(0) * BT
    j = tl.program_id(1) * BT
    t = tl.load(x + (i, j), (BT, BT))
    tl.store(out + (j, i), tl.trans(t))
