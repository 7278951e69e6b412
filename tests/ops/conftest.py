"""Fixtures for tests/ops live in ops_helpers.py (a uniquely named module, importable from tests)."""
from ops_helpers import *  # noqa: F401,F403
