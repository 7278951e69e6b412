"""Fixtures for tests/package live in pkg_helpers.py (a uniquely named module, importable from tests)."""
from pkg_helpers import *  # noqa: F401,F403
