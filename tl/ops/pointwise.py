"""Elementwise tl.ops beyond add/sub/mul/div: unary math and activations, binary float/int
ops, comparisons, logical ops, where, isnan/isinf (kernels: ops/unary_ext.py,
ops/binary_ext.py). NumPy broadcasting; outputs allocated or written to ``out=``.

dtypes: unary ops float32/float16/bfloat16; binary float ops the same; add/sub/mul/
floor_divide/remainder/fmod/trunc_divide/maximum/minimum also int32/int64; comparisons any
float or int32/int64 (float16/bfloat16 compare exactly after a widening cast; bool as int32).
Errors: TypeError for unsupported or mixed dtypes, ValueError for shapes that do not broadcast.

Also the composed pointwise ops of torch (square, lerp, addcmul, addcdiv, nan_to_num,
isfinite, masked_fill), computed in float32 for half dtypes (tl/ops/_opmath.py).
"""
from __future__ import annotations

import numpy as np

from tl.ops._core import _arr, _BY_NAME, _ew_views, _FLOATS, _INTS, _launch, _out, _prep, _run
from tl.ops.elementwise import add, cast, div, mul, sub
from tl.ops._opmath import opmath
from tl.ops._registry import names_in, public_op


def _unary(op, kop, x, out, a=0.0, b=0.0):
    x, dt = _arr(x, "x", op)
    return _run(f"unary__DT_{dt}__OP_{kop}", [x], x.shape, dt, op, out, (float(a), float(b)))


@public_op
def hardsigmoid(x, alpha: float = 0.2, beta: float = 0.5, out=None):
    """max(0, min(1, alpha * x + beta)) (ONNX defaults; PyTorch uses alpha=1/6)."""
    return _unary("hardsigmoid", "hardsigmoid", x, out, alpha, beta)


@public_op
def leaky_relu(x, negative_slope: float = 0.01, out=None):
    """x if x >= 0 else negative_slope * x."""
    return _unary("leaky_relu", "leaky_relu", x, out, negative_slope)


@public_op
def elu(x, alpha: float = 1.0, out=None):
    """x if x > 0 else alpha * expm1(x)."""
    return _unary("elu", "elu", x, out, alpha)


@public_op
def selu(x, alpha: float = 1.6732632423543772, gamma: float = 1.0507009873554805, out=None):
    """gamma * (x if x > 0 else alpha * expm1(x))."""
    return _unary("selu", "selu", x, out, alpha, gamma)


@public_op
def celu(x, alpha: float = 1.0, out=None):
    """max(0, x) + min(0, alpha * expm1(x / alpha))."""
    return _unary("celu", "celu", x, out, alpha)


@public_op
def clamp(x, min=None, max=None, out=None):
    """min(max(x, min), max); None means unbounded; NaN propagates. Integer x is clamped
    exactly (through the int binary kernels). ``min``/``max`` may be arrays (like torch.clamp
    with tensors): they are cast to x's dtype and broadcast with x (the result has the
    broadcast shape); ValueError when the shapes do not broadcast."""
    xa = np.asarray(x)
    if any(b is not None and np.ndim(b) > 0 for b in (min, max)):
        r = xa
        if min is not None:
            r = maximum(r, np.asarray(min, xa.dtype))
        if max is not None:
            r = minimum(r, np.asarray(max, xa.dtype))
        if out is not None:
            np.copyto(out, r)
            return out
        return r if r is not xa else xa.copy()
    if xa.dtype.kind in "iu":
        r = xa
        if min is not None:
            r = maximum(r, np.asarray(min, xa.dtype))
        if max is not None:
            r = minimum(r, np.asarray(max, xa.dtype))
        if out is not None:
            np.copyto(out, r)
            return out
        return r if r is not xa else xa.copy()
    lo = -np.inf if min is None else float(min)
    hi = np.inf if max is None else float(max)
    return _unary("clamp", "clamp", x, out, lo, hi)


