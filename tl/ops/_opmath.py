"""float32 "opmath" for tl.ops functions composed from several library calls.

A composite such as ``x + value * t1 * t2`` or a loss made of a subtraction, a square and a
select would, run on float16/bfloat16 arrays, round every intermediate to the half dtype: up to
one half-precision rounding per step, and where the steps cancel (a result near zero made from
large terms) hundreds of ulps of the result. Every tl.ops function instead computes in float32
and rounds once, as each kernel does in its float32 lanes and as PyTorch's CPU kernels do with
their opmath type. :func:`opmath` gives a composite that contract: float16/bfloat16 array
arguments (NumPy arrays, or CPU tensors with ``__dlpack__``) are widened exactly to float32,
the body runs in float32, and each float32 array it returns is rounded once to the half dtype
(the dtype of the first half argument). float32 and integer calls run unchanged.
"""
from __future__ import annotations

import functools

import numpy as np

from tl.ops._core import _NAMES, _np
from tl.ops.elementwise import cast


_HALF = ("float16", "bfloat16")


def opmath(fn):
    """Decorator: run ``fn`` in float32 for float16/bfloat16 array arguments, results rounded once."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        half = []

        def up(v):
            if not (isinstance(v, np.ndarray) or hasattr(v, "__dlpack__")):
                return v
            a = _np(v, "x", fn.__name__)
            if _NAMES.get(a.dtype) not in _HALF:
                return v
            half.append(a.dtype)
            return cast(a, np.float32)

        args = [up(v) for v in args]
        kwargs = {k: up(v) for k, v in kwargs.items()}
        res = fn(*args, **kwargs)
        if not half:
            return res

        def down(r):
            if isinstance(r, np.ndarray) and r.dtype == np.float32:
                return cast(r, half[0])
            return r
        return tuple(down(r) for r in res) if isinstance(res, tuple) else down(res)
    return wrapper
