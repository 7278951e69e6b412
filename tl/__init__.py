"""TL, the tile language of tl-compiler, and its Python entry points.

Kernel authors write ``@tl.kernel`` functions in Python syntax; ``tlc`` reads them with ``ast``
and never executes them, so the builtins (:mod:`tl.language`, ``help(tl.dot)``; reference:
docs/language.md) only raise when called from Python. Users load
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


class constexpr:
    """Annotation of a compile-time parameter: ``BLOCK: tl.constexpr = 128``.

    Its value (the default, or one entry of ``@tl.kernel(specializations=...)``) is fixed when
    the kernel is compiled: an int, float, bool, string, tuple or dtype usable wherever a
    compile-time value is needed (tile shapes, ``tl.static_range``, ``if`` on it picks a
    branch at compile time). A constexpr without a default and without a specialization value
    is a compile error. Constexprs are not arguments of the compiled kernel.
    """


class tensor:
    """Annotation of a tensor parameter: ``x: tl.tensor`` (float32, rank from use) or
    ``x: tl.tensor(tl.float16, 2)``; the dtype may name a constexpr parameter.

    An unannotated kernel parameter is a tensor too (float32, rank inferred from its first
    use: ``x + (i, j)``, ``tl.load(x, (a, b))``, the tile stored into it, or ``x.shape[k]``;
    rank 1 when nothing shows it). A tensor is a strided view of caller memory: ``x + (i, j)``
    offsets it (one int per axis), ``x.shape[k]`` is its runtime extent (int64), ``x.dtype``
    its dtype; it is read and written only through ``tl.load`` and ``tl.store``.

    Shape contract: ``x: tl.tensor(DT, ("M", "N"))`` names the axes instead of giving the rank
    (the rank is the tuple's length). Each entry is an axis name (an identifier string) or a
    fixed extent (an int >= 0); 1 to 8 (TL_MAX_RANK) entries. Every tensor axis of one name must
    have the same extent in a launch, and a fixed axis exactly its extent: the runtime checks it
    before running the kernel (TL_ERROR_INVALID_ARGUMENT, e.g. "kernel softmax__DT_float32:
    argument 'out' axis 0 (R) is 16 but argument 'x' axis 0 (R) is 32"). ``tl.tensor(DT, 2)``
    and a plain ``tl.tensor`` state no contract.
    """

    def __init__(self, dtype: DType | None = None, rank: int | tuple[str | int, ...] | None = None):
        self.dtype = dtype
        self.dims = tuple(rank) if isinstance(rank, (tuple, list)) else None
        self.rank = len(self.dims) if self.dims is not None else rank


from tl._kernel import DeviceFunction, KernelFunction, func, kernel  # noqa: E402


from tl import language  # noqa: E402
from tl.language import Tile, static_range  # noqa: E402,F401

globals().update(language.BUILTINS)      # tl.dot, tl.load, tl.cdiv, ...: one stub per builtin


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
