"""Compile-time value kinds the frontend manipulates besides IR ops and Python constants."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tlc.lower.ir import Op


@dataclass(frozen=True)
class Undefined:
    """A name that exists but may not be used here; ``reason`` is the user-facing message."""

    reason: str


@dataclass(frozen=True)
class TLModule:
    """The ``tl`` module (or an alias of it)."""


@dataclass(frozen=True)
class Builtin:
    """``tl.<name>`` (a language builtin, resolved at call time)."""

    name: str


@dataclass(frozen=True)
class PyBuiltin:
    """A Python builtin usable in kernels: range, float, int, bool, min, max, abs, len, dict."""

    name: str


@dataclass(frozen=True)
class BoundMethod:
    """``tile.<name>`` awaiting its call (``to``, ``sum``, ``reshape``...)."""

    name: str
    obj: Any


@dataclass(frozen=True)
class ShapeProxy:
    """``tensor.shape``: indexing it with a compile-time int emits a ``dim`` op."""

    tensor: Op


@dataclass(frozen=True)
class TensorAnnot:
    """``tl.tensor`` / ``tl.tensor(dtype, rank)`` as a parameter annotation."""

    dtype: Any = None
    rank: Any = None


@dataclass(frozen=True)
class DeviceFunc:
    """A module-level ``@tl.func`` (its ``ast.FunctionDef``), inlined at each call."""

    name: str
    node: Any


@dataclass(frozen=True)
class PlainFunc:
    """A module-level function without ``@tl.func``: calling it from a kernel is an error."""

    name: str


PY_BUILTINS = ("range", "float", "int", "bool", "min", "max", "abs", "len", "dict")


def is_compile_time(v) -> bool:
    """True for a value known while compiling (not an IR value or a tensor's run-time shape)."""
    return not isinstance(v, (Op, ShapeProxy))
