"""The one jinja2 Environment of tlc: StrictUndefined (a missing value is an error), no
autoescaping, trailing newlines kept. Templates are named ``<owner>/<file>``:

  emit_c/...    tlc/emit_c/templates (bundle.j2, prelude.j2, vmath.j2)
  emit_asm/...  tlc/emit_asm/templates (the GEMM microkernels)
  package/...   tlc/package/templates (the aggregator and the package header)
"""
from __future__ import annotations

import functools
from pathlib import Path

import jinja2

_TLC = Path(__file__).resolve().parent
TEMPLATES = {owner: _TLC / owner / "templates" for owner in ("emit_c", "emit_asm", "package")}


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    loader = jinja2.PrefixLoader({owner: jinja2.FileSystemLoader(str(path)) for owner, path in TEMPLATES.items()})
    return jinja2.Environment(loader=loader, undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                              trim_blocks=False, lstrip_blocks=False, autoescape=False)


def render(template: str, **values) -> str:
    """Renders ``<owner>/<file>``; a missing value raises jinja2.UndefinedError."""
    return environment().get_template(template).render(**values)
