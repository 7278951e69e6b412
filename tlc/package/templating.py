"""Rendering of tlc/package/templates through the one jinja2 Environment (tlc/templating.py)."""
from __future__ import annotations

import jinja2

from tlc import templating

TEMPLATES = templating.TEMPLATES["package"]


def environment() -> jinja2.Environment:
    return templating.environment()


def render(template: str, **values) -> str:
    """Renders tlc/package/templates/<name>; a missing value raises jinja2.UndefinedError."""
    return templating.render(f"package/{template}", **values)
