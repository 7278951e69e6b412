"""Model tests reuse the operator-library fixtures (package build, seeds) of tests/ops."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ops"))
from ops_helpers import ops_backend  # noqa: E402,F401
