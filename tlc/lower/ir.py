"""The tile IR: a closed set of typed operations in SSA form with structured control flow.

Every value is an :class:`Op` (single result; multi-result ops produce a :class:`TupleType`
and are read with ``getitem``). Ops are frozen, slotted dataclasses compared by identity;
passes rewrite by building new ops. A :class:`Kernel` holds its runtime parameters as the
arguments of its body :class:`Block`; constexpr parameters are already substituted.

Types
  ScalarType(dtype)            a runtime scalar (index arithmetic is int64)
  TileType(dtype, shape[, space])  a tile with a static shape; shape () is a 0-d tile; ``space``
                               the memory space of its buffer (tlc.lower.spaces; default
                               "workspace", not printed: ``tile<4x8xf32>``, else ``tile<4x8xf32, ub>``)
  TensorType(dtype, rank)      a strided tensor view in memory (a parameter or a ``view``)
  TupleType(types)             results of ``for``, ``if`` and ``fused``

The op set (``OPCODES``) and its operand/attr conventions are documented in OPCODES below;
the typing rules live in :mod:`tlc.lower.typing_rules` and the verifier in
:mod:`tlc.lower.verify`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from tlc.lower import spaces
from tlc.lower.dtypes import DType


# ----------------------------------------------------------------------------- locations
@dataclass(frozen=True, slots=True)
class Loc:
    """A source location: 1-based line, 1-based column (as printed in error messages)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


# ----------------------------------------------------------------------------- types
@dataclass(frozen=True, slots=True)
class ScalarType:
    dtype: DType

    def __str__(self) -> str:
        return self.dtype.short


@dataclass(frozen=True, slots=True)
class TileType:
    dtype: DType
    shape: tuple[int, ...]
    space: str = spaces.DEFAULT

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __str__(self) -> str:
        where = "" if self.space == spaces.DEFAULT else f", {self.space}"
        return f"tile<{'x'.join(map(str, self.shape))}{'x' if self.shape else ''}{self.dtype.short}{where}>"


@dataclass(frozen=True, slots=True)
class TensorType:
    dtype: DType
    rank: int

    def __str__(self) -> str:
        return f"tensor<{self.rank}x{self.dtype.short}>"


@dataclass(frozen=True, slots=True)
class TupleType:
    types: tuple[Any, ...]

    def __str__(self) -> str:
        return "(" + ", ".join(map(str, self.types)) + ")"


@dataclass(frozen=True, slots=True)
class NoneType:
    def __str__(self) -> str:
        return "none"


NONE = NoneType()
Type = ScalarType | TileType | TensorType | TupleType | NoneType


# ----------------------------------------------------------------------------- op set
# opcode -> one-line description of operands and attrs. The set is closed: the verifier
# rejects anything else. "x" below is a scalar or a tile; elementwise ops apply lane-wise with
# operands already broadcast to one shape (tiles) or all scalars.
ELEMENTWISE_UNARY = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "gelu", "sigmoid",
                     "floor", "ceil", "not", "isnan")
ELEMENTWISE_BINARY = ("add", "sub", "mul", "div", "floordiv", "mod", "truncdiv", "fmod",
                      "maximum", "minimum", "pow", "lt", "le", "gt", "ge", "eq", "ne",
                      "and", "or", "xor")
COMPARISONS = ("lt", "le", "gt", "ge", "eq", "ne")
REDUCTIONS = ("sum", "max", "min", "argmax", "argmin")

