"""Binary elementwise kernels beyond add/sub/mul/div, comparisons, logical ops and where.

All take rank-2 tensors (R, C) with any strides (stride 0 broadcasts); one (4, 256) tile per
program. Instances: ``binary__DT_<dt>__OP_<op>``, ``compare__DT_<dt>__OP_<op>``,
``logical_not``, ``where__DT_<dt>`` (bool and/or/xor run on ops/bitwise.py's int8 kernel).

binary   float32/float16/bfloat16: pow maximum minimum floor_divide remainder fmod
         trunc_divide (float math in float32, one rounding at the store); int32/int64: add sub
         mul floor_divide remainder fmod trunc_divide maximum minimum (two's complement wrap;
         INT_MIN // -1 wraps; division by zero gives 0 -- documented, never a trap).
         maximum/minimum are IEEE-754-2019 (NaN propagates, min(-0, +0) = -0).
         floor_divide/remainder follow Python (remainder has the sign of the divisor);
         trunc_divide/fmod follow C (fmod has the sign of the dividend). Float fmod is exact
         (binary long division, ~300 tile steps: slow but correct for any |a/b|), and float
         floor_divide/remainder use NumPy's npy_divmod on it, so they match np.floor_divide /
         np.remainder / np.fmod on float32 (1 // 0.1 = 9, inf // 2 = nan, x % ±inf, -0.0).
compare  float32/int32/int64 -> bool: lt le gt ge eq ne (NaN compares unequal).
logical_not  bool: not (x, out).
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
def binary(x: tl.tensor(DT, ("M", "N")), y: tl.tensor(DT, ("M", "N")), out: tl.tensor(DT, ("M", "N")),
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
    elif (OP == "floor_divide" or OP == "remainder" or OP == "fmod") and (
            DT == tl.float32 or DT == tl.float16 or DT == tl.bfloat16):
        # Exact C fmod by binary long division: t = |b| * 2^k (exact scaling), subtracted from
        # r = |a| from the largest k down (each r - t is exact by Sterbenz). Fixed trip counts
        # cover the whole float32 exponent range (2^-149 .. 2^128).
        ra = tl.abs(a)
        d = tl.abs(b)
        t = d
        for i in range(0, 18):
            t2 = t * 65536.0
            t = tl.where(t2 <= ra, t2, t)
        for i in range(0, 17):
            t2 = t * 2.0
            t = tl.where(t2 <= ra, t2, t)
        for i in range(0, 280):
            ra = tl.where((ra >= t) & (t >= d), ra - t, ra)
            t = t * 0.5
        m = tl.where(ra == 0, a * 0.0, tl.where(a < 0, -ra, ra))
        binf = tl.abs(b) == float("inf")
        m = tl.where(binf, a, m)
        m = tl.where((tl.abs(a) == float("inf")) | (b == 0) | tl.isnan(a) | tl.isnan(b), float("nan"), m)
        if OP == "fmod":
            v = m
        else:
            # NumPy npy_divmod: div = (a - mod) / b, moved one step down when mod and b differ
            # in sign; floordiv = floor(div) rounded up when div - floor(div) > 0.5.
            dv = (a - m) / b
            adj = (m != 0) & ((b < 0) ^ (m < 0))
            mod = tl.where(adj, m + b, m)
            dv = tl.where(adj, dv - 1.0, dv)
            if OP == "remainder":
                v = tl.where(mod == 0, tl.where(b < 0, -0.0, 0.0), mod)
            else:
                fl = tl.floor(dv)
                fl = tl.where(dv - fl > 0.5, fl + 1.0, fl)
                fl = tl.where(dv == 0, (a / b) * 0.0, fl)
                v = tl.where(b == 0, a / b, fl)
    elif OP == "floor_divide":
        v = a // b
    elif OP == "remainder":
        v = a % b
    elif OP == "fmod":
        v = tl.fmod(a, b)
    else:
        v = tl.truncdiv(a, b)
    tl.store(out + (r, c), v.to(DT))


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=CSPECS)
def compare(x: tl.tensor(DT, ("M", "N")), y: tl.tensor(DT, ("M", "N")), out: tl.tensor(tl.bool_, ("M", "N")),
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


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)))
def logical_not(x: tl.tensor(tl.bool_, ("M", "N")), out: tl.tensor(tl.bool_, ("M", "N")), BM: tl.constexpr = 4,
                BN: tl.constexpr = 256):
    """out = not x."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    tl.store(out + (r, c), ~tl.load(x + (r, c), (BM, BN)))


@tl.kernel(grid=lambda cond, x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16), dict(DT=tl.int8),
 dict(DT=tl.int32), dict(DT=tl.int64)])
def where(cond: tl.tensor(tl.bool_, ("M", "N")), x: tl.tensor(DT, ("M", "N")), y: tl.tensor(DT, ("M", "N")),
          out: tl.tensor(DT, ("M", "N")), DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4,
          BN: tl.constexpr = 256):
    """out = cond ? x : y."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    m = tl.load(cond + (r, c), (BM, BN))
    tl.store(out + (r, c), tl.where(m, tl.load(x + (r, c), (BM, BN)), tl.load(y + (r, c), (BM, BN))))
