"""tlc.parse: TL source (read with ``ast``, never executed) -> typed tile IR.

``parse_file(path, only=None)`` / ``parse_source(text, filename, only=None)`` return an
:class:`tlc.lower.ir.Module` with one :class:`tlc.lower.ir.Kernel` per kernel specialization.
``only`` restricts to kernels whose base or instance name is in the set. User mistakes raise
:class:`tlc.errors.TLCompileError` (file:line:col, source line, caret).
"""
from __future__ import annotations

import ast

from tlc.errors import TLCompileError
from tlc.lower import ir


def parse_source(text: str, filename: str = "<string>", only: set[str] | None = None,
                 overrides: dict | None = None) -> ir.Module:
    """Parses TL source text. ``overrides`` (constexpr name -> value) builds, instead of the
    declared specializations, one instance per kernel with those values (interpreter use)."""
    from tlc.parse.frontend import FileContext
    from tlc.parse.kernels import scan_module
    ctx = FileContext(filename, text)
    try:
        tree = ast.parse(text, filename)
    except SyntaxError as e:
        raise TLCompileError(f"syntax error: {e.msg}", ir.Loc(filename, e.lineno or 1, e.offset or 1),
                             e.text) from None
    kernels, seen = [], {}
    for fn, dec in scan_module(ctx, tree):
        try:
            built = _build(ctx, fn, dec, only, overrides)
        except TLCompileError:
            raise
        except Exception as e:  # noqa: BLE001 - never a compiler traceback for the user
            raise ctx.error(fn, f"internal compiler error: {type(e).__name__}: {e}") from None
        for k in built:
            # two instances of one name (two `def k`, a specialization named like another
            # kernel, a repeated specialization) would reach the C compiler as a redefinition
            where = (f"`def {fn.name}` at {ctx.loc(fn)}" if k.name == fn.name
                     else f"a specialization of `{fn.name}` at {ctx.loc(fn)}")
            if k.name in seen:
                raise ctx.error(fn, f"kernel {k.name!r} is defined twice in this file: "
                                    f"{seen[k.name]} and {where}")
            seen[k.name] = where
        kernels.extend(built)
    return ir.Module(tuple(kernels), filename)


def _build(ctx, fn, dec, only, overrides) -> list[ir.Kernel]:
    from tlc.parse.kernels import build_kernel, build_kernels
    from tlc.specs import instance_name
    if overrides is None:
        return build_kernels(ctx, fn, dec, only)
    if only is not None and fn.name not in only:
        return []
    grid = None
    if isinstance(dec, ast.Call):
        grid = next((k.value for k in dec.keywords if k.arg == "grid"), None)
    name = instance_name(fn.name, overrides) if overrides else fn.name
    return [build_kernel(ctx, fn, grid, dict(overrides), name)]


def parse_file(path: str, only: set[str] | None = None, overrides: dict | None = None) -> ir.Module:
    """Reads and parses a TL source file (see :func:`parse_source`)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return parse_source(text, str(path), only, overrides)


__all__ = ["parse_file", "parse_source"]
