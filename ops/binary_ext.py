"""Binary elementwise kernels beyond add/sub/mul/div, comparisons, logical ops and where.

All take rank-2 tensors (R, C) with any strides (stride 0 broadcasts); one (4, 256) tile per
program. Instances: ``binary__DT_<dt>__OP_<op>``, ``compare__DT_<dt>__OP_<op>``,
``logical__OP_<op>``, ``where__DT_<dt>``.

binary   float32/float16/bfloat16: pow maximum minimum floor_divide remainder fmod
         trunc_divide (float math in float32, one rounding at the store); int32/int64: add sub
         mul floor_divide remainder fmod trunc_divide maximum minimum (two's complement wrap;
         INT_MIN // -1 wraps; division by zero gives 0 -- documented, never a trap).
         maximum/minimum are IEEE-754-2019 (NaN propagates, min(-0, +0) = -0).
         floor_divide/remainder follow Python (remainder has the sign of the divisor);
         trunc_divide/fmod follow C (fmod has the sign of the dividend).
compare  float32/int32/int64 -> bool: lt le gt ge eq ne (NaN compares unequal).
logical  bool: and or xor (x, y, out) and not (x, out).
where    out = cond ? x : y; x, y, out of one dtype (float32/float16/bfloat16/int8/int32/int64).
"""
import tl

FSPECS = [dict(OP="pow", DT=tl.float32), dict(OP="pow", DT=tl.float16), dict(OP="pow", DT=tl.bfloat16),
 dict(OP="maximum", DT=tl.float32), dict(OP="maximum", DT=tl.float16),
 dict(OP="maximum", DT=tl.bfloat16), dict(OP="minimum", DT=tl.float32),
 dict(OP="minimum", DT=tl.float16), dict(OP="minimum", DT=tl.bfloat16),
 dict(OP="floor_divide", DT=tl.float32), dict(OP="floor_divide", DT=tl.float16),
 dict(OP="floor_divide", DT=tl.bfloat16), dict(OP="remainder", DT=tl.float32),
 dict(OP="remainder", DT=tl.float16), dict(OP="remainder", DT=tl.bfloat16),
 dict(OP="fmod", DT=tl.float32), dict(OP="fmod", DT=tl.float16),
 dict(OP="fmod", DT=tl.bfloat16), dict(OP="trunc_divide", DT=tl.float32),
 dict(OP="trunc_divide", DT=tl.float16), dict(OP="trunc_divide", DT=tl.bfloat16)]
ISPECS = [dict(OP="add", DT=tl.int32), dict(OP="add", DT=tl.int64), dict(OP="sub", DT=tl.int32),
 dict(OP="sub", DT=tl.int64), dict(OP="mul", DT=tl.int32), dict(OP="mul", DT=tl.int64),
 dict(OP="floor_divide", DT=tl.int32), dict(OP="floor_divide", DT=tl.int64),
 dict(OP="remainder", DT=tl.int32), dict(OP="remainder", DT=tl.int64),
 dict(OP="fmod", DT=tl.int32), dict(OP="fmod", DT=tl.int64),
 dict(OP="trunc_divide", DT=tl.int32), dict(OP="trunc_divide", DT=tl.int64),
 dict(OP="maximum", DT=tl.int32), dict(OP="maximum", DT=tl.int64),
 dict(OP="minimum", DT=tl.int32), dict(OP="minimum", DT=tl.int64)]
