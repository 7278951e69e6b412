"""The TL builtins as documented Python objects: one stub per ``tl.<name>`` the compiler accepts.

``tlc`` reads kernel bodies with ``ast`` and never runs them, so these objects exist for
``help(tl.dot)``, editors and the one list of names: :data:`BUILTINS` (``tl.<name>`` callables),
:data:`SPECIAL` (``tl.<name>`` objects used as decorators, annotations or a ``for`` iterable) and
the methods of :class:`Tile`. The parser (tlc/parse/builtins.py) keys its implementation table off
these names and refuses to import when the two differ. Calling a stub from Python raises
``TypeError`` saying it only works inside a kernel; ``tl.cdiv`` and ``tl.load(path)`` also have a
Python meaning. docs/language.md is the reference with examples and per-target cost notes.
"""
from __future__ import annotations

import functools
import inspect
import types

from tlc.lower.dtypes import DType

BUILTINS: dict[str, object] = {}
"""``tl.<name>`` -> its documented stub, for every builtin a kernel may call."""

SPECIAL = ("static_range", "constexpr", "tensor", "kernel", "func")
"""``tl.<name>`` objects that are not called as functions in a kernel body."""


def _kernel_only(name: str) -> TypeError:
    return TypeError(f"tl.{name} is a TL builtin and works only inside a @tl.kernel or @tl.func body, "
                     f"which tlc compiles (Python never runs kernel bodies); see help(tl.{name})")


def builtin(fn=None, *, python: bool = False):
    """Registers ``fn`` as the builtin ``tl.<fn.__name__>``. Without ``python`` the returned
    object raises ``TypeError`` when called from Python; with it, ``fn`` runs (its Python form)."""
    def register(f):
        name = f.__name__
        if python:
            obj = f
        else:
            @functools.wraps(f)
            def obj(*args, **kwargs):
                raise _kernel_only(name)
        obj.__tl_builtin__ = name
        BUILTINS[name] = obj
        return obj
    return register(fn) if fn is not None else register


def kernel_signature(name: str) -> inspect.Signature:
    """The signature a kernel calls ``tl.<name>`` with (``tl.load``'s tile form, not its Python one)."""
    obj = BUILTINS[name]
    return inspect.signature(getattr(obj, "__tl_kernel_form__", obj))


# ----------------------------------------------------------------------------- grid and indices
@builtin
def program_id(axis):
    """``tl.program_id(axis) -> int64 scalar``: this program's index along grid axis 0, 1 or 2.

    The grid comes from the kernel's ``grid=`` rule (or the call's ``grid=``); programs run
    in any order on the runtime's threads. ``axis`` must be a literal 0, 1 or 2, else a compile
    error. Cost: an argument read, free.
    """


@builtin
def num_programs(axis):
    """``tl.num_programs(axis) -> int64 scalar``: the grid's extent along axis 0, 1 or 2
    (1 for axes the grid does not have). ``axis`` must be a literal 0, 1 or 2."""


