"""TL, the tile language of tl-compiler, and its Python entry points.

Kernel authors write ``@tl.kernel`` functions in Python syntax; ``tlc`` reads them with ``ast``
and never executes them, so the builtins below only raise when called from Python. Users load
compiled packages with :func:`load` and call operators through :mod:`tl.ops`.
"""
from __future__ import annotations

from tlc.lower.dtypes import DType

bool_ = DType.bool
int8 = DType.int8
int32 = DType.int32
int64 = DType.int64
float16 = DType.float16
bfloat16 = DType.bfloat16
float32 = DType.float32
dtype = DType

__version__ = "0.1.0"


def cdiv(a: int, b: int) -> int:
    """Ceiling division of integers (also usable inside kernels and grid rules)."""
    return -((-a) // b)


class constexpr:
    """Annotation of a compile-time parameter: ``BLOCK: tl.constexpr = 128``."""


class tensor:
    """Annotation of a tensor parameter: ``x: tl.tensor`` (float32, rank from use) or
    ``x: tl.tensor(tl.float16, 2)``; the dtype may name a constexpr parameter."""

    def __init__(self, dtype: DType | None = None, rank: int | None = None):
        self.dtype, self.rank = dtype, rank


from tl._kernel import DeviceFunction, KernelFunction, func, kernel  # noqa: E402


def load(path, *args, **kwargs):
    """Opens a compiled ``.tlpkg`` package (or a bundle ``.so``) and returns a
    :class:`tl._runtime.Package` whose kernels are callable with NumPy arrays.

    Inside a ``@tl.kernel`` body ``tl.load(view, shape, mask=, other=)`` is the tile load; from
    Python only the package form exists. Raises ``FileNotFoundError`` or ``tl.TLError``.
    """
    if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
        raise TypeError("tl.load(view, shape) reads a tile and is only valid inside a @tl.kernel; "
                        "from Python, tl.load(path) opens a package")
    from tl import _runtime
    return _runtime.load(path, *args, **kwargs)


def __getattr__(name):
    if name == "ops":
        import importlib
        return importlib.import_module("tl.ops")
    if name in ("TLError", "ScalarRangeError"):
        from tl import _runtime
        return getattr(_runtime, name)
    if name in ("set_num_threads", "num_threads"):    # the default runtime's thread count (lazy)
        from tl import _runtime
        return getattr(_runtime, name)
    raise AttributeError(f"module 'tl' has no attribute {name!r}")