CSPECS = [dict(OP="lt", DT=tl.float32), dict(OP="lt", DT=tl.int32), dict(OP="lt", DT=tl.int64),
 dict(OP="le", DT=tl.float32), dict(OP="le", DT=tl.int32), dict(OP="le", DT=tl.int64),
 dict(OP="gt", DT=tl.float32), dict(OP="gt", DT=tl.int32), dict(OP="gt", DT=tl.int64),
 dict(OP="ge", DT=tl.float32), dict(OP="ge", DT=tl.int32), dict(OP="ge", DT=tl.int64),
 dict(OP="eq", DT=tl.float32), dict(OP="eq", DT=tl.int32), dict(OP="eq", DT=tl.int64),
 dict(OP="ne", DT=tl.float32), dict(OP="ne", DT=tl.int32), dict(OP="ne", DT=tl.int64)]


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=FSPECS + ISPECS)
def binary(x: tl.tensor(DT, 2), y: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
           OP: tl.constexpr = "pow", DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4,
           BN: tl.constexpr = 256):
    """out = OP(x, y)."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN))
    b = tl.load(y + (r, c), (BM, BN))
    if OP == "add":
        v = a + b
    elif OP == "sub":
        v = a - b
    elif OP == "mul":
        v = a * b
    elif OP == "pow":
        v = a ** b
    elif OP == "maximum":
        v = tl.maximum(a, b)
    elif OP == "minimum":
        v = tl.minimum(a, b)
    elif OP == "floor_divide":
        v = a // b
    elif OP == "remainder" and (DT == tl.float32 or DT == tl.float16 or DT == tl.bfloat16):
        # Python/NumPy with an infinite divisor: x % ±inf is x when the signs agree (0 takes
        # the divisor's sign), else the divisor (a - floor(a/b)*b would give NaN).
        q = a % b
        bad = (tl.abs(b) == float("inf")) & (tl.abs(a) < float("inf"))
        zi = tl.where(b > 0, 0.0, -0.0)
        vi = tl.where(a == 0, zi, tl.where((a < 0) ^ (b < 0), b, a))
        v = tl.where(bad, vi, q)
    elif OP == "remainder":
        v = a % b
    elif OP == "fmod":
        v = tl.fmod(a, b)
    else:
        v = tl.truncdiv(a, b)
    tl.store(out + (r, c), v.to(DT))


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=CSPECS)
def compare(x: tl.tensor(DT, 2), y: tl.tensor(DT, 2), out: tl.tensor(tl.bool_, 2),
            OP: tl.constexpr = "lt", DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4,
            BN: tl.constexpr = 256):
    """out = x OP y (bool)."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN))
    b = tl.load(y + (r, c), (BM, BN))
    if OP == "lt":
        v = a < b
    elif OP == "le":
        v = a <= b
    elif OP == "gt":
        v = a > b
    elif OP == "ge":
        v = a >= b
    elif OP == "eq":
        v = a == b
    else:
        v = a != b
    tl.store(out + (r, c), v)


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=[dict(OP="and"), dict(OP="or"), dict(OP="xor")])
def logical(x: tl.tensor(tl.bool_, 2), y: tl.tensor(tl.bool_, 2), out: tl.tensor(tl.bool_, 2),
            OP: tl.constexpr = "and", BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = x OP y on bools."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN))
    b = tl.load(y + (r, c), (BM, BN))
    if OP == "and":
        v = a & b
    elif OP == "or":
        v = a | b
    else:
        v = a ^ b
    tl.store(out + (r, c), v)


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)))
def logical_not(x: tl.tensor(tl.bool_, 2), out: tl.tensor(tl.bool_, 2), BM: tl.constexpr = 4,
                BN: tl.constexpr = 256):
    """out = not x."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    tl.store(out + (r, c), ~tl.load(x + (r, c), (BM, BN)))


@tl.kernel(grid=lambda cond, x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16), dict(DT=tl.int8),
 dict(DT=tl.int32), dict(DT=tl.int64)])
def where(cond: tl.tensor(tl.bool_, 2), x: tl.tensor(DT, 2), y: tl.tensor(DT, 2),
          out: tl.tensor(DT, 2), DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4,
          BN: tl.constexpr = 256):
    """out = cond ? x : y."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    m = tl.load(cond + (r, c), (BM, BN))
    tl.store(out + (r, c), tl.where(m, tl.load(x + (r, c), (BM, BN)), tl.load(y + (r, c), (BM, BN))))
