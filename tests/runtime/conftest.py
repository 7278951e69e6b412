"""Fixtures for tests/runtime live in rt_helpers.py (a uniquely named module, importable from tests)."""
from rt_helpers import *  # noqa: F401,F403