OPCODES: dict[str, str] = {
    # block arguments and constants
    "arg": "a block argument; attrs name (str), index (int)",
    "const": "a scalar constant; attrs value (int|float|bool); type ScalarType",
    "program_id": "attrs axis (0..2); type ScalarType(int64)",
    "num_programs": "attrs axis (0..2); type ScalarType(int64)",
    "dim": "operands (tensor,); attrs axis; the extent of a tensor/view axis; ScalarType(int64)",
    # elementwise (scalars or tiles of one shape)
    **{k: "elementwise unary; operands (x,)" for k in ELEMENTWISE_UNARY},
    **{k: "elementwise binary; operands (x, y) of one shape" for k in ELEMENTWISE_BINARY},
    "where": "operands (cond, x, y) of one shape",
    "fma": "operands (x, y, z) of one shape, float32: x * y + z (fused where the target has FMA)",
    "cast": "operands (x,); attrs dtype (DType); result dtype = attrs dtype",
    "splat": "operands (scalar,); attrs shape; a tile filled with the scalar",
    "broadcast": "operands (tile,); attrs shape; numpy broadcasting of a tile of equal rank",
    "arange": "attrs start, stop (ints); TileType(int32, (stop - start,))",
    "full": "attrs shape, value, dtype; a constant tile",
    # memory
    "view": "operands (tensor, *offsets); offsets are int64 scalars, one per axis; TensorType",
    "load": ("operands (view, [mask], [other]); attrs shape, has_mask, has_other, checked "
             "(tuple[bool] per axis: whether the axis needs a bounds check); lanes outside "
             "the tensor (or masked off) read `other` (0 when absent)"),
    "store": ("operands (view, value, [mask]); attrs has_mask, checked; lanes outside the "
              "tensor or masked off are dropped; type NONE"),
    # tile ops
    "dot": "operands (a, b, [acc]); attrs has_acc, out_dtype; (M,K)x(K,N)->(M,N)",
    "reduce": "operands (x,); attrs op (REDUCTIONS), axis, keepdims; argmax/argmin give int32",
    "reshape": "operands (x,); attrs shape (same numel, row-major)",
    "trans": "operands (x,); attrs perm",
    "item": "operands (x,), a tile of one element; its value as a scalar of the same dtype",
    # structured control flow
    "for": ("operands (lo, hi, step, *inits); regions (body,) whose args are (iv, *carried) and "
            "which ends in yield; type TupleType of the carried types"),
    "if": ("operands (cond, *captures?); regions (then, else), each ending in yield; type "
           "TupleType of the yielded types"),
    "yield": "operands values; type NONE",
    "getitem": "operands (tuple_op,); attrs index",
    # produced by passes
    "fused": ("operands (*inputs: tiles or scalars); attrs shape (the iteration space); "
              "regions (body,) whose args are the lane values of the inputs (a tile input of "
              "lower rank or with size-1 axes is broadcast) and which ends in yield of lane "
              "values; type TupleType of TileType(dtype, shape)"),
    "buffer": "attrs slot, offset, nbytes: a tile's place in the workspace (memory planning)",
}


@dataclass(frozen=True, slots=True, eq=False)
class Block:
    """A region: arguments (ops with opcode ``arg``) and ops in program order."""

    args: tuple["Op", ...]
    ops: tuple["Op", ...]


@dataclass(frozen=True, slots=True, eq=False)
class Op:
    opcode: str
    operands: tuple["Op", ...] = ()
    type: Any = NONE
    attrs: tuple[tuple[str, Any], ...] = ()
    regions: tuple[Block, ...] = ()
    loc: Loc | None = None

    def attr(self, name: str, default: Any = ...) -> Any:
        for k, v in self.attrs:
            if k == name:
                return v
        if default is ...:
            raise KeyError(f"{self.opcode} has no attr {name!r}")
        return default

    def with_(self, **changes: Any) -> "Op":
        """A copy with fields replaced (``attrs`` may be given as a dict)."""
        if isinstance(changes.get("attrs"), dict):
            changes["attrs"] = tuple(sorted(changes["attrs"].items()))
        fields = {f: getattr(self, f) for f in ("opcode", "operands", "type", "attrs", "regions", "loc")}
        fields.update(changes)
        return Op(**fields)


def make(opcode: str, operands=(), type=NONE, loc=None, regions=(), **attrs: Any) -> Op:
    """Builds an op; attrs are stored sorted by name so equal ops print identically."""
    assert opcode in OPCODES, opcode
    return Op(opcode, tuple(operands), type, tuple(sorted(attrs.items())), tuple(regions), loc)


@dataclass(frozen=True, slots=True)
class Param:
    """A kernel parameter. kind: "tensor", "scalar" or "constexpr"."""

    name: str
    kind: str
    dtype: DType | None = None
    rank: int = 0
    value: Any = None       # constexpr value
    access: str = "none"    # tensors: "read", "write", "readwrite", "none" (filled by a pass)
    dims: tuple[str | int, ...] | None = None   # tensors: shape contract, per axis a symbol or a fixed extent


@dataclass(frozen=True, slots=True)
class Kernel:
    """One specialised kernel instance.

    ``body.args`` are the runtime parameters (tensor and scalar params, in order).
    ``grid`` is None or a block whose args mirror ``body.args`` and which yields 1..3 int64
    scalars. ``workspace`` is filled by memory planning (bytes per program range).
    """

    name: str
    params: tuple[Param, ...]
    body: Block
    grid: Block | None = None
    loc: Loc | None = None
    workspace: int = 0
    base_name: str = ""
    constexprs: tuple[tuple[str, Any], ...] = ()

    @property
    def runtime_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind != "constexpr")


@dataclass(frozen=True, slots=True)
class Module:
    kernels: tuple[Kernel, ...]
    source_file: str = "<string>"


# ----------------------------------------------------------------------------- walking
def walk(block: Block) -> Iterator[Op]:
    """Every op of a block and its nested regions, in program order (pre-order)."""
    for op in block.ops:
        yield op
        for region in op.regions:
            yield from walk(region)


def walk_module(module: Module) -> Iterator[tuple[Kernel, Op]]:
    for k in module.kernels:
        for block in ([k.grid] if k.grid is not None else []) + [k.body]:
            for op in walk(block):
                yield k, op
