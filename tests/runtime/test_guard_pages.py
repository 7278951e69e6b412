"""Outputs (and inputs) that end at a guard page: the ops package's kernels never touch a byte
past a tensor, and refuse mismatched shapes untouched (guard_pages.py, run in a subprocess)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rt_helpers import REPO, python_env

OPS = REPO / "build" / "ops.tlpkg"


@pytest.mark.skipif(not OPS.exists(), reason="build/ops.tlpkg not built (make ops)")
def test_guard_pages():
    env = python_env()
    r = subprocess.run([sys.executable, str(Path(__file__).with_name("guard_pages.py")), str(OPS)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr[-3000:])
    assert r.stdout.startswith("ok ")
