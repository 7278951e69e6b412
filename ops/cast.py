"""Elementwise dtype conversion: out = x.to(DST), x of dtype SRC, rank 2, any strides.

Direct instances (``cast__DST_<dst>__SRC_<src>``) exist for float32 <-> {float16, bfloat16,
int32, int64, bool} and int32 <-> {int64, int8}; ``tl.ops.cast`` reaches every other pair in
at most three exact-or-single-rounding hops (see tl/ops.py). Semantics: float -> float rounds to
nearest even; float -> int truncates toward zero (NaN / out of range: unspecified); int -> int
wraps (two's complement); anything -> bool is ``x != 0`` (NaN -> True); bool -> number is 0/1.
"""
import tl


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=[dict(SRC=tl.float32, DST=tl.float16), dict(SRC=tl.float16, DST=tl.float32),
                            dict(SRC=tl.float32, DST=tl.bfloat16), dict(SRC=tl.bfloat16, DST=tl.float32),
                            dict(SRC=tl.float32, DST=tl.int32), dict(SRC=tl.int32, DST=tl.float32),
                            dict(SRC=tl.float32, DST=tl.int64), dict(SRC=tl.int64, DST=tl.float32),
                            dict(SRC=tl.float32, DST=tl.bool_), dict(SRC=tl.bool_, DST=tl.float32),
                            dict(SRC=tl.int32, DST=tl.int64), dict(SRC=tl.int64, DST=tl.int32),
                            dict(SRC=tl.int32, DST=tl.int8), dict(SRC=tl.int8, DST=tl.int32)])
def cast(x: tl.tensor(SRC, ("M", "N")), out: tl.tensor(DST, ("M", "N")), SRC: tl.constexpr = tl.float32,
         DST: tl.constexpr = tl.float16, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = x converted to DST."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    tl.store(out + (r, c), tl.load(x + (r, c), (BM, BN)).to(DST))
