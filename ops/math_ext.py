"""Elementary float functions (trig, hyperbolic, exp/log variants) and float binary math.

``umath(x, out, a)``: rank-2 ``x, out`` (R, C) of one float dtype (float32, float16, bfloat16),
any strides; ``a`` is a float32 parameter (logit's eps; ignored by the rest).
``bmath(x, y, out)``: rank-2 ``x, y, out`` of one float dtype, any strides (stride 0 broadcasts).
One (4, 256) tile per program; math in float32, rounded once at the store.
Instances: ``umath__DT_<dtype>__OP_<op>``, ``bmath__DT_<dtype>__OP_<op>``.

umath OP: sin cos tan (Cody-Waite reduction by pi/2 in three parts and the Cephes sinf/cosf
minimax polynomials on |r| <= pi/4: a few ulp plus |x| * 2^-46 absolute for |x| <= 8192; beyond,
this kernel's reduction is WRONG (k * pi/2 no longer exact: garbage, even inf/NaN, from ~1e10) --
tl.ops (tl/_ops_math_ext.py) recomputes every |x| > 8192 on the host in float64 and rounds once;
no Payne-Hanek here), asin acos atan (Cephes
asinf/acosf/atanf), sinh cosh (Kahan expm1 below 1, exp(|x|/2)^2 / 2 above 9 so results up to
FLT_MAX do not overflow early), asinh acosh atanh (Goldberg's log1p on cancellation-free
arguments; acosh NaN for every x < 1), expm1 (Kahan: (u - 1) * x / log(u), u = exp(x)), log1p
(Goldberg: log(w) * x / (w - 1), w = 1 + x; log(w) itself above 2^24, so no overflow up to
FLT_MAX), exp2 (exp((x - k) ln2) * 2^k, k = round(x), 2^k exact), log2 log10 (log(x) times
the constant), trunc (toward zero, sign of zero kept), logit (log(p / (1 - p)) with p clamped to
[a, 1 - a]; tl.ops passes a = -1 for no eps, which changes no result: inputs outside [0, 1] give
NaN either way).
bmath OP: atan2 (IEEE/C99 signed zeros and infinities), hypot (scaled: no overflow or
underflow; NaN if either is NaN, except hypot(+-inf, nan) = inf), copysign (sign of a NaN y reads as +), logaddexp
(max + log1p(exp(-|x - y|)); equal infinities give themselves), xlogy (0 where x == 0 and y is
not NaN), heaviside (y where x == 0, NaN for NaN x as NumPy), fmax fmin (NaN-ignoring).
Sources: S. L. Moshier, Cephes Math Library (sinf.c, asinf.c, atanf.c); W. Kahan and
D. Goldberg, "What every computer scientist should know about floating-point arithmetic"
(1991), theorem 4 (log1p) and its expm1 analogue.
"""
import tl

