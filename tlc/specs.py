"""Kernel specializations as written in ``@tl.kernel(specializations=...)``: a list of dicts of
constexpr values, or a dict of non-empty lists meaning every combination (the Cartesian product,
first key outermost), e.g. ``dict(OP=["sin", "cos"], DT=[tl.float32, tl.float16])``."""
from __future__ import annotations

import itertools

from tlc.lower.dtypes import DType


def expand(specs):
    """``specs`` as a list of dicts when it is a dict of non-empty lists or tuples; anything else
    unchanged (the caller checks it is a non-empty list of dicts)."""
    if isinstance(specs, dict) and specs and all(isinstance(v, (list, tuple)) and v for v in specs.values()):
        return [dict(zip(specs, combo)) for combo in itertools.product(*specs.values())]
    return specs


def instance_name(base: str, constexprs: dict) -> str:
    """The name of one kernel instance: ``base`` without constexpr values, else
    ``<base>__<K>_<v>[__<K2>_<v2>]``: keys sorted, a dtype by its name, any other value by ``str``
    with ``-`` -> ``m`` and ``.`` -> ``p`` (``dict(DT=tl.float16, ALPHA=-0.5)`` ->
    ``k__ALPHA_m0p5__DT_float16``). The one rule: the compiler names the instances it builds with
    it (tlc/parse/kernels.py) and ``tl.ops`` the instances it calls (tl/ops/_interp.py)."""
    parts = [base]
    for k in sorted(constexprs):
        v = constexprs[k]
        s = v.name if isinstance(v, DType) else str(v)
        parts.append(f"{k}_{s.replace('-', 'm').replace('.', 'p')}")
    return "__".join(parts)
