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

from tl.ops import _arr
from tl._ops_ew import _prep, _run

_UNARY = {
    "sin": "Sine (radians).",
    "cos": "Cosine (radians).",
    "tan": "Tangent (radians).",
    "asin": "Inverse sine, in [-pi/2, pi/2]; NaN outside [-1, 1].",
    "acos": "Inverse cosine, in [0, pi]; NaN outside [-1, 1].",
    "atan": "Inverse tangent, in [-pi/2, pi/2].",
    "sinh": "Hyperbolic sine (no early overflow: finite up to |x| ~ 89.4).",
    "cosh": "Hyperbolic cosine.",
    "asinh": "Inverse hyperbolic sine.",
    "acosh": "Inverse hyperbolic cosine; NaN for x < 1.",
    "atanh": "Inverse hyperbolic tangent; +-inf at +-1, NaN outside [-1, 1].",
    "expm1": "exp(x) - 1, accurate for small |x|.",
    "log1p": "log(1 + x), accurate for small |x|; -inf at -1, NaN below.",
    "exp2": "2 ** x (exact for integer x in range).",
    "log2": "Base-2 logarithm.",
    "log10": "Base-10 logarithm.",
    "trunc": "Round toward zero (the sign of zero is kept; NaN and inf pass through).",
}
_BINARY = {
    "atan2": "Angle of the point (b, a): atan(a / b) in the right quadrant, in [-pi, pi] "
             "(C99 atan2 for signed zeros and infinities; torch.atan2(input=a, other=b)).",
    "hypot": "sqrt(a**2 + b**2) without overflow or underflow; inf if either is +-inf (even with a NaN), "
             "else NaN if either is NaN (NumPy/torch).",
    "copysign": "|a| with the sign of b (-0.0 counts as negative; a NaN b counts as positive).",
    "logaddexp": "log(exp(a) + exp(b)), stable for large |a|, |b|.",
    "xlogy": "a * log(b), 0 where a == 0 and b is not NaN (torch.xlogy).",
    "fmax": "Maximum that ignores NaN (NaN only when both are NaN); fmax(-0, +0) = +0.",
    "fmin": "Minimum that ignores NaN (NaN only when both are NaN); fmin(-0, +0) = -0.",
}


# float32 accuracy (ulp of the float64 reference, measured on random inputs over the domain,
# tests/ops/test_math_ext.py ULP32); float16/bfloat16 results are within one unit of the dtype
_ULP = {"sin": 4, "cos": 4, "tan": 6, "asin": 4, "acos": 4, "atan": 4, "sinh": 6, "cosh": 6, "asinh": 6,
        "acosh": 6, "atanh": 6, "expm1": 6, "log1p": 6, "exp2": 4, "log2": 4, "log10": 4, "trunc": 0}
_SRC = {"sin": "Cephes sinf/cosf polynomials", "cos": "Cephes sinf/cosf polynomials",
        "tan": "Cephes sinf/cosf polynomials (sin/cos)", "asin": "Cephes asinf", "acos": "Cephes acosf",
        "atan": "Cephes atanf", "sinh": "Kahan's expm1", "cosh": "exp", "asinh": "Goldberg's log1p",
        "acosh": "Goldberg's log1p", "atanh": "Goldberg's log1p", "expm1": "Kahan's (u - 1) x / log(u)",
        "log1p": "Goldberg's log(w) x / (w - 1)", "exp2": "exp with an exact 2^k",
        "log2": "log times 1/ln2", "log10": "log times 1/ln10", "trunc": "exact"}
_TRIG = {"sin": np.sin, "cos": np.cos, "tan": np.tan}
_TRIG_MAX = 8192.0   # the kernel's reduction is exact enough up to here (ops/math_ext.py)


def _accuracy(name):
    if name in _TRIG:
        extra = (" plus |x| * 2^-46 absolute (times 1 + tan(x)^2 for tan) "
                 "for |x| <= 8192 (three-part Cody-Waite reduction by pi/2); |x| > 8192 is "
                 "recomputed on the host with NumPy float64 and rounded once (<= 0.5 ulp + one "
                 "double rounding)")
    else:
        extra = " over the whole float32 range"
    return (f"\n\nAccuracy: float32 within {_ULP[name]} ulp of the float64 result{extra}; float16/"
            f"bfloat16 within one unit of the dtype (float32 math, one rounding). Source: "
            f"{_SRC[name]} (see ops/math_ext.py).")


def _unary_fn(name, doc):
    def fn(x, out=None):
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
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc + _accuracy(name)
    return fn


def _binary_fn(name, doc, names=("a", "b")):
    def fn(a, b, out=None):
        (a, b), dt, shape = _prep(name, [a, b], list(names), ("float32", "float16", "bfloat16"))
        return _run(f"bmath__DT_{dt}__OP_{name}", [a, b], shape, dt, name, out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


for _n, _d in _UNARY.items():
    globals()[_n] = _unary_fn(_n, _d)
for _n, _d in _BINARY.items():
    globals()[_n] = _binary_fn(_n, _d)
_heaviside = _binary_fn("heaviside", "", ("x", "values"))


def heaviside(x, values, out=None):
    """0 where x < 0, ``values`` where x == 0, 1 where x > 0; NaN where x is NaN (as NumPy;
    torch gives 0 there). ``values`` broadcasts against x."""
    return _heaviside(x, values, out=out)


def logit(x, eps: float | None = None, out=None):
    """log(p / (1 - p)) with p = x, or x clamped to [eps, 1 - eps] when ``eps`` is given
    (torch.logit); NaN outside [0, 1] without eps. ValueError for eps outside [0, 0.5]."""
    if eps is not None and not 0.0 <= float(eps) <= 0.5:
        raise ValueError(f"tl.ops.logit: argument 'eps' must be in [0, 0.5], got {eps}")
    x, dt = _arr(x, "x", "logit")
    return _run(f"umath__DT_{dt}__OP_logit", [x], x.shape, dt, "logit", out,
                (-1.0 if eps is None else float(eps),))


__all__ = list(_UNARY) + list(_BINARY) + ["heaviside", "logit"]