USPECS = dict(OP=["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                  "expm1", "log1p", "exp2", "log2", "log10", "trunc", "logit"],
              DT=[tl.float32, tl.float16, tl.bfloat16])   # every (OP, DT) pair
BSPECS = dict(OP=["atan2", "hypot", "copysign", "logaddexp", "xlogy", "heaviside", "fmax", "fmin"],
              DT=[tl.float32, tl.float16, tl.bfloat16])   # every (OP, DT) pair


@tl.func
def log1p_g(t):
    """log(1 + t), Goldberg's form (exact 1 + t rounding cancelled); log1p(inf) = inf."""
    w = 1.0 + t
    lp = tl.where(w == 1.0, t, tl.log(w) * t / (w - 1.0))
    # above 2^24, w - 1 == t and log(w) * t would overflow for t > ~4e36: log(w) directly
    # (w = t (1 + d), |d| <= 2^-24: absolute error 2^-24 on a result >= 16.6, under 1/16 ulp)
    return tl.where(t > 16777216.0, tl.log(w), lp)


@tl.func
def expm1_k(v):
    """exp(v) - 1, Kahan's form; exp(v) itself above 80 (and for +inf)."""
    u = tl.exp(v)
    um = u - 1.0
    em = tl.where(u == 1.0, v, tl.where(um == -1.0, -1.0, um * v / tl.log(u)))
    return tl.where(v > 80.0, u, em)


@tl.func
def atan_pos(q):
    """atan(q) for q >= 0 (inf included), Cephes atanf: reduce by pi/2 or pi/4, odd poly."""
    big = q > 2.414213562373095
    mid = q > 0.4142135623730950
    t = tl.where(big, -1.0 / q, tl.where(mid, (q - 1.0) / (q + 1.0), q))
    y0 = tl.where(big, 1.5707963267948966, tl.where(mid, 0.7853981633974483, 0.0))
    z = t * t
    p = (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * t + t
    return y0 + p


@tl.func
def asin_poly(s, z):
    """asin(s) for |s| <= 0.5 with z = s * s (Cephes asinf)."""
    p = (((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z
    return (p + 1.6666752422e-1) * z * s + s


@tl.func
def pow2i(k):
    """2^k exactly for integer-valued |k| <= 127 (binary powering by 2^(2^i), i < 7)."""
    kk = tl.abs(k)
    s = tl.where(k < 0.0, 0.5, 2.0)
    p = kk * 0.0 + 1.0
    for i in range(0, 7):
        h = tl.floor(kk * 0.5)
        p = tl.where(kk - 2.0 * h == 1.0, p * s, p)
        kk = h
        s = s * s
    return p


@tl.func
def odd(v, y):
    """y with the sign of v for an odd function computed on |v| (v = +-0 returns v itself)."""
    return tl.where(v < 0.0, -y, tl.where(v == 0.0, v, y))


@tl.func
def signbit(v):
    """True for negative v and -0.0 (a NaN reads as positive)."""
    return (v < 0.0) | ((v == 0.0) & (1.0 / v < 0.0))


@tl.kernel(grid=lambda x, out, a: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=USPECS)
def umath(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2), a: tl.float32, OP: tl.constexpr = "sin",
          DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = OP(x; a)."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    av = tl.abs(v)
    if OP == "sin" or OP == "cos" or OP == "tan":
        k = tl.floor(v * 0.6366197723675814 + 0.5)
        rr = ((v - k * 1.5703125) - k * 4.837512969970703125e-4) - k * 7.54978995489188216e-8
        z = rr * rr
        sp = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * rr + rr
        cp = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0
        q = k - 4.0 * tl.floor(k * 0.25)
        odd = (q == 1.0) | (q == 3.0)
    if OP == "sinh" or OP == "cosh":
        h = tl.exp(0.5 * av)
        hh = (0.5 * h) * h
        e = tl.exp(av)
    if OP == "sin":
        y = tl.where(odd, cp, sp)
        y = tl.where(v == 0.0, v, tl.where(q >= 2.0, -y, y))
    elif OP == "cos":
        y = tl.where(odd, -sp, cp)
        y = tl.where(q >= 2.0, -y, y)
    elif OP == "tan":
        y = tl.where(v == 0.0, v, tl.where(odd, -cp / sp, sp / cp))
    elif OP == "asin" or OP == "acos":
        zb = 0.5 * (1.0 - av)
        sb = tl.sqrt(zb)
        pb = asin_poly(sb, zb)
        ps = asin_poly(v, v * v)
        if OP == "asin":
            y = tl.where(av > 0.5, 1.5707963267948966 - 2.0 * pb, tl.abs(ps))
            y = odd(v, y)
        else:
            y = tl.where(av > 0.5, tl.where(v < 0.0, 3.141592653589793 - 2.0 * pb, 2.0 * pb), 1.5707963267948966 - ps)
    elif OP == "atan":
        y = atan_pos(av)
        y = odd(v, y)
    elif OP == "sinh":
        em = expm1_k(av)
        y = tl.where(av < 1.0, 0.5 * (em + em / (em + 1.0)), 0.5 * (e - 1.0 / e))
        y = tl.where(av > 9.0, hh, y)
        y = odd(v, y)
    elif OP == "cosh":
        y = tl.where(av > 9.0, hh, 0.5 * (e + 1.0 / e))
    elif OP == "asinh":
        y = tl.where(av > 4096.0, tl.log(av) + 0.6931471805599453,
                     log1p_g(av + av * av / (1.0 + tl.sqrt(1.0 + av * av))))
        y = odd(v, y)
    elif OP == "acosh":
        t = v - 1.0
        y = tl.where(v > 4096.0, tl.log(v) + 0.6931471805599453, log1p_g(t + tl.sqrt(2.0 * t + t * t)))
        y = tl.where(v < 1.0, float("nan"), y)
    elif OP == "atanh":
        y = 0.5 * log1p_g(2.0 * av / (1.0 - av))
        y = tl.where(av > 1.0, float("nan"), y)
        y = odd(v, y)
    elif OP == "expm1":
        y = expm1_k(v)
    elif OP == "log1p":
        y = log1p_g(v)
    elif OP == "exp2":
        vc = tl.minimum(tl.maximum(v, -160.0), 160.0)
        k = tl.floor(vc + 0.5)
        k1 = tl.floor(k * 0.5)
        y = (tl.exp((vc - k) * 0.6931471805599453) * pow2i(k1)) * pow2i(k - k1)
        y = tl.where(v > 128.0, float("inf"), tl.where(v < -160.0, 0.0, y))
        y = tl.where(tl.isnan(v), v, y)
    elif OP == "log2":
        y = tl.log(v) * 1.4426950408889634
    elif OP == "log10":
        y = tl.log(v) * 0.4342944819032518
    elif OP == "trunc":
        t = tl.where(v < 0.0, tl.ceil(v), tl.floor(v))
        y = tl.where(t == 0.0, v * 0.0, t)
    else:
        p = tl.where(tl.isnan(v), v, tl.minimum(tl.maximum(v, a), 1.0 - a))
        y = tl.log(p / (1.0 - p))
    tl.store(out + (r, c), y.to(DT))


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=BSPECS)
def bmath(x: tl.tensor(DT, 2), y: tl.tensor(DT, 2), out: tl.tensor(DT, 2), OP: tl.constexpr = "atan2",
          DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = OP(x, y)."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    b = tl.load(y + (r, c), (BM, BN)).to(tl.float32)
    anan = tl.isnan(a)
    bnan = tl.isnan(b)
    if OP == "atan2" or OP == "hypot":
        ay = tl.abs(a)
        ax = tl.abs(b)
        mx = tl.where(ay > ax, ay, ax)
        mn = tl.where(ay > ax, ax, ay)
        q = mn / mx
    if OP == "atan2":
        # a = y coordinate, b = x coordinate (C atan2(y, x))
        q = tl.where(mx == 0.0, 0.0, tl.where(mn == float("inf"), 1.0, q))
        t = atan_pos(q)
        t = tl.where(ay > ax, 1.5707963267948966 - t, t)
        t = tl.where(signbit(b), 3.141592653589793 - t, t)
        v = tl.where(signbit(a), -t, t)
        v = tl.where(anan | bnan, a + b, v)
    elif OP == "hypot":
        q = tl.where(mx == 0.0, 0.0, q)
        v = mx * tl.sqrt(1.0 + q * q)
        v = tl.where(anan | bnan, a + b, v)
        v = tl.where((ay == float("inf")) | (ax == float("inf")), float("inf"), v)
    elif OP == "copysign":
        v = tl.where(signbit(b), -tl.abs(a), tl.abs(a))
    elif OP == "logaddexp":
        m = tl.where(a > b, a, b)
        v = m + log1p_g(tl.exp(-tl.abs(a - b)))
        v = tl.where(a == b, a + 0.6931471805599453, v)
        v = tl.where(anan | bnan, a + b, v)
    elif OP == "xlogy":
        v = tl.where((a == 0.0) & (b == b), 0.0, a * tl.log(b))
    elif OP == "heaviside":
        v = tl.where(a == 0.0, b, tl.where(a > 0.0, 1.0, tl.where(anan, a, 0.0)))
    elif OP == "fmax":
        v = tl.where(bnan, a, tl.where(anan, b, tl.where((a > b) | ((a == b) & signbit(b)), a, b)))
    else:
        v = tl.where(bnan, a, tl.where(anan, b, tl.where((a < b) | ((a == b) & signbit(a)), a, b)))
    tl.store(out + (r, c), v.to(DT))
