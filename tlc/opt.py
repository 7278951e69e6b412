"""``tlc opt``: runs named passes on printed tile IR and prints the result (like ``mlir-opt``).

``run(text, passes, variant=None, source="<stdin>") -> str``: parses ``text`` (the form
:func:`tlc.lower.printer.print_module` writes; ``//`` comment lines are skipped), verifies it,
runs each pass of ``passes`` (names, in the given order) through
:func:`tlc.lower.pass_manager.run_pipeline` with the verifier after each, and returns the printed
module. ``variant`` (a backend's variant, e.g. :class:`tlc.backends.cpu.targets.Variant`, or None) is the passes' context: None means
4 float32 lanes and no assembly microkernel (what ``run_pipeline(m, None)`` does).

Every failure raises :class:`OptError` whose message starts ``<source>[:<line>]: error: ...``:
an unknown pass (naming the known ones), unparsable text (with its line), input that does not
verify, a pass whose output does not verify, or a pass that fails on its input.
"""
from __future__ import annotations

from typing import Any, Sequence

from tlc import backends
from tlc.lower import passes as passes_mod
from tlc.lower.pass_manager import run_pipeline
from tlc.lower.printer import IRParseError, parse_module, print_module
from tlc.lower.verify import IRVerifyError, verify


class OptError(Exception):
    """A ``tlc opt`` failure; the message is what to print (a verifier error adds the op's lines)."""


def list_passes() -> list[tuple[str, str]]:
    """(name, one-line summary) of every pass of the default (CPU) pipeline, in pipeline order."""
    return [(p.name, passes_mod.summary(p)) for p in backends.pipeline(None)]


def resolve_passes(names: Sequence[str]) -> list[Any]:
    """The pass objects called ``names``; OptError naming the first unknown one."""
    out, registry = [], backends.registry()
    for name in names:
        if name not in registry:
            raise OptError(f"error: unknown pass {name!r} (-p); known passes: {', '.join(registry)}")
        out.append(registry[name])
    return out


def run(text: str, passes: Sequence[str], variant=None, source: str = "<stdin>", debug: bool = False) -> str:
    """The printed module after running ``passes`` on the IR ``text`` (see the module docstring).
    ``debug``: let a failing pass's own exception through (for its traceback)."""
    todo = resolve_passes(passes)
    try:
        module = parse_module(text)
    except IRParseError as e:
        raise OptError(f"{source}:{e.line}: error: {e.msg}") from None
    try:
        verify(module)
    except IRVerifyError as e:
        raise OptError(f"{source}: error: the input IR does not verify: {e}") from None
    for p in todo:
        try:
            module = run_pipeline(module, variant, passes=[p],
                                  spaces=backends.backend_for(variant).memory_spaces(variant))
        except IRVerifyError as e:
            raise OptError(f"{source}: error: {e}") from None
        except Exception as e:  # noqa: BLE001 - a pass meeting IR it does not expect
            if debug:
                raise
            raise OptError(f"{source}: error: pass {p.name} failed on this IR: {type(e).__name__}: {e} "
                           f"(TL_DEBUG=1 shows the traceback)") from None
    return print_module(module)

