"""Memory spaces: where a tile's buffer lives, and how much room each space has.

Every :class:`tlc.lower.ir.TileType` names its space (``space``, default :data:`DEFAULT`:
the per-program workspace every CPU tile lives in today). :mod:`tlc.lower.passes.plan_memory`
plans each space separately, with the capacity and alignment the backend gives for it
(``Backend.memory_spaces(variant)``, see tlc/backends/base.py); a bounded space whose buffers do
not fit is a located compile-time error. No TL syntax names a space yet: a backend's passes
assign them.

  global     tensors in device memory (kernel parameters; never planned)
  workspace  the per-program scratch of a kernel (CPU: heap memory the runtime hands each worker)
  local      per-program on-chip storage (registers/private memory)
  shared     memory shared by the programs of a block (GPU shared memory)
  ub, l1, l0a, l0b, l0c  the on-chip buffers of a cube/vector NPU (unified buffer, L1, the matrix
             unit's operand buffers A/B and its accumulator buffer C)
"""
from __future__ import annotations

from dataclasses import dataclass

GLOBAL = "global"
WORKSPACE = "workspace"
LOCAL = "local"
SHARED = "shared"
UB = "ub"
L1 = "l1"
L0A = "l0a"
L0B = "l0b"
L0C = "l0c"

SPACES: tuple[str, ...] = (GLOBAL, WORKSPACE, LOCAL, SHARED, UB, L1, L0A, L0B, L0C)
DEFAULT = WORKSPACE
ALIGN = 64          # bytes: the default alignment of buffers in a space (today's workspace offsets)


@dataclass(frozen=True, slots=True)
class MemorySpace:
    """A backend's room in one space: ``capacity`` bytes per program (None: unbounded) and the
    alignment of every buffer offset (and of the planned total) in it."""

    name: str
    capacity: int | None = None
    alignment: int = ALIGN

    def __post_init__(self) -> None:
        if self.name not in SPACES:
            raise ValueError(f"unknown memory space {self.name!r}; known: {', '.join(SPACES)}")
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise ValueError(f"memory space {self.name}: alignment {self.alignment} is not a power of two")


# what plan_memory assumes without a backend (tlc opt, tests): one unbounded workspace
DEFAULT_SPACES: dict[str, MemorySpace] = {WORKSPACE: MemorySpace(WORKSPACE)}


def check(name: str) -> str:
    """``name`` when it is a known space; ValueError naming the known ones otherwise."""
    if name not in SPACES:
        raise ValueError(f"unknown memory space {name!r}; known: {', '.join(SPACES)}")
    return name
