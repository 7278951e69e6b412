"""The pipeline glue: TL source file -> IR -> passes -> source text, per target variant.

parse (tlc.parse.parse_file) -> run_pipeline (tlc.lower.passes.COMMON_PIPELINE, then the variant's
backend's passes, through tlc.lower.pass_manager) -> emit (the backend's ``emit``; the CPU backend:
tlc.emit_c.emit_bundle). The backend is ``tlc.backends.backend_for(variant)`` (None: the CPU).
The package layer (tlc/package/pack.py) calls :func:`compile_unit` only on cache misses.
"""
from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field

from tlc import backends
from tlc.errors import TLCompileError


@dataclass
class UnitResult:
    """One TL file compiled for one variant: the backend's source (C for the CPU), IR text after the pipeline, the manifest's
    kernel entries (see :func:`kernel_info`), the rendered performance warnings (see :func:`lint`)
    and the file's module docstring ("" when none)."""

    c_source: str
    ir_text: str
    kernels: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    doc: str = ""


def _jsonable(value):
    if hasattr(value, "name") and type(value).__name__ == "DType":
        return value.name
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def docstrings(text: str) -> tuple[str, dict[str, str]]:
    """(module docstring, {top-level function name: docstring}) of TL source text, cleaned with
    ast.get_docstring (indentation removed; "" when absent; ("", {}) when the text does not parse)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return "", {}
    funcs = {f.name: ast.get_docstring(f) or "" for f in tree.body if isinstance(f, ast.FunctionDef)}
    return ast.get_docstring(tree) or "", funcs


def kernel_info(kernel, display_file: str, doc: str = "") -> dict:
    """Manifest entry of a tlc.lower.ir.Kernel: name, source "file:line" (``display_file``: the path
    relative to the build root), has_grid, constexprs, params (runtime parameters in call order:
    name, kind, dtype, rank, access, and dims -- the shape contract, per axis a symbol name or a fixed
    extent -- when the parameter has one), doc (the @tl.kernel function's docstring)."""
    line = kernel.loc.line if kernel.loc is not None else 0
    params = []
    for p in kernel.runtime_params:
        params.append({"name": p.name, "kind": p.kind, "dtype": p.dtype.name if p.dtype is not None else None,
                       "rank": p.rank, "access": p.access})
        if p.dims is not None:
            params[-1]["dims"] = list(p.dims)
    return {"name": kernel.name, "base_name": kernel.base_name or kernel.name, "source": f"{display_file}:{line}",
            "has_grid": kernel.grid is not None,
            "constexprs": {k: _jsonable(v) for k, v in kernel.constexprs}, "params": params, "doc": doc}


def parse(path: str):
    """The IR module of a TL source file (raises TLCompileError)."""
    from tlc.parse import parse_file
    return parse_file(path)


def select_kernels(module, names: list[str] | None):
    """The module restricted to kernels whose instance or base name is in ``names`` (None: all)."""
    if not names:
        return module
    keep = tuple(k for k in module.kernels if k.name in names or k.base_name in names)
    if not keep:
        known = ", ".join(k.name for k in module.kernels) or "none"
        raise TLCompileError(f"no kernel named {', '.join(names)} in {module.source_file}; kernels: {known}")
    import dataclasses
    return dataclasses.replace(module, kernels=keep)


def run_pipeline(module, variant=None, print_ir_after_all: bool = False, passes=None, stream=None):
    """Runs ``passes`` (None: the variant's whole pipeline, :func:`tlc.backends.pipeline`; else pass
    objects or names of common or backend passes) through tlc.lower.pass_manager.run_pipeline, with
    the memory spaces of the variant's backend; the IR dump goes to ``stream`` (default stderr)."""
    from tlc.lower.pass_manager import run_pipeline as run
    backend = backends.backend_for(variant)
    todo = (backends.pipeline(variant) if passes is None
            else [backends.get_pass(p) if isinstance(p, str) else p for p in passes])
    return run(module, variant, print_ir_after_all=print_ir_after_all, stream=stream, passes=todo,
               spaces=backend.memory_spaces(variant))


def print_ir(module, display_file: str | None = None) -> str:
    """IR text via tlc.lower.printer.print_module (``display_file`` as the file name)."""
    from tlc.lower.printer import print_module
    return print_module(module, display_file)


def lint(module, display_file: str | None = None, variant=None) -> list[str]:
    """The performance warnings of a parsed module for the variant's backend (the CPU's:
    tlc/backends/cpu/lint.py), rendered ``file:line:col: warning: ...`` with a caret
    (``display_file`` as the file name)."""
    return [w.render(display_file) for w in backends.backend_for(variant).lint(module)]


def emit(module, variant=None, display_file: str | None = None) -> str:
    """The bundle source of a lowered module from the variant's backend (the CPU's: C);
    ``display_file`` replaces the source path in it."""
    return backends.backend_for(variant).emit(module, variant, display_file)


def compile_unit(path: str, variant, print_ir_after_all: bool = False, kernels: list[str] | None = None,
                 display_file: str | None = None) -> UnitResult:
    """Compiles one TL file for one variant (raises TLCompileError for errors in the source).
    ``display_file`` (default: ``path``) names the file in the C, the IR text and the manifest
    entries (the package build gives the path relative to the build root, so no build-machine
    path gets into a package)."""
    module = select_kernels(parse(os.fspath(path)), kernels)
    lowered = run_pipeline(module, variant, print_ir_after_all)
    display = display_file or os.fspath(path)
    with open(path, encoding="utf-8") as f:
        module_doc, docs = docstrings(f.read())
    infos = [kernel_info(k, display, docs.get(k.base_name or k.name, "")) for k in lowered.kernels]
    return UnitResult(emit(lowered, variant, display), print_ir(lowered, display), infos,
                      lint(module, display, variant), module_doc)


def compile_kernels(path, variants, print_ir_after_all: bool = False) -> dict[str, str]:
    """The emitted source of every kernel in ``path`` per variant: {variant.name: source}."""
    module = parse(os.fspath(path))
    return {v.name: emit(run_pipeline(module, v, print_ir_after_all), v) for v in variants}
