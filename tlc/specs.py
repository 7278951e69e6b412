"""Kernel specializations as written in ``@tl.kernel(specializations=...)``: a list of dicts of
constexpr values, or a dict of non-empty lists meaning every combination (the Cartesian product,
first key outermost), e.g. ``dict(OP=["sin", "cos"], DT=[tl.float32, tl.float16])``."""
from __future__ import annotations

import itertools


def expand(specs):
    """``specs`` as a list of dicts when it is a dict of non-empty lists or tuples; anything else
    unchanged (the caller checks it is a non-empty list of dicts)."""
    if isinstance(specs, dict) and specs and all(isinstance(v, (list, tuple)) and v for v in specs.values()):
        return [dict(zip(specs, combo)) for combo in itertools.product(*specs.values())]
    return specs
