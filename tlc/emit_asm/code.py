"""The value the microkernel templates produce."""
from __future__ import annotations

from typing import NamedTuple


class AsmFunction(NamedTuple):
    """One C function (GCC/clang extended asm) a kernel calls: its C name and its whole source.
    A pure value: the same template parameters always give the same name and source, and a name
    identifies its source (the C emitter keeps one copy per name)."""

    name: str
    source: str
