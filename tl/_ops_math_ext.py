"""Elementary float math (kernels ``umath`` / ``bmath`` in ops/math_ext.py): trig, inverse trig,
hyperbolic and inverse hyperbolic functions, expm1/log1p/exp2/log2/log10, trunc, logit, and the
binary atan2, hypot, copysign, logaddexp, xlogy, heaviside, fmax, fmin.

All take float32/float16/bfloat16 (math in float32, one rounding at the store); binary ops
broadcast like NumPy (a Python scalar takes the array's dtype) and need one dtype. Every op
accepts ``out=`` (shape and dtype must match the result). Accuracy: a few float32 ulp (tests
state the bound per op: tests/ops/test_math_ext.py); sin/cos/tan are accurate to a few ulp for
|x| <= 8192 (three-part Cody-Waite reduction), beyond that the absolute error grows like
|x| * 2^-35 (about 1e-6 at 1e5). Errors: TypeError naming the argument for an unsupported or mixed dtype,
ValueError for shapes that do not broadcast or a wrong ``out`` shape.
"""
from __future__ import annotations

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
    "hypot": "sqrt(a**2 + b**2) without overflow or underflow; inf if either is +-inf (even with a NaN).",
    "copysign": "|a| with the sign of b (-0.0 counts as negative; a NaN b counts as positive).",
    "logaddexp": "log(exp(a) + exp(b)), stable for large |a|, |b|.",
    "xlogy": "a * log(b), 0 where a == 0 and b is not NaN (torch.xlogy).",
    "fmax": "Maximum that ignores NaN (NaN only when both are NaN); fmax(-0, +0) = +0.",
    "fmin": "Minimum that ignores NaN (NaN only when both are NaN); fmin(-0, +0) = -0.",
}


def _unary_fn(name, doc):
    def fn(x, out=None):
        x, dt = _arr(x, "x", name)
        return _run(f"umath__DT_{dt}__OP_{name}", [x], x.shape, dt, name, out, (0.0,))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
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
