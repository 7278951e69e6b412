"""The one jinja2 Environment (StrictUndefined) for tlc/package/templates."""
from __future__ import annotations

import functools
from pathlib import Path

import jinja2

TEMPLATES = Path(__file__).resolve().parent / "templates"


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=False, lstrip_blocks=False,
                              autoescape=False)


def render(template: str, **values) -> str:
    """Renders templates/<name>; a missing value raises jinja2.UndefinedError."""
    return environment().get_template(template).render(**values)
