"""pytest plugin: ``pytest -p emu_plugin tests/ops`` with ``$TL_CROSS_COMMAND`` (a shell-quoted
driver command line, see cross_backend.py) runs the operator tests against an emulated
architecture: after tests/ops' own session fixture, tl.ops' package is replaced by an
:class:`EmulatedPackage` (one driver process for the session)."""
from __future__ import annotations

import os
import shlex

import pytest

import tl.ops as ops
from cross_backend import EmulatedPackage

_PKG: EmulatedPackage | None = None


def pytest_report_header(config):
    return f"cross backend: {os.environ.get('TL_CROSS_COMMAND', '(unset)')}"


@pytest.fixture(autouse=True)
def _emulated_backend(request):
    global _PKG
    if "ops_backend" in request.fixturenames:
        request.getfixturevalue("ops_backend")
    if _PKG is None:
        _PKG = EmulatedPackage(shlex.split(os.environ["TL_CROSS_COMMAND"]))
    ops._package._PKG = _PKG
    yield


def pytest_sessionfinish(session, exitstatus):
    if _PKG is not None:
        _PKG.close()
