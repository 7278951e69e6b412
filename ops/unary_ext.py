"""Unary float math and activation kernels, one source with a compile-time OP switch.

``unary(x, out, a, b)``: rank-2 tensors ``x, out`` (R, C) of one float dtype (float32, float16,
bfloat16), any strides; ``a``, ``b`` are float32 parameters used by some ops (ignored by the
rest). One (4, 256) tile per program; math in float32, rounded once at the store.
Instances: ``unary__DT_<dtype>__OP_<op>``.

OP: neg abs sqrt rsqrt (1/sqrt) log erf floor ceil round (half to even, sign of zero kept)
reciprocal sign (NaN and +-0 pass through) softsign softplus (log1p(exp(-|x|)) + max(x, 0)
with Goldberg's log1p, exact tail for x << 0) hardswish hardsigmoid (max(0, min(1, a*x + b)))
leaky_relu (slope a) elu (a) selu (alpha a, gamma b) celu (a) clamp (lo a, hi b; NaN
propagates) mish thresholded_relu (x > a ? x : 0). elu/selu/celu use Kahan's
expm1 = (u - 1) * x / log(u), u = exp(x), so small |x| keeps full relative accuracy.
"""
import tl

SPECS = [dict(OP="neg", DT=tl.float32), dict(OP="neg", DT=tl.float16), dict(OP="neg", DT=tl.bfloat16),
 dict(OP="abs", DT=tl.float32), dict(OP="abs", DT=tl.float16), dict(OP="abs", DT=tl.bfloat16),
 dict(OP="sqrt", DT=tl.float32), dict(OP="sqrt", DT=tl.float16),
 dict(OP="sqrt", DT=tl.bfloat16), dict(OP="rsqrt", DT=tl.float32),
 dict(OP="rsqrt", DT=tl.float16), dict(OP="rsqrt", DT=tl.bfloat16),
 dict(OP="log", DT=tl.float32), dict(OP="log", DT=tl.float16), dict(OP="log", DT=tl.bfloat16),
 dict(OP="erf", DT=tl.float32), dict(OP="erf", DT=tl.float16), dict(OP="erf", DT=tl.bfloat16),
 dict(OP="floor", DT=tl.float32), dict(OP="floor", DT=tl.float16),
 dict(OP="floor", DT=tl.bfloat16), dict(OP="ceil", DT=tl.float32),
 dict(OP="ceil", DT=tl.float16), dict(OP="ceil", DT=tl.bfloat16),
 dict(OP="round", DT=tl.float32), dict(OP="round", DT=tl.float16),
 dict(OP="round", DT=tl.bfloat16), dict(OP="reciprocal", DT=tl.float32),
 dict(OP="reciprocal", DT=tl.float16), dict(OP="reciprocal", DT=tl.bfloat16),
 dict(OP="sign", DT=tl.float32), dict(OP="sign", DT=tl.float16),
 dict(OP="sign", DT=tl.bfloat16), dict(OP="softsign", DT=tl.float32),
 dict(OP="softsign", DT=tl.float16), dict(OP="softsign", DT=tl.bfloat16),
 dict(OP="softplus", DT=tl.float32), dict(OP="softplus", DT=tl.float16),
 dict(OP="softplus", DT=tl.bfloat16), dict(OP="hardswish", DT=tl.float32),
 dict(OP="hardswish", DT=tl.float16), dict(OP="hardswish", DT=tl.bfloat16),
 dict(OP="hardsigmoid", DT=tl.float32), dict(OP="hardsigmoid", DT=tl.float16),
 dict(OP="hardsigmoid", DT=tl.bfloat16), dict(OP="leaky_relu", DT=tl.float32),
 dict(OP="leaky_relu", DT=tl.float16), dict(OP="leaky_relu", DT=tl.bfloat16),
 dict(OP="elu", DT=tl.float32), dict(OP="elu", DT=tl.float16), dict(OP="elu", DT=tl.bfloat16),
 dict(OP="selu", DT=tl.float32), dict(OP="selu", DT=tl.float16),
 dict(OP="selu", DT=tl.bfloat16), dict(OP="celu", DT=tl.float32),
 dict(OP="celu", DT=tl.float16), dict(OP="celu", DT=tl.bfloat16),
 dict(OP="clamp", DT=tl.float32), dict(OP="clamp", DT=tl.float16),
 dict(OP="clamp", DT=tl.bfloat16), dict(OP="mish", DT=tl.float32),
 dict(OP="mish", DT=tl.float16), dict(OP="mish", DT=tl.bfloat16),
 dict(OP="thresholded_relu", DT=tl.float32), dict(OP="thresholded_relu", DT=tl.float16),
 dict(OP="thresholded_relu", DT=tl.bfloat16)]


