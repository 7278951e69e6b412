"""Runs the pass pipeline: each pass, then the verifier; optionally prints the IR after each.

``run_pipeline(module, target_variant, print_ir_after_all=False, stream=sys.stderr,
passes=None, spaces=None) -> Module``. ``passes`` is None (the target-neutral
:data:`tlc.lower.passes.COMMON_PIPELINE`; a target's whole pipeline, with its backend's passes, is
:func:`tlc.backends.pipeline`, run by :func:`tlc.driver.run_pipeline`) or a list of pass objects or
names of common passes (unknown names raise KeyError listing the known ones). ``spaces``: the
backend's memory spaces for plan_memory (None: one unbounded workspace). The input
module is verified first. After each pass the header ``// -----// IR after <name> //----- //``
and :func:`tlc.lower.printer.print_module` output go to ``stream`` when asked.
"""
from __future__ import annotations

import sys
from typing import Any, Sequence, TextIO

from tlc.lower import ir
from tlc.lower.passes import COMMON_PIPELINE, PassContext, get_pass
from tlc.lower.printer import print_module
from tlc.lower.verify import IRVerifyError, verify


def header(name: str) -> str:
    return f"// -----// IR after {name} //----- //"


def run_pipeline(module: ir.Module, target_variant=None, print_ir_after_all: bool = False,
                 stream: TextIO | None = None, passes: Sequence[Any] | None = None,
                 spaces: dict | None = None) -> ir.Module:
    stream = sys.stderr if stream is None else stream
    ctx = PassContext(target_variant) if spaces is None else PassContext(target_variant, dict(spaces))
    todo = list(COMMON_PIPELINE) if passes is None else [get_pass(p) if isinstance(p, str) else p for p in passes]
    verify(module)
    for p in todo:
        module = p.run(module, ctx)
        try:
            verify(module)
        except IRVerifyError as e:
            e.args = (f"after pass {p.name}: {e.args[0]}",)
            raise
        if print_ir_after_all:
            stream.write(header(p.name) + "\n" + print_module(module))
            stream.flush()
    return module