@public_op
def thresholded_relu(x, alpha: float = 1.0, out=None):
    """x if x > alpha else 0."""
    return _unary("thresholded_relu", "thresholded_relu", x, out, alpha)


# ----------------------------------------------------------------------------- binary
def _binary(op, a, b, out):
    (a, b), dt, shape = _prep(op, [a, b], ["a", "b"], _FLOATS + _INTS)
    if dt in _INTS or op not in ("add", "sub", "mul"):
        if dt in _FLOATS and op in ("add", "sub", "mul"):
            return _FLOAT_KERNELS[op](a, b, out=out)
        return _run(f"binary__DT_{dt}__OP_{op}", [a, b], shape, dt, op, out)
    return _FLOAT_KERNELS[op](a, b, out=out)


_FLOAT_KERNELS = {"add": add, "sub": sub, "mul": mul}    # tl/ops/elementwise.py (fast paths)


# ----------------------------------------------------------------------------- compare, logic
_WIDEN = {"float16": "float32", "bfloat16": "float32", "float32": "float32", "int32": "int32",
          "int64": "int64", "bool": "int32", "int8": "int32"}


def _compare(op, a, b, out):
    (a, b), dt, shape = _prep(op, [a, b], ["a", "b"], _FLOATS + _INTS + ("bool", "int8"))
    w = _WIDEN[dt]
    if w != dt:
        a, b = cast(a, w), cast(b, w)
    return _run(f"compare__DT_{w}__OP_{op}", [a, b], shape, "bool", op, out)


@public_op
def isnan(x, out=None):
    """x != x (bool)."""
    return _compare("ne", x, x, out)


@public_op
def isinf(x, detect_positive: bool = True, detect_negative: bool = True, out=None):
    """x == +inf / -inf (bool), as selected."""
    x, dt = _arr(x, "x", "isinf")
    pos = equal(x, np.asarray(np.inf, x.dtype)) if detect_positive else np.zeros(x.shape, bool)
    neg_ = equal(x, np.asarray(-np.inf, x.dtype)) if detect_negative else np.zeros(x.shape, bool)
    return logical_or(pos, neg_, out=out)


def _logical(op, a, b, out):
    (a, b), dt, shape = _prep(op, [a, b], ["a", "b"], ("bool",))
    res = _out(out, shape, "bool", op)        # bools as int8 0/1 through the bitwise kernel (ops/bitwise.py)
    _run(f"bitwise__DT_int8__OP_{op}", [a.view(np.int8), b.view(np.int8)], shape, "int8", op, res.view(np.int8))
    return res


# ----------------------------------------------------------------------------- public entry points

@public_op
def neg(x, out=None):
    """-x."""
    return _unary("neg", "neg", x, out)


@public_op
def abs(x, out=None):
    """|x|."""
    return _unary("abs", "abs", x, out)


@public_op
def sqrt(x, out=None):
    """sqrt(x) (NaN for x < 0)."""
    return _unary("sqrt", "sqrt", x, out)


@public_op
def rsqrt(x, out=None):
    """1 / sqrt(x)."""
    return _unary("rsqrt", "rsqrt", x, out)


@public_op
def log(x, out=None):
    """Natural logarithm."""
    return _unary("log", "log", x, out)


@public_op
def erf(x, out=None):
    """Error function (tiny inputs keep full relative accuracy, docs/semantics.md#c-05)."""
    return _unary("erf", "erf", x, out)


@public_op
def floor(x, out=None):
    """floor(x)."""
    return _unary("floor", "floor", x, out)


@public_op
def ceil(x, out=None):
    """ceil(x)."""
    return _unary("ceil", "ceil", x, out)


@public_op
def round(x, out=None):
    """Round half to even (NumPy/ONNX Round); the sign of zero is kept."""
    return _unary("round", "round", x, out)


@public_op
def reciprocal(x, out=None):
    """1 / x."""
    return _unary("reciprocal", "reciprocal", x, out)