@tl.kernel(grid=lambda x, out, a, b: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)),
           specializations=SPECS)
def unary(x: tl.tensor(DT, ("M", "N")), out: tl.tensor(DT, ("M", "N")), a: tl.float32, b: tl.float32,
          OP: tl.constexpr = "neg", DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4,
          BN: tl.constexpr = 256):
    """out = OP(x; a, b)."""
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    if OP == "elu" or OP == "selu" or OP == "celu":
        z = v / a if OP == "celu" else v
        u = tl.exp(z)
        um = u - 1.0
        em = tl.where(u == 1.0, z, tl.where(um == -1.0, -1.0, um * z / tl.log(u)))
        em = tl.where(z > 80.0, u, em)
    if OP == "softplus" or OP == "mish":
        e = tl.exp(-tl.abs(v))
        w = 1.0 + e
        sp = tl.maximum(v, 0.0) + tl.where(w == 1.0, e, tl.log(w) * e / (w - 1.0))
    if OP == "neg":
        y = -v
    elif OP == "abs":
        y = tl.abs(v)
    elif OP == "sqrt":
        y = tl.sqrt(v)
    elif OP == "rsqrt":
        y = 1.0 / tl.sqrt(v)
    elif OP == "log":
        y = tl.log(v)
    elif OP == "erf":
        y = tl.erf(v)
    elif OP == "floor":
        y = tl.floor(v)
    elif OP == "ceil":
        y = tl.ceil(v)
    elif OP == "round":
        f = tl.floor(v)
        d = v - f
        even = (f - 2.0 * tl.floor(f * 0.5)) == 0.0
        rr = tl.where(d > 0.5, f + 1.0, tl.where(d < 0.5, f, tl.where(even, f, f + 1.0)))
        y = tl.where(rr == 0.0, v * 0.0, rr)
    elif OP == "reciprocal":
        y = 1.0 / v
    elif OP == "sign":
        y = tl.where(v > 0.0, 1.0, tl.where(v < 0.0, -1.0, v))
    elif OP == "softsign":
        y = v / (1.0 + tl.abs(v))
    elif OP == "softplus":
        y = sp
    elif OP == "hardswish":
        y = v * tl.minimum(tl.maximum(v + 3.0, 0.0), 6.0) / 6.0
    elif OP == "hardsigmoid":
        y = tl.maximum(tl.minimum(a * v + b, 1.0), 0.0)
    elif OP == "leaky_relu":
        y = tl.where(v >= 0.0, v, a * v)
    elif OP == "elu":
        y = tl.where(v > 0.0, v, a * em)
    elif OP == "selu":
        y = b * tl.where(v > 0.0, v, a * em)
    elif OP == "celu":
        y = tl.maximum(v, 0.0) + tl.minimum(a * em, 0.0)
    elif OP == "clamp":
        y = tl.minimum(tl.maximum(v, a), b)
    elif OP == "mish":
        y = v * tl.tanh(sp)
    else:
        y = tl.where(v > a, v, 0.0)
    tl.store(out + (r, c), y.to(DT))
