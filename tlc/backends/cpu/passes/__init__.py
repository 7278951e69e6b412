"""The CPU backend's passes, appended to tlc.lower.passes.COMMON_PIPELINE in this order."""
from __future__ import annotations

from tlc.backends.cpu.passes import lower_dot, vectorize

PASSES = (vectorize.PASS, lower_dot.PASS)
