"""Elementary float math (kernels ``umath`` / ``bmath`` in ops/math_ext.py): trig, inverse trig,
hyperbolic and inverse hyperbolic functions, expm1/log1p/exp2/log2/log10, trunc, logit, and the
binary atan2, hypot, copysign, logaddexp, xlogy, heaviside, fmax, fmin.

All take float32/float16/bfloat16 (math in float32, one rounding at the store); binary ops
broadcast like NumPy (a Python scalar takes the array's dtype) and need one dtype. Every op
accepts ``out=`` (shape and dtype must match the result). Accuracy: a few float32 ulp (tests
state the bound per op: tests/ops/test_math_ext.py; each function's docstring states it).
sin/cos/tan: the kernel (three-part Cody-Waite reduction) is used for |x| <= 8192; the elements
with |x| > 8192 (and +-inf) are recomputed here on the host with NumPy float64 and rounded once
to the dtype (a correct result for every float input, sin/cos always in [-1, 1]). Cost: a
NaN-ignoring max/min of the input on the host (measured +0.1-0.2 ms per 1M float32 on a
kernel time of 0.5-0.9 ms, busy 2-core machine), and only when some |x| > 8192 a mask pass
plus NumPy float64 for those elements. Errors: TypeError naming the argument for an unsupported
or mixed dtype,
ValueError for shapes that do not broadcast or a wrong ``out`` shape.
"""
from __future__ import annotations

import numpy as np

from tl.ops._core import _arr, _prep, _run
from tl.ops._registry import names_in, public_op


_TRIG = {"sin": np.sin, "cos": np.cos, "tan": np.tan}
_TRIG_MAX = 8192.0   # the kernel's reduction is exact enough up to here (ops/math_ext.py)


def _umath(name, x, out):
    """One op of the umath kernel (name: its OP); sin/cos/tan past 8192 recomputed on the host."""
    x, dt = _arr(x, "x", name)
    fix = None
    # NaN-ignoring max/min first (no temporary); the mask only when some |x| > 8192
    if name in _TRIG and x.size and (np.fmax.reduce(x, axis=None) > _TRIG_MAX
                                     or np.fmin.reduce(x, axis=None) < -_TRIG_MAX):
        big = np.abs(x) > _TRIG_MAX              # NaN: False (the kernel passes it through)
        with np.errstate(invalid="ignore", over="ignore"):   # sin(inf); tan past 65504 in float16
            # computed before the launch: ``out`` may alias x
            fix = (big, _TRIG[name](x[big].astype(np.float64)).astype(x.dtype))
    r = _run(f"umath__DT_{dt}__OP_{name}", [x], x.shape, dt, name, out, (0.0,))
    if fix is not None:
        r[fix[0]] = fix[1]
    return r


def _bmath(name, a, b, out, names=("a", "b")):
    """One op of the bmath kernel (name: its OP)."""
    (a, b), dt, shape = _prep(name, [a, b], list(names), ("float32", "float16", "bfloat16"))
    return _run(f"bmath__DT_{dt}__OP_{name}", [a, b], shape, dt, name, out)


@public_op
def sin(x, out=None):
    """Sine (radians).

    Accuracy: float32 within 4 ulp of the float64 result plus |x| * 2^-46 absolute (times 1 + tan(x)^2
    for tan) for |x| <= 8192 (three-part Cody-Waite reduction by pi/2); |x| > 8192 is recomputed on the
    host with NumPy float64 and rounded once (<= 0.5 ulp + one double rounding); float16/bfloat16 within
    one unit of the dtype (float32 math, one rounding). Source: Cephes sinf/cosf polynomials (see
    ops/math_ext.py)."""
    return _umath("sin", x, out)


@public_op
def cos(x, out=None):
    """Cosine (radians).

    Accuracy: float32 within 4 ulp of the float64 result plus |x| * 2^-46 absolute (times 1 + tan(x)^2
    for tan) for |x| <= 8192 (three-part Cody-Waite reduction by pi/2); |x| > 8192 is recomputed on the
    host with NumPy float64 and rounded once (<= 0.5 ulp + one double rounding); float16/bfloat16 within
    one unit of the dtype (float32 math, one rounding). Source: Cephes sinf/cosf polynomials (see
    ops/math_ext.py)."""
    return _umath("cos", x, out)


@public_op
def tan(x, out=None):
    """Tangent (radians).

    Accuracy: float32 within 6 ulp of the float64 result plus |x| * 2^-46 absolute (times 1 + tan(x)^2
    for tan) for |x| <= 8192 (three-part Cody-Waite reduction by pi/2); |x| > 8192 is recomputed on the
    host with NumPy float64 and rounded once (<= 0.5 ulp + one double rounding); float16/bfloat16 within
    one unit of the dtype (float32 math, one rounding). Source: Cephes sinf/cosf polynomials (sin/cos)
    (see ops/math_ext.py)."""
    return _umath("tan", x, out)


@public_op
def asin(x, out=None):
    """Inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1].

    Accuracy: float32 within 4 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Cephes asinf (see
    ops/math_ext.py)."""
    return _umath("asin", x, out)


@public_op
def acos(x, out=None):
    """Inverse cosine, in [0, pi]; NaN outside [-1, 1].

    Accuracy: float32 within 4 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Cephes acosf (see
    ops/math_ext.py)."""
    return _umath("acos", x, out)


