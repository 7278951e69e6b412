"""The one error type for user mistakes in TL source, and the package error."""
from __future__ import annotations

import linecache


class TLCompileError(Exception):
    """A located error in TL source: prints ``file:line:col: error: message``, the source line
    and a caret under the column, then ``notes`` (e.g. the call sites of an inlined ``@tl.func``).
    ``loc`` is a :class:`tlc.lower.ir.Loc` or None."""

    def __init__(self, message: str, loc=None, source_line: str | None = None, notes=()):
        self.message = message
        self.loc = loc
        self.source_line = source_line
        self.notes = tuple(notes)
        super().__init__(self.render())

    def render(self) -> str:
        if self.loc is None:
            return f"error: {self.message}"
        text = f"{self.loc}: error: {self.message}"
        line = self.source_line
        if line is None:
            line = linecache.getline(self.loc.file, self.loc.line) or None
        if line is not None:
            text += "\n    " + line.rstrip("\n") + "\n    " + " " * (self.loc.col - 1) + "^"
        for note in self.notes:
            text += "\n" + note
        return text


class PackageError(Exception):
    """A package that cannot be read, built or trusted; the message names the file and the cause."""
