"""The one error type for user mistakes in TL source, compile warnings, and the package error."""
from __future__ import annotations

import linecache
from dataclasses import dataclass


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
        return render_located("error", self.message, self.loc, self.source_line, self.notes)


def render_located(kind: str, message: str, loc, source_line: str | None = None, notes=(),
                   display_file: str | None = None) -> str:
    """``file:line:col: <kind>: message``, the source line with a caret under the column (read
    from the file when ``source_line`` is None), then ``notes``, one a line. ``display_file``
    replaces the file name shown (the source is still read from ``loc.file``)."""
    if loc is None:
        return f"{kind}: {message}"
    where = f"{display_file}:{loc.line}:{loc.col}" if display_file else str(loc)
    text = f"{where}: {kind}: {message}"
    line = source_line
    if line is None:
        line = linecache.getline(loc.file, loc.line) or None
    if line is not None:
        text += "\n    " + line.rstrip("\n") + "\n    " + " " * (loc.col - 1) + "^"
    for note in notes:
        text += "\n" + note
    return text


@dataclass(frozen=True)
class CompileWarning:
    """A located warning about TL source that compiles but may run badly (see
    tlc/backends/cpu/lint.py); rendered like :class:`TLCompileError` with ``warning:``."""

    message: str
    loc: object = None
    notes: tuple = ()

    def render(self, display_file: str | None = None) -> str:
        return render_located("warning", self.message, self.loc, None, self.notes, display_file)


class PackageError(Exception):
    """A package that cannot be read, built or trusted; the message names the file and the cause."""
