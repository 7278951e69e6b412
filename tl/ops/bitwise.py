"""Bitwise integer ops (kernels ``bitwise`` / ``bitwise_not`` in ops/bitwise.py):
bitwise_and, bitwise_or, bitwise_xor, bitwise_not (NumPy / torch names; ONNX BitwiseAnd, ...).

dtypes: int8, uint8, int32, uint32, int64, uint64 and bool (bool and/or/xor are the logical
ops; bitwise_not of bool is logical not). Unsigned arrays run through the signed kernel of their
width as views: bit operations do not depend on signedness. Binary ops broadcast like NumPy
(a Python int takes the array's dtype) and accept ``out=``. Errors: TypeError naming the
argument for another dtype (int16/uint16 and floats included) or two different dtypes,
ValueError for shapes that do not broadcast or a wrong ``out``.
"""
from __future__ import annotations

import numpy as np

from tl.ops._core import _out, _run
from tl.ops.pointwise import logical_not
from tl.ops._registry import names_in, public_op


_KDT = {"int8": "int8", "uint8": "int8", "bool": "int8", "int32": "int32", "uint32": "int32",
        "int64": "int64", "uint64": "int64"}


def _check(x, arg, op, ref=None):
    a = x if isinstance(x, np.ndarray) else np.asarray(x, None if ref is None else ref.dtype)
    if a.dtype.name not in _KDT:
        raise TypeError(f"tl.ops.{op}: argument '{arg}' has dtype {a.dtype}; expected one of "
                        f"{', '.join(_KDT)}")
    return a


def _binary(op, kop, a, b, out):
    ref = a if isinstance(a, np.ndarray) else b if isinstance(b, np.ndarray) else None
    a, b = _check(a, "a", op, ref), _check(b, "b", op, ref)
    if a.dtype != b.dtype:
        raise TypeError(f"tl.ops.{op}: arguments must have one dtype, got {a.dtype} and {b.dtype}")
    try:
        shape = np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"tl.ops.{op}: shapes {[a.shape, b.shape]} do not broadcast") from None
    res = _out(out, shape, a.dtype, op)
    k = _KDT[a.dtype.name]
    _run(f"bitwise__DT_{k}__OP_{kop}", [a.view(k), b.view(k)], shape, k, op, res.view(k))
    return res


@public_op
def bitwise_and(a, b, out=None):
    """a & b, bit by bit."""
    return _binary("bitwise_and", "and", a, b, out)


@public_op
def bitwise_or(a, b, out=None):
    """a | b, bit by bit."""
    return _binary("bitwise_or", "or", a, b, out)


@public_op
def bitwise_xor(a, b, out=None):
    """a ^ b, bit by bit."""
    return _binary("bitwise_xor", "xor", a, b, out)


@public_op
def bitwise_not(x, out=None):
    """~x: every bit flipped (for bool: logical not)."""
    x = _check(x, "x", "bitwise_not")
    if x.dtype == np.bool_:
        return logical_not(x, out=out)
    res = _out(out, x.shape, x.dtype, "bitwise_not")
    k = _KDT[x.dtype.name]
    _run(f"bitwise_not__DT_{k}", [x.view(k)], x.shape, k, "bitwise_not", res.view(k))
    return res


__all__ = names_in(__name__)
