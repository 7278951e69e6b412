"""The dtypes of TL and the tables that describe them (one table per concern).

Codes match ``tl_dtype_t`` in ``libtl_runtime/include/tl/bundle_abi.h``.
"""
from __future__ import annotations

import enum


class DType(enum.Enum):
    """An element type. ``value`` is the ABI code (``tl_dtype_t``)."""

    bool = 0
    int8 = 1
    int32 = 2
    int64 = 3
    float16 = 4
    bfloat16 = 5
    float32 = 6

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self]

    @property
    def is_float(self) -> bool:
        return self in (DType.float16, DType.bfloat16, DType.float32)

    @property
    def is_int(self) -> bool:
        return self in (DType.int8, DType.int32, DType.int64)

    @property
    def is_bool(self) -> bool:
        return self is DType.bool

    @property
    def compute(self) -> "DType":
        """The dtype tile lanes are held in: float32 for every float, int32 for
        bool/int8/int32, int64 for int64 (see docs/design.md, "Tile storage")."""
        return _COMPUTE[self]

    @property
    def short(self) -> str:
        return _SHORT[self]

    def __repr__(self) -> str:
        return f"tl.{self.name}"

    def __str__(self) -> str:
        return self.name


_ITEMSIZE = {DType.bool: 1, DType.int8: 1, DType.int32: 4, DType.int64: 8,
             DType.float16: 2, DType.bfloat16: 2, DType.float32: 4}
_COMPUTE = {DType.bool: DType.int32, DType.int8: DType.int32, DType.int32: DType.int32,
            DType.int64: DType.int64, DType.float16: DType.float32,
            DType.bfloat16: DType.float32, DType.float32: DType.float32}
_SHORT = {DType.bool: "i1", DType.int8: "i8", DType.int32: "i32", DType.int64: "i64",
          DType.float16: "f16", DType.bfloat16: "bf16", DType.float32: "f32"}
BY_NAME = {d.name: d for d in DType}
BY_SHORT = {v: k for k, v in _SHORT.items()}

# Promotion rank for binary ops between two tiles/scalars of "strong" dtype.
_RANK = {DType.bool: 0, DType.int8: 1, DType.int32: 2, DType.int64: 3,
         DType.bfloat16: 4, DType.float16: 5, DType.float32: 6}


def promote(a: DType, b: DType) -> DType:
    """Result dtype of a binary arithmetic op on two strongly typed operands.

    float beats int beats bool; among floats float32 > float16 > bfloat16, and float16 with
    bfloat16 gives float32; among ints the wider wins.
    """
    if a is b:
        return a
    if {a, b} == {DType.float16, DType.bfloat16}:
        return DType.float32
    return a if _RANK[a] >= _RANK[b] else b
