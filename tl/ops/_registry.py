"""``@public_op``: how a ``def`` becomes a tl.ops operator.

Each public op is a plain ``def`` with its docstring in one op module (tl/ops/elementwise.py, ...),
decorated with ``@public_op``. The decorator looks the op up in the op table
(tl/ops/_catalog.py; a def without an entry, without a docstring, or defined twice is an
ImportError at ``import tl.ops``), wraps it when the table marks it ``out_of_place`` (an
``out=`` overlapping an input is computed into a fresh buffer first), and records it; each
module's ``__all__`` is ``names_in(__name__)`` and ``tl.ops.__all__`` is the table's names.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from tl.ops._catalog import OPS
from tl.ops._opinfo import FUNCTIONS


def public_op(fn):
    """Registers ``fn`` as the public op of its name (see the module docstring); returns the
    function ``tl.ops`` exports (``fn`` itself, or its aliasing-safe wrapper)."""
    name = fn.__name__
    info = OPS.get(name)
    if info is None:
        raise ImportError(f"tl.ops: @public_op {fn.__module__}.{name} has no entry in the op table "
                          "(tl/ops/_catalog.py)")
    if not (fn.__doc__ or "").strip():
        raise ImportError(f"tl.ops: @public_op {fn.__module__}.{name} has no docstring")
    if name in FUNCTIONS:
        raise ImportError(f"tl.ops: op {name} is defined twice ({FUNCTIONS[name].__module__} and {fn.__module__})")
    if info.out_of_place and "out" in inspect.signature(fn).parameters:
        fn = _alias_safe(fn)
    FUNCTIONS[name] = fn
    return fn


def names_in(module: str) -> list[str]:
    """The public ops defined in ``module`` (its ``__all__``), in definition order."""
    return [n for n, f in FUNCTIONS.items() if f.__module__ == module]


def registry() -> dict:
    """The op table: name -> :class:`tl.ops._opinfo.OpInfo` (category, ONNX/ATen names, dtypes,
    NumPy reference, tolerance per dtype, TL kernels, targets, aliasing)."""
    return OPS


def _alias_safe(fn):
    """Wraps an op that reads other positions than it writes: when ``out`` may share memory with
    any array argument, the op computes into a fresh buffer that is copied into ``out`` at the
    end (elementwise ops are not wrapped and stay truly in place)."""
    sig = inspect.signature(fn)
    out_pos = list(sig.parameters).index("out")
    # every parameter up to out positional-or-keyword: out and the inputs are found without
    # Signature.bind (microseconds a call: tl.ops.matmul spent 17 us in Python, now 5)
    plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in list(sig.parameters.values())[:out_pos + 1])

    def arrays(v):
        if isinstance(v, np.ndarray):
            yield v
        elif isinstance(v, (list, tuple)):
            for e in v:
                yield from arrays(e)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if plain and len(args) <= out_pos and "out" not in kwargs:
            return fn(*args, **kwargs)
        if plain and (len(args) > out_pos) != ("out" in kwargs):
            out = args[out_pos] if len(args) > out_pos else kwargs["out"]
            if not isinstance(out, np.ndarray):
                return fn(*args, **kwargs)
            vals = [v for i, v in enumerate(args) if i != out_pos] + [v for k, v in kwargs.items() if k != "out"]
            if not any(np.may_share_memory(out, a) for v in vals for a in arrays(v)):
                return fn(*args, **kwargs)
        bound = sig.bind(*args, **kwargs)
        out = bound.arguments.get("out")
        if not isinstance(out, np.ndarray):
            return fn(*args, **kwargs)
        ins = [a for k, v in bound.arguments.items() if k != "out" for a in arrays(v)]
        if not any(np.may_share_memory(out, a) for a in ins):
            return fn(*args, **kwargs)
        if not out.flags.writeable:
            raise ValueError(f"tl.ops.{fn.__name__}: argument 'out' is read-only")
        tmp = np.empty_like(out)
        bound.arguments["out"] = tmp
        res = fn(*bound.args, **bound.kwargs)
        np.copyto(out, tmp)
        return out if res is tmp else res
    wrapper._tl_alias_safe = True
    return wrapper