@public_op
def sign(x, out=None):
    """-1, 0 or 1 (NaN stays NaN)."""
    return _unary("sign", "sign", x, out)


@public_op
def softsign(x, out=None):
    """x / (1 + |x|)."""
    return _unary("softsign", "softsign", x, out)


@public_op
def softplus(x, out=None):
    """log(1 + exp(x)), stable for large |x|."""
    return _unary("softplus", "softplus", x, out)


@public_op
def hardswish(x, out=None):
    """x * clamp(x + 3, 0, 6) / 6."""
    return _unary("hardswish", "hardswish", x, out)


@public_op
def mish(x, out=None):
    """x * tanh(softplus(x))."""
    return _unary("mish", "mish", x, out)


@public_op
def pow(a, b, out=None):
    """a ** b (float dtypes; C pow semantics: pow(x, 0) = 1, negative ** non-integer = NaN)."""
    return _binary("pow", a, b, out)


@public_op
def maximum(a, b, out=None):
    """IEEE maximum: NaN propagates, max(-0, +0) = +0 (floats and int32/int64)."""
    return _binary("maximum", a, b, out)


@public_op
def minimum(a, b, out=None):
    """IEEE minimum: NaN propagates, min(-0, +0) = -0 (floats and int32/int64)."""
    return _binary("minimum", a, b, out)


@public_op
def floor_divide(a, b, out=None):
    """floor(a / b) (Python //). ints: INT_MIN // -1 wraps; x // 0 is 0 (documented)."""
    return _binary("floor_divide", a, b, out)


@public_op
def remainder(a, b, out=None):
    """a - floor(a / b) * b: the sign of the divisor (Python %, torch.remainder). ints: x % 0 = 0."""
    return _binary("remainder", a, b, out)


@public_op
def fmod(a, b, out=None):
    """C fmod: the sign of the dividend (torch.fmod, ONNX Mod fmod=1)."""
    return _binary("fmod", a, b, out)


@public_op
def trunc_divide(a, b, out=None):
    """a / b truncated toward zero (C division). ints: x / 0 is 0 (documented)."""
    return _binary("trunc_divide", a, b, out)


def int_add(a, b, out=None):
    """a + b for int32/int64 (wraps)."""
    return _binary("add", a, b, out)


@public_op
def less(a, b, out=None):
    """a < b (bool)."""
    return _compare("lt", a, b, out)


@public_op
def less_equal(a, b, out=None):
    """a <= b (bool)."""
    return _compare("le", a, b, out)


@public_op
def greater(a, b, out=None):
    """a > b (bool)."""
    return _compare("gt", a, b, out)


@public_op
def greater_equal(a, b, out=None):
    """a >= b (bool)."""
    return _compare("ge", a, b, out)


@public_op
def equal(a, b, out=None):
    """a == b (bool; NaN != NaN)."""
    return _compare("eq", a, b, out)


@public_op
def not_equal(a, b, out=None):
    """a != b (bool)."""
    return _compare("ne", a, b, out)


@public_op
def logical_and(a, b, out=None):
    """a and b (bool)."""
    return _logical("and", a, b, out)


@public_op
def logical_or(a, b, out=None):
    """a or b (bool)."""
    return _logical("or", a, b, out)


@public_op
def logical_xor(a, b, out=None):
    """a xor b (bool)."""
    return _logical("xor", a, b, out)

@public_op
def logical_not(x, out=None):
    """not x (bool)."""
    x, _ = _arr(x, "x", "logical_not", ("bool",))
    return _run("logical_not", [x], x.shape, "bool", "logical_not", out)


_BITS = {"float32": ("int32", np.int32), "bool": ("int8", np.int8), "int8": ("int8", np.int8),
         "int32": ("int32", np.int32), "int64": ("int64", np.int64), "float16": ("float16", None),
         "bfloat16": ("bfloat16", None)}


