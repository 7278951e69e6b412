"""Elementwise tl.ops beyond add/sub/mul/div: unary math and activations, binary float/int
ops, comparisons, logical ops, where, isnan/isinf (kernels: ops/unary_ext.py,
ops/binary_ext.py). NumPy broadcasting; outputs allocated or written to ``out=``.

dtypes: unary ops float32/float16/bfloat16; binary float ops the same; add/sub/mul/
floor_divide/remainder/fmod/trunc_divide/maximum/minimum also int32/int64; comparisons any
float or int32/int64 (float16/bfloat16 compare exactly after a widening cast; bool as int32).
Errors: TypeError for unsupported or mixed dtypes, ValueError for shapes that do not broadcast.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o
from tl.ops import _arr, _out, _launch, _scalar_like, _FLOATS, _BY_NAME

_INTS = ("int32", "int64")


def _prep(op, arrays, names, allowed):
    """Common dtype + broadcast shape of ``arrays`` (Python scalars take the array dtype)."""
    ref = next((a for a in arrays if isinstance(a, np.ndarray)), None)
    arrs = [a if isinstance(a, np.ndarray) or ref is None else _scalar_like(a, ref.dtype, n, op)
            for a, n in zip(arrays, names)]
    out = []
    dt = None
    for a, n in zip(arrs, names):
        a, d = _arr(a, n, op, allowed)
        if dt is not None and d != dt:
            raise TypeError(f"tl.ops.{op}: arguments must have one dtype, got {dt} and {d}")
        dt = d
        out.append(a)
    try:
        shape = np.broadcast_shapes(*[a.shape for a in out])
    except ValueError:
        raise ValueError(f"tl.ops.{op}: shapes {[a.shape for a in out]} do not broadcast") from None
    return out, dt, shape


def _run(kernel, ins, shape, dt_out, op, out, scalars=()):
    out = _out(out, shape, dt_out, op)
    if out.size == 0:
        return out
    target, finish = _o._overlap_safe(out, ins)
    views, o2, wb = _o._ew_views([np.broadcast_to(a, shape) for a in ins], target)
    _launch(kernel, *views, o2, *scalars)
    if wb:
        wb()
    if finish:
        finish()
    return out


def _unary(op, kop, x, out, a=0.0, b=0.0):
    x, dt = _arr(x, "x", op)
    return _run(f"unary__DT_{dt}__OP_{kop}", [x], x.shape, dt, op, out, (float(a), float(b)))


def hardsigmoid(x, alpha: float = 0.2, beta: float = 0.5, out=None):
    """max(0, min(1, alpha * x + beta)) (ONNX defaults; PyTorch uses alpha=1/6)."""
    return _unary("hardsigmoid", "hardsigmoid", x, out, alpha, beta)


def leaky_relu(x, negative_slope: float = 0.01, out=None):
    """x if x >= 0 else negative_slope * x."""
    return _unary("leaky_relu", "leaky_relu", x, out, negative_slope)


def elu(x, alpha: float = 1.0, out=None):
    """x if x > 0 else alpha * expm1(x)."""
    return _unary("elu", "elu", x, out, alpha)


def selu(x, alpha: float = 1.6732632423543772, gamma: float = 1.0507009873554805, out=None):
    """gamma * (x if x > 0 else alpha * expm1(x))."""
    return _unary("selu", "selu", x, out, alpha, gamma)


def celu(x, alpha: float = 1.0, out=None):
    """max(0, x) + min(0, alpha * expm1(x / alpha))."""
    return _unary("celu", "celu", x, out, alpha)


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


def thresholded_relu(x, alpha: float = 1.0, out=None):
    """x if x > alpha else 0."""
    return _unary("thresholded_relu", "thresholded_relu", x, out, alpha)


# ----------------------------------------------------------------------------- binary
def _binary(op, a, b, out):
    (a, b), dt, shape = _prep(op, [a, b], ["a", "b"], _FLOATS + _INTS)
    if dt in _INTS or op not in ("add", "sub", "mul"):
        if dt in _FLOATS and op in ("add", "sub", "mul"):
            return getattr(_o, op)(a, b, out=out)
        return _run(f"binary__DT_{dt}__OP_{op}", [a, b], shape, dt, op, out)
    return getattr(_o, op)(a, b, out=out)


# ----------------------------------------------------------------------------- compare, logic
_WIDEN = {"float16": "float32", "bfloat16": "float32", "float32": "float32", "int32": "int32",
          "int64": "int64", "bool": "int32", "int8": "int32"}


def _compare(op, a, b, out):
    (a, b), dt, shape = _prep(op, [a, b], ["a", "b"], _FLOATS + _INTS + ("bool", "int8"))
    w = _WIDEN[dt]
    if w != dt:
        a, b = _o.cast(a, w), _o.cast(b, w)
    return _run(f"compare__DT_{w}__OP_{op}", [a, b], shape, "bool", op, out)


def isnan(x, out=None):
    """x != x (bool)."""
    return _compare("ne", x, x, out)


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
def _api(name: str, impl, kop: str, doc: str, nargs: int):
    """The public op ``name(x, out=None)`` (nargs 1) or ``name(a, b, out=None)`` (nargs 2), which
    calls ``impl`` with the kernel op ``kop``; its docstring is ``doc``."""
    if nargs == 1:
        def fn(x, out=None):
            return impl(name, kop, x, out)
    else:
        def fn(a, b, out=None):
            return impl(kop, a, b, out)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


# name -> (kernel op, docstring) of the ops that are one call of _unary/_binary/_compare/_logical
_UNARY_API = {
    "neg": ("neg", '-x.'),
    "abs": ("abs", '|x|.'),
    "sqrt": ("sqrt", 'sqrt(x) (NaN for x < 0).'),
    "rsqrt": ("rsqrt", '1 / sqrt(x).'),
    "log": ("log", 'Natural logarithm.'),
    "erf": ("erf", 'Error function (tiny inputs keep full relative accuracy, docs/semantics.md#c-05).'),
    "floor": ("floor", 'floor(x).'),
    "ceil": ("ceil", 'ceil(x).'),
    "round": ("round", 'Round half to even (NumPy/ONNX Round); the sign of zero is kept.'),
    "reciprocal": ("reciprocal", '1 / x.'),
    "sign": ("sign", '-1, 0 or 1 (NaN stays NaN).'),
    "softsign": ("softsign", 'x / (1 + |x|).'),
    "softplus": ("softplus", 'log(1 + exp(x)), stable for large |x|.'),
    "hardswish": ("hardswish", 'x * clamp(x + 3, 0, 6) / 6.'),
    "mish": ("mish", 'x * tanh(softplus(x)).'),
}
_BINARY_API = {
    "pow": ("pow", 'a ** b (float dtypes; C pow semantics: pow(x, 0) = 1, negative ** non-integer = NaN).'),
    "maximum": ("maximum", 'IEEE maximum: NaN propagates, max(-0, +0) = +0 (floats and int32/int64).'),
    "minimum": ("minimum", 'IEEE minimum: NaN propagates, min(-0, +0) = -0 (floats and int32/int64).'),
    "floor_divide": ("floor_divide", 'floor(a / b) (Python //). ints: INT_MIN // -1 wraps; x // 0 is 0 (documented).'),
    "remainder": ("remainder", 'a - floor(a / b) * b: the sign of the divisor (Python %, torch.remainder). ints: x % 0 = 0.'),
    "fmod": ("fmod", 'C fmod: the sign of the dividend (torch.fmod, ONNX Mod fmod=1).'),
    "trunc_divide": ("trunc_divide", 'a / b truncated toward zero (C division). ints: x / 0 is 0 (documented).'),
    "int_add": ("add", 'a + b for int32/int64 (wraps).'),
}
_COMPARE_API = {
    "less": ("lt", 'a < b (bool).'),
    "less_equal": ("le", 'a <= b (bool).'),
    "greater": ("gt", 'a > b (bool).'),
    "greater_equal": ("ge", 'a >= b (bool).'),
    "equal": ("eq", 'a == b (bool; NaN != NaN).'),
    "not_equal": ("ne", 'a != b (bool).'),
}
_LOGICAL_API = {
    "logical_and": ("and", 'a and b (bool).'),
    "logical_or": ("or", 'a or b (bool).'),
    "logical_xor": ("xor", 'a xor b (bool).'),
}
for _table, _impl, _n in ((_UNARY_API, _unary, 1), (_BINARY_API, _binary, 2), (_COMPARE_API, _compare, 2),
                          (_LOGICAL_API, _logical, 2)):
    for _name, (_kop, _doc) in _table.items():
        globals()[_name] = _api(_name, _impl, _kop, _doc, _n)


def logical_not(x, out=None):
    """not x (bool)."""
    x, _ = _arr(x, "x", "logical_not", ("bool",))
    return _run("logical_not", [x], x.shape, "bool", "logical_not", out)


_BITS = {"float32": ("int32", np.int32), "bool": ("int8", np.int8), "int8": ("int8", np.int8),
         "int32": ("int32", np.int32), "int64": ("int64", np.int64), "float16": ("float16", None),
         "bfloat16": ("bfloat16", None)}


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
    views, o2, _ = _o._ew_views([np.broadcast_to(cond, shape), conv(np.broadcast_to(x, shape)),
                                 conv(np.broadcast_to(y, shape))], conv(tgt))
    _launch(f"where__DT_{kdt}", *views, o2)
    np.copyto(res, tgt)
    return res


def binary_int(op: str, a, b, out=None):
    """Integer (int32/int64) ``op`` in add sub mul floor_divide remainder fmod trunc_divide
    maximum minimum; floats go to the float kernels."""
    return _binary(op, a, b, out)
