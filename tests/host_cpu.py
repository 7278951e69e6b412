"""Which compiled variants this machine can execute: tests that compile code for a variant whose
CPU features the host lacks (AVX-512 code on an AVX2-only machine, as some CI hosts are) still
emit and compile it, and skip only the run, which would die of SIGILL or find no bundle."""
from __future__ import annotations

import platform

import pytest

from tl import _runtime
from tlc.backends import resolve


def missing_features(variant) -> list[str]:
    """CPU features ``variant`` (a Variant or a variant name) needs that this machine lacks, as the
    runtime reports them; ``[arch]`` for another architecture's variant."""
    if isinstance(variant, str):
        (variant,) = resolve(variant)
    if variant.arch != platform.machine():
        return [variant.arch]
    return sorted(set(variant.features) - set(_runtime.cpu_features()))


def runs_here(variant) -> bool:
    """True when this machine can execute ``variant``'s code."""
    return not missing_features(variant)


def skip_unless_runs_here(variant) -> None:
    """pytest.skip, naming the missing features, unless this machine can execute ``variant``."""
    missing = missing_features(variant)
    if missing:
        name = variant if isinstance(variant, str) else variant.name
        pytest.skip(f"{name} needs {', '.join(missing)}, which this machine lacks (compiled, not run)")
