"""The emission context: the only mutable state of the C emitter (one per emitted function).

It holds the output lines and their indentation, the C names bound to IR values, the fresh-name
counter, the workspace bump allocator (fallback offsets past the planned workspace), the
microkernel functions the kernel calls, the run-time C names of in-place dot operands, and the
depth of runtime ``for`` loops around the op being emitted. Everything decided before emission
lives in the frozen :class:`tlc.emit_c.plan.Plan`; rules read the plan and write here, and only
through these methods (tests/emit_c/test_structure.py).
"""
from __future__ import annotations

from typing import Callable

from tlc.lower import ir
from tlc.emit_asm.code import AsmFunction
from tlc.emit_c.values import ALIGN


class Context:
    def __init__(self, workspace: int, shown: Callable[[str], str], emit_block, emit_op, grid: bool = False):
        self.lines: list[str] = []
        self.depth = 1
        self.names: dict[int, object] = {}
        self.counter = 0
        self.grid = grid                      # emitting the grid function
        self.loops = 0                        # runtime for loops around the op being emitted
        self.ws_end = (workspace + ALIGN - 1) // ALIGN * ALIGN
        self.asm: dict[str, str] = {}         # microkernel functions this kernel calls (tlc.emit_asm)
        self.dot_src: dict[int, tuple] = {}   # load id -> C names of the tensor a dot reads in place
        self._shown = shown
        self._emit_block = emit_block         # tlc.emit_c.walk.block / .op (the walk owns dispatch)
        self._emit_op = emit_op

    # ------------------------------------------------------------------ output
    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def open(self, text: str) -> None:
        self.line(text + " {")
        self.depth += 1

    def scope(self) -> None:
        """A bare ``{`` block (closed by :meth:`close`)."""
        self.line("{")
        self.depth += 1

    def close(self, text: str = "}") -> None:
        self.depth -= 1
        self.line(text)

    def chain(self, text: str = "} else {") -> None:
        """Closes a block and opens the next one on the same line (``} else {``)."""
        self.close(text)
        self.depth += 1

    def loc(self, op: ir.Op) -> None:
        """A ``/* file:line */`` comment before the op's statements (not repeated while the
        previous emitted line already carries it)."""
        if op.loc is not None:
            where = f"{self._shown(op.loc.file)}:{op.loc.line}".replace("*/", "* /").replace("/*", "/ *")
            text = f"/* {where} */"
            if not (self.lines and self.lines[-1].strip() == text):
                self.line(text)

    # ------------------------------------------------------------------ values
    def bind(self, op: ir.Op, value) -> None:
        self.names[id(op)] = value

    def bound(self, op: ir.Op) -> bool:
        return id(op) in self.names

    def val(self, op: ir.Op):
        return self.names[id(op)]

    # ------------------------------------------------------------------ workspace, functions
    def alloc(self, nbytes: int) -> int:
        off = self.ws_end
        self.ws_end += (nbytes + ALIGN - 1) // ALIGN * ALIGN
        return off

    def add_asm(self, fn: AsmFunction) -> str:
        """Records a microkernel function the kernel calls (one copy per name); its name."""
        self.asm.setdefault(fn.name, fn.source)
        return fn.name

    def set_dot_src(self, op: ir.Op, names: tuple) -> None:
        self.dot_src[id(op)] = names

    def dot_src_of(self, op: ir.Op):
        return self.dot_src.get(id(op))

    # ------------------------------------------------------------------ nesting
    def enter_loop(self) -> None:
        self.loops += 1

    def leave_loop(self) -> None:
        self.loops -= 1

    def block(self, plan, block: ir.Block) -> None:
        self._emit_block(self, plan, block)

    def op(self, plan, op: ir.Op) -> None:
        self._emit_op(self, plan, op)