@builtin(python=True)
def cdiv(x, div):
    """``tl.cdiv(x, div)``: ceiling division ``-((-x) // div)`` of integers.

    Works in Python (grid rules, host code), on compile-time ints in a kernel (folded) and on
    int64 scalars (e.g. ``tl.cdiv(n, BLOCK)`` with ``n = x.shape[0]``). ``div == 0`` raises
    ``ZeroDivisionError`` in Python and a compile error on constants; at run time an integer
    division by zero gives 0 in TL.
    """
    return -((-x) // div)


# ----------------------------------------------------------------------------- memory
def _load_kernel_form(pointer, shape=None, mask=None, other=None):
    """The signature of ``tl.load`` inside a kernel."""


@builtin(python=True)
def load(path, *args, **kwargs):
    """Two forms.

    In Python, ``tl.load(path)`` opens a compiled ``.tlpkg`` package (or one bundle ``.so``) and
    returns a :class:`tl._runtime.Package` whose kernels are callable with NumPy arrays; raises
    ``FileNotFoundError`` or ``tl.TLError``.

    Inside a kernel, ``tl.load(view, shape=None, mask=None, other=None)``:

    * ``view``: a tensor parameter or a view ``t + (i, j)`` (int offsets, one per axis).
    * ``shape``: a tuple of compile-time ints, one per tensor axis (any positive size, not
      only powers of two) -> a tile of that shape and the tensor's dtype. Lanes whose index
      lies outside the tensor (negative or >= its extent) read ``other`` (a scalar, default
      0) and never touch memory.
    * no ``shape``: the one element at the view's origin as a scalar (``other``/0 outside).
    * ``mask``: a bool tile broadcastable to ``shape``; lanes where it is False read
      ``other``. Costs a compare and a select per element: prefer the automatic bounds.

    Errors (compile time): a shape of wrong rank, a runtime shape, a mask that is not bool or
    does not broadcast, a tile ``other``, a mask on a scalar load.
    """
    if not isinstance(path, (str, bytes)) and not hasattr(path, "__fspath__"):
        raise TypeError("tl.load(view, shape) reads a tile and is only valid inside a @tl.kernel; "
                        "from Python, tl.load(path) opens a package")
    from tl import _runtime
    return _runtime.load(path, *args, **kwargs)


load.__tl_kernel_form__ = _load_kernel_form


@builtin
def store(pointer, value, mask=None):
    """``tl.store(view, value, mask=None)``: writes a tile (or a scalar, as a one-element tile)
    at ``view``; ``value`` is cast to the tensor's dtype (float -> float16/bfloat16 rounds to
    nearest even; float -> int truncates; int -> narrower int wraps). Lanes outside the tensor
    are dropped. ``mask`` (bool tile, broadcast to the value's shape): only True lanes are
    written. Errors: a value whose rank differs from the tensor's, a non-bool mask.
    """


# ----------------------------------------------------------------------------- elementwise
def _one(x):
    pass


def _two(x, y):
    pass


def _over_axis(input, axis=None, keepdims=False):
    pass


def _stub(template, name: str, doc: str):
    """Registers a fresh copy of ``template`` (for its signature) named ``tl.<name>`` with ``doc``."""
    f = types.FunctionType(template.__code__, template.__globals__, name, template.__defaults__)
    f.__qualname__, f.__doc__ = name, doc
    return builtin(f)


def _unary(name: str, doc: str):
    return _stub(_one, name, doc)


_MATH_NOTE = (" Ints and bools are converted to float32 first. float16/bfloat16 compute in float32 "
              "lanes and round once when stored. Works on tiles and scalars; shape unchanged.")
exp = _unary("exp", "``tl.exp(x)``: e**x (a vector polynomial within 1 ulp). exp(-inf) = 0, "
                    "exp(inf) = inf, NaN -> NaN; results below the normal range are denormals, then 0."
             + _MATH_NOTE)
log = _unary("log", "``tl.log(x)``: natural log (within 1 ulp). log(0) = log(-0.0) = -inf, "
                    "log(x < 0) = NaN, log(inf) = inf; denormal inputs work (log(1e-45) = -103.28)."
             + _MATH_NOTE)
sqrt = _unary("sqrt", "``tl.sqrt(x)``: the correctly rounded square root (a hardware instruction on "
                      "every target). sqrt(-0.0) = -0.0, sqrt(x < 0) = NaN." + _MATH_NOTE)
rsqrt = _unary("rsqrt", "``tl.rsqrt(x)``: 1 / sqrt(x) computed as a division (no approximation "
                        "instruction; within 2 ulp). rsqrt(0) = inf, rsqrt(-0.0) = -inf, "
                        "rsqrt(inf) = 0." + _MATH_NOTE)
tanh = _unary("tanh", "``tl.tanh(x)``: hyperbolic tangent (within 2 ulp); odd (tanh(-0.0) = -0.0), "
                      "+-1 at +-inf." + _MATH_NOTE)
erf = _unary("erf", "``tl.erf(x)``: the error function (within 3 ulp); erf(-0.0) = -0.0, +-1 at "
                    "+-inf." + _MATH_NOTE)
gelu = _unary("gelu", "``tl.gelu(x)``: exact GELU 0.5 * x * (1 + erf(x / sqrt(2))) as one vector "
                      "routine (within 4.6 ulp over every float32 in [-20, 20], 5.2 on the SSE2 "
                      "baseline); gelu(-inf) = 0, gelu(inf) = inf, gelu(-0.0) = -0.0." + _MATH_NOTE)
sigmoid = _unary("sigmoid", "``tl.sigmoid(x)``: 1 / (1 + exp(-x)) (within 3 ulp); 0 at -inf, 1 at "
                            "inf, 0.5 at +-0." + _MATH_NOTE)
abs = _unary("abs", "``tl.abs(x)``: absolute value, of any dtype. Floats: abs(-0.0) = +0.0, "
                    "NaN stays NaN. Ints wrap: abs(INT_MIN) = INT_MIN. Python's ``abs()`` does the same.")
floor = _unary("floor", "``tl.floor(x)``: round toward -inf; floor(-0.0) = -0.0, NaN/inf unchanged."
               + _MATH_NOTE)
ceil = _unary("ceil", "``tl.ceil(x)``: round toward +inf; ceil(-0.0) = -0.0, NaN/inf unchanged."
              + _MATH_NOTE)
isnan = _unary("isnan", "``tl.isnan(x) -> bool``: True where x is NaN (x != x). Any dtype; ints give False.")


def _binary(name: str, doc: str):
    return _stub(_two, name, doc)


_BIN_NOTE = (" Operands are tiles, scalars or Python numbers; dtypes promote and shapes broadcast as "
             "for ``+`` (docs/language.md, Dtypes and promotion).")
maximum = _binary("maximum", "``tl.maximum(x, y)``: elementwise max. Floats: NaN in either operand "
                             "gives NaN (as torch.maximum, np.maximum); max(-0.0, +0.0) = +0.0." + _BIN_NOTE)
minimum = _binary("minimum", "``tl.minimum(x, y)``: elementwise min. Floats: NaN in either operand "
                             "gives NaN; min(-0.0, +0.0) = -0.0." + _BIN_NOTE)
truncdiv = _binary("truncdiv", "``tl.truncdiv(x, y)``: division rounded toward zero (C's ``/`` on ints; "
                               "trunc(x / y) on floats). Ints: x / 0 = 0, INT_MIN / -1 = INT_MIN "
                               "(wraps); floats follow IEEE division (x / 0 = +-inf, 0 / 0 = NaN)."
                   + _BIN_NOTE)
fmod = _binary("fmod", "``tl.fmod(x, y)``: remainder with the sign of x (C's ``%`` / fmod). Ints: "
                       "x fmod 0 = 0; floats: fmod(x, 0) = NaN, fmod(x, inf) = x, NaN -> NaN." + _BIN_NOTE)


@builtin
def where(condition, x, y):
    """``tl.where(condition, x, y)``: x where condition is True, else y (elementwise select; both
    sides are computed). ``condition``: bool tile or scalar (a non-bool tests ``!= 0``); x and
    y promote as ``+`` does; all three broadcast to one shape. A NaN compare is False, so
    ``tl.where(a > b, a, b)`` picks b when either is NaN. Cost: one blend per vector."""


@builtin
def fma(x, y, z):
    """``tl.fma(x, y, z)``: x * y + z on float32 (a float16/bfloat16 tile must be ``.to(tl.float32)``
    first, else a compile error), rounded once on targets with FMA (x86 AVX2 and AVX-512, NEON,
    RVV) and a multiply then an add on the SSE2 baseline. Generated code is otherwise built
    without contraction, so this is the only way to get a fused multiply-add. Broadcasts."""


@builtin
def cast(x, dtype):
    """``tl.cast(x, dtype)`` (also ``x.to(dtype)``): converts a tile, scalar or number. Float to
    float16/bfloat16 rounds to nearest even (overflow -> inf); float to int truncates toward
    zero, and NaN, inf or out-of-range values give a target-defined result (x86: the minimum
    int; clamp first); int to a narrower int keeps the low bits (wraps); any to bool tests
    ``!= 0`` (NaN -> True). Error: ``dtype`` not a tl dtype."""


# ----------------------------------------------------------------------------- tile creation
@builtin
def arange(start, stop=None):
    """``tl.arange(start, stop=None) -> int32 tile (stop - start,)``: start, start + 1, ...,
    stop - 1 (``tl.arange(n)`` = 0..n-1). Bounds are compile-time ints with start < stop; any
    length. Errors: runtime bounds, stop <= start."""


@builtin
def full(shape, value, dtype=None):
    """``tl.full(shape, value, dtype=None)``: a tile of ``shape`` (compile-time ints) filled with
    ``value`` (a number or a runtime scalar). Default dtype: the scalar's, else bool for True/
    False, float32 for a float literal, int32 for an int literal. Errors: a runtime shape, an
    int literal that does not fit ``dtype``, a tile value."""


@builtin
def zeros(shape, dtype=DType.float32):
    """``tl.zeros(shape, dtype=tl.float32)``: a tile of zeros (``tl.full(shape, 0, dtype)``)."""


@builtin
def zeros_like(input):
    """``tl.zeros_like(tile)``: zeros of the tile's shape and dtype."""


# ----------------------------------------------------------------------------- shape ops
@builtin
def reshape(input, *shape):
    """``tl.reshape(x, shape)`` / ``x.reshape(d0, d1, ...)``: same elements (row-major order) in a
    new shape with the same count; one ``-1`` is inferred. A scalar becomes a one-element tile.
    Errors: a runtime shape, a different element count. Cost: free when the layout allows,
    else one copy of the tile."""


@builtin
def trans(input, *dims):
    """``tl.trans(x, *dims)`` / ``x.T``: permutes the axes (reverses them by default; for 2-D a
    transpose). ``dims`` must be a permutation of the axes. Cost: a copy of the tile, except
    where a ``tl.dot`` consumes it (the dot reads it transposed)."""


# ----------------------------------------------------------------------------- dot
@builtin
def dot(a, b, acc=None, out_dtype=None):
    """``tl.dot(a, b, acc=None, out_dtype=None)`` (also ``a @ b``): matrix product of 2-D tiles
    (M, K) x (K, N) -> (M, N), plus ``acc`` when given (a tile or scalar, broadcast to (M, N)).

    Dtypes: float32, float16, bfloat16 (mixed inputs promote; ints other than int8 become
    float32) accumulate in float32 (IEEE float32, no TF32-like shortcut) and return float32;
    int8 x int8 returns int32. ``out_dtype`` overrides the result dtype. Errors: non-2-D tiles,
    mismatched inner dimensions. Cost: register-blocked microkernels (AVX-512: 12 x 32,
    AVX-512 BF16 ``vdpbf16ps`` for bfloat16, NEON/RVV assembly); K ascending, one FMA per k.
    """


# ----------------------------------------------------------------------------- reductions
def _reduction(name: str, doc: str):
    return _stub(_over_axis, name, doc + (
        " ``axis``: a compile-time int (negative counts from the end) or None (every axis: a "
        "one-element result, see ``.item()``); ``keepdims`` keeps the reduced axis as 1. Also a "
        "tile method (``x.sum(axis=1)``). Error: an axis out of range."))


sum = _reduction("sum", "``tl.sum(x, axis=None, keepdims=False)``: sum in the lane dtype (float32 for "
                        "every float; int32 for bool and int8, whose sums are int32), wrapping for ints. "
                        "Along a contiguous last axis one partial sum per vector lane, combined at the end "
                        "(float results differ from a sequential sum in the last bits, and between "
                        "variants); along other axes in index order. NaN anywhere gives NaN.")
max = _reduction("max", "``tl.max(x, axis=None, keepdims=False)``: largest element; NaN anywhere gives "
                        "NaN; +0.0 beats -0.0.")
min = _reduction("min", "``tl.min(x, axis=None, keepdims=False)``: smallest element; NaN anywhere gives "
                        "NaN; -0.0 beats +0.0.")
argmax = _reduction("argmax", "``tl.argmax(x, axis, keepdims=False) -> int32``: index of the largest "
                              "element, the first one on ties; the first NaN wins (as NumPy).")
argmin = _reduction("argmin", "``tl.argmin(x, axis, keepdims=False) -> int32``: index of the smallest "
                              "element, the first one on ties; the first NaN wins (as NumPy).")


# ----------------------------------------------------------------------------- compile time
@builtin
def static_assert(cond, msg=""):
    """``tl.static_assert(cond, msg="")``: a compile error ``static assertion failed: msg`` when the
    compile-time ``cond`` is false (e.g. ``tl.static_assert(BLOCK % 16 == 0)``). A runtime
    condition is itself an error. ``assert cond, msg`` in a kernel does the same."""


class static_range:
    """``for i in tl.static_range(lo, hi, step=1)``: a loop unrolled at compile time (``i`` is a
    compile-time int in each copy). Bounds must be compile-time ints. Use ``range(...)`` for a
    runtime loop (bounds may be runtime scalars)."""

    def __init__(self, *args, **kwargs):
        raise _kernel_only("static_range")


# ----------------------------------------------------------------------------- tile methods
def method(fn):
    """Marks a :class:`Tile` method as one the compiler accepts (``fn.__tl_method__``)."""
    fn.__tl_method__ = fn.__name__
    return fn


class Tile:
    """The value a kernel computes with: a dense tile of compile-time shape (``tl.load``,
    ``tl.zeros``, arithmetic) or, with shape ``()``, a runtime scalar. Documentation only:
    Python never creates one. Attributes: ``.shape`` (tuple of ints), ``.dtype``, ``.T``
    (transpose). Indexing: ``x[:, None]`` / ``x[None, :]`` insert axes of size 1 (full slices
    and None only). Operators: docs/language.md, Operators."""

    def __init__(self, *args, **kwargs):
        raise TypeError("tl.Tile documents the tile values of kernel bodies; Python never creates one")

    @method
    def to(self, dtype):
        """``x.to(dtype)``: ``tl.cast(x, dtype)``."""

    @method
    def reshape(self, *shape):
        """``x.reshape(d0, d1, ...)`` or ``x.reshape((d0, d1))``: ``tl.reshape``."""

    @method
    def trans(self, *dims):
        """``x.trans(*dims)``: ``tl.trans``."""

    @method
    def item(self):
        """``x.item()``: the value of a one-element tile (of any rank, e.g. a full ``tl.sum``) as a
        runtime scalar, usable as a view offset or loop bound. A scalar is returned unchanged.
        Error: a tile of more than one element."""

    @method
    def sum(self, axis=None, keepdims=False):
        """``x.sum(axis=None, keepdims=False)``: ``tl.sum``."""

    @method
    def max(self, axis=None, keepdims=False):
        """``x.max(axis=None, keepdims=False)``: ``tl.max``."""

    @method
    def min(self, axis=None, keepdims=False):
        """``x.min(axis=None, keepdims=False)``: ``tl.min``."""

    @method
    def argmax(self, axis=None, keepdims=False):
        """``x.argmax(axis, keepdims=False)``: ``tl.argmax``."""

    @method
    def argmin(self, axis=None, keepdims=False):
        """``x.argmin(axis, keepdims=False)``: ``tl.argmin``."""


TILE_METHODS = {k: v for k, v in vars(Tile).items() if getattr(v, "__tl_method__", None)}
"""``tile.<name>()`` -> its documented stub, for every tile method a kernel may call."""

__all__ = list(BUILTINS) + ["static_range", "Tile"]