@public_op
def atan(x, out=None):
    """Inverse tangent, in [-pi/2, pi/2].

    Accuracy: float32 within 4 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Cephes atanf (see
    ops/math_ext.py)."""
    return _umath("atan", x, out)


@public_op
def sinh(x, out=None):
    """Hyperbolic sine (no early overflow: finite up to |x| ~ 89.4).

    Accuracy: float32 within 6 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Kahan's expm1 (see
    ops/math_ext.py)."""
    return _umath("sinh", x, out)


@public_op
def cosh(x, out=None):
    """Hyperbolic cosine.

    Accuracy: float32 within 6 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: exp (see ops/math_ext.py)."""
    return _umath("cosh", x, out)


@public_op
def asinh(x, out=None):
    """Inverse hyperbolic sine.

    Accuracy: float32 within 6 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Goldberg's log1p (see
    ops/math_ext.py)."""
    return _umath("asinh", x, out)


@public_op
def acosh(x, out=None):
    """Inverse hyperbolic cosine; NaN for x < 1.

    Accuracy: float32 within 6 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Goldberg's log1p (see
    ops/math_ext.py)."""
    return _umath("acosh", x, out)


@public_op
def atanh(x, out=None):
    """Inverse hyperbolic tangent; +-inf at +-1, NaN outside [-1, 1].

    Accuracy: float32 within 6 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Goldberg's log1p (see
    ops/math_ext.py)."""
    return _umath("atanh", x, out)


@public_op
def expm1(x, out=None):
    """exp(x) - 1, accurate for small |x|.

    Accuracy: float32 within 6 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Kahan's (u - 1) x / log(u) (see
    ops/math_ext.py)."""
    return _umath("expm1", x, out)


@public_op
def log1p(x, out=None):
    """log(1 + x), accurate for small |x|; -inf at -1, NaN below.

    Accuracy: float32 within 6 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: Goldberg's log(w) x / (w - 1)
    (see ops/math_ext.py)."""
    return _umath("log1p", x, out)


@public_op
def exp2(x, out=None):
    """2 ** x (exact for integer x in range).

    Accuracy: float32 within 4 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: exp with an exact 2^k (see
    ops/math_ext.py)."""
    return _umath("exp2", x, out)


@public_op
def log2(x, out=None):
    """Base-2 logarithm.

    Accuracy: float32 within 4 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: log times 1/ln2 (see
    ops/math_ext.py)."""
    return _umath("log2", x, out)


@public_op
def log10(x, out=None):
    """Base-10 logarithm.

    Accuracy: float32 within 4 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: log times 1/ln10 (see
    ops/math_ext.py)."""
    return _umath("log10", x, out)


@public_op
def trunc(x, out=None):
    """Round toward zero (the sign of zero is kept; NaN and inf pass through).

    Accuracy: float32 within 0 ulp of the float64 result over the whole float32 range; float16/bfloat16
    within one unit of the dtype (float32 math, one rounding). Source: exact (see ops/math_ext.py)."""
    return _umath("trunc", x, out)


@public_op
def atan2(a, b, out=None):
    """Angle of the point (b, a): atan(a / b) in the right quadrant, in [-pi, pi] (C99 atan2 for signed
    zeros and infinities; torch.atan2(input=a, other=b))."""
    return _bmath("atan2", a, b, out)


@public_op
def hypot(a, b, out=None):
    """sqrt(a**2 + b**2) without overflow or underflow; inf if either is +-inf (even with a NaN), else NaN
    if either is NaN (NumPy/torch)."""
    return _bmath("hypot", a, b, out)


@public_op
def copysign(a, b, out=None):
    """|a| with the sign of b (-0.0 counts as negative; a NaN b counts as positive)."""
    return _bmath("copysign", a, b, out)


@public_op
def logaddexp(a, b, out=None):
    """log(exp(a) + exp(b)), stable for large |a|, |b|."""
    return _bmath("logaddexp", a, b, out)


@public_op
def xlogy(a, b, out=None):
    """a * log(b), 0 where a == 0 and b is not NaN (torch.xlogy)."""
    return _bmath("xlogy", a, b, out)


@public_op
def fmax(a, b, out=None):
    """Maximum that ignores NaN (NaN only when both are NaN); fmax(-0, +0) = +0."""
    return _bmath("fmax", a, b, out)


@public_op
def fmin(a, b, out=None):
    """Minimum that ignores NaN (NaN only when both are NaN); fmin(-0, +0) = -0."""
    return _bmath("fmin", a, b, out)


@public_op
def heaviside(x, values, out=None):
    """0 where x < 0, ``values`` where x == 0, 1 where x > 0; NaN where x is NaN (as NumPy;
    torch gives 0 there). ``values`` broadcasts against x."""
    return _bmath("heaviside", x, values, out, ("x", "values"))


@public_op
def logit(x, eps: float | None = None, out=None):
    """log(p / (1 - p)) with p = x, or x clamped to [eps, 1 - eps] when ``eps`` is given
    (torch.logit); NaN outside [0, 1] without eps. ValueError for eps outside [0, 0.5]."""
    if eps is not None and not 0.0 <= float(eps) <= 0.5:
        raise ValueError(f"tl.ops.logit: argument 'eps' must be in [0, 0.5], got {eps}")
    x, dt = _arr(x, "x", "logit")
    return _run(f"umath__DT_{dt}__OP_logit", [x], x.shape, dt, "logit", out,
                (-1.0 if eps is None else float(eps),))


__all__ = names_in(__name__)