@public_op
def where(cond, x, y, out=None):
    """cond ? x : y with broadcasting; x, y of one dtype (any supported dtype)."""
    cond = np.asarray(cond)
    if cond.dtype != np.bool_:
        raise TypeError(f"tl.ops.where: argument 'cond' has dtype {cond.dtype}; expected bool")
    (x, y), dt, shape = _prep("where", [x, y], ["x", "y"], tuple(_BY_NAME))
    shape = np.broadcast_shapes(shape, cond.shape)
    res = _out(out, shape, dt, "where")
    if res.size == 0:
        return res
    kdt, view = _BITS[dt]
    conv = (lambda a: a.view(view)) if view is not None else (lambda a: a)
    tgt = np.empty(shape, _BY_NAME[dt])
    views, o2, _ = _ew_views([np.broadcast_to(cond, shape), conv(np.broadcast_to(x, shape)),
                                 conv(np.broadcast_to(y, shape))], conv(tgt))
    _launch(f"where__DT_{kdt}", *views, o2)
    np.copyto(res, tgt)
    return res


@public_op
def binary_int(op: str, a, b, out=None):
    """Integer (int32/int64) ``op`` in add sub mul floor_divide remainder fmod trunc_divide
    maximum minimum; floats go to the float kernels."""
    return _binary(op, a, b, out)


@public_op
def square(x):
    """x * x."""
    x = np.asarray(x)
    return mul(x, x)


@public_op
@opmath
def lerp(start, end, weight):
    """start + weight * (end - start), computed as end - (end - start) * (1 - weight) where
    weight >= 0.5 (torch.lerp's form: exact at weight = 0 and weight = 1)."""
    a, b = np.asarray(start), np.asarray(end)
    w = np.asarray(weight, a.dtype)
    d = sub(b, a)
    lo = add(a, mul(w, d))
    hi = sub(b, mul(d, sub(np.ones((), a.dtype), w)))
    return where(less(abs(w), np.asarray(0.5, a.dtype)), lo, hi)


@public_op
@opmath
def addcmul(x, t1, t2, value: float = 1.0):
    """x + value * t1 * t2."""
    x = np.asarray(x)
    return add(x, mul(mul(np.asarray(t1), np.asarray(value, x.dtype)), t2))


@public_op
@opmath
def addcdiv(x, t1, t2, value: float = 1.0):
    """x + value * t1 / t2."""
    x = np.asarray(x)
    return add(x, mul(np.asarray(value, x.dtype), div(t1, t2)))


@public_op
def nan_to_num(x, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None):
    """NaN -> ``nan``, +inf -> ``posinf`` (default: the dtype's largest finite value), -inf ->
    ``neginf`` (default: the most negative finite value)."""
    x = np.asarray(x)
    fi = np.finfo(np.float32) if x.dtype.name == "bfloat16" else np.finfo(x.dtype)
    big = float(fi.max) if x.dtype.name != "bfloat16" else 3.3895313892515355e38
    pi = np.asarray(big if posinf is None else posinf, x.dtype)
    ni = np.asarray(-big if neginf is None else neginf, x.dtype)
    y = where(isnan(x), np.asarray(nan, x.dtype), x)
    y = where(isinf(y, True, False), pi, y)
    return where(isinf(y, False, True), ni, y)


@public_op
def isfinite(x):
    """Not NaN and not +-inf (bool)."""
    return logical_not(logical_or(isnan(x), isinf(x)))


@public_op
def masked_fill(x, mask, value):
    """x with ``value`` where ``mask`` (bool, broadcast to x) is true."""
    x = np.asarray(x)
    m = np.asarray(mask)
    if m.dtype != np.bool_:
        raise TypeError(f"tl.ops.masked_fill: argument 'mask' must have dtype bool, got {m.dtype}")
    return where(np.broadcast_to(m, np.broadcast_shapes(m.shape, x.shape)), np.asarray(value, x.dtype), x)


__all__ = names_in(__name__)
