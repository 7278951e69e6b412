"""What an IR value is in the generated C (bound in the context's names, one per op):

  scalar        a C name (str) of a local of the compute C type (float / int32_t / int64_t; bool 0/1)
  tile          :class:`Tile`: ``T* <name>`` into the per-call workspace, dense row-major, compute
                dtype lanes; or :class:`RegTile`, a small loop-carried tile of a runtime ``for``
                held in vector locals (tlc/emit_c/loops.py)
  tensor/view   :class:`TensorRef`: base data pointer, shape, strides and per-axis offsets
"""
from __future__ import annotations

from dataclasses import dataclass

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import lanes

STORAGE_C = {DType.bool: "uint8_t", DType.int8: "int8_t", DType.int32: "int32_t",
             DType.int64: "int64_t", DType.float16: "uint16_t", DType.bfloat16: "uint16_t",
             DType.float32: "float"}
ALIGN = 64


@dataclass
class TensorRef:
    """A tensor parameter or a view: element i of axis a is at data + (off[a] + i) * stride[a]
    and is in bounds when 0 <= off[a] + i < shape[a]."""

    dtype: DType
    data: str
    shape: list[str]
    stride: list[str]
    off: list[str]


@dataclass
class Tile:
    name: str            # C pointer name
    offset: int          # byte offset in the workspace
    type: ir.TileType

    @property
    def kind(self) -> str:
        return lanes.KIND[self.type.dtype]

    @property
    def ctype(self) -> str:
        return lanes.MEM_C[self.kind]


@dataclass
class RegTile:
    """A loop-carried tile kept in vector locals for the whole runtime ``for`` (chosen by
    :func:`tlc.emit_c.plan.reg_carried`): row r (of the leading axes, row-major), vector v (TL_L
    lanes of the last axis) is the C local ``<name>_<r * vpr + v>`` in memory form (bools 0/1);
    lanes past the row end are don't-care. Lane loops touching one are unrolled at emit time, so
    every local is named by a constant and gcc keeps them in registers: no workspace loads and
    stores per chunk step, and no stores that block later loads."""

    name: str
    type: ir.TileType
    rows: int
    vpr: int             # vectors per row: ceil(shape[-1] / lanes)

    @property
    def kind(self) -> str:
        return lanes.KIND[self.type.dtype]

    def reg(self, row: int, v: int) -> str:
        return f"{self.name}_{row * self.vpr + v}"


def numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def elem_bytes(dtype: DType) -> int:
    return 8 if dtype.compute is DType.int64 else 4
