"""The operator library's kernel instances as Python sees them, and an interpreter-backed
stand-in for the compiled package.

``instances()`` maps each instance name (``softmax__DT_float16``: ``tlc.specs.instance_name``,
the rule ``tlc build`` names instances by) to ``(KernelFunction, constexprs)`` by importing
``ops/*.py`` (``tl/_data/ops`` in a wheel) (decorators only record the kernels; bodies never run). :class:`InterpPackage` has the call interface of
``tl.load(...)`` packages (``pkg.<instance>(*args)`` in signature order) but runs the NumPy
reference interpreter; ``tl.ops`` uses it when ``TL_OPS_BACKEND=interp``.
"""
from __future__ import annotations

import __future__
import os

from tl._kernel import KernelFunction
from tl._resources import ops_source_dir
from tlc.specs import instance_name

OPS_DIR = ops_source_dir()
_CACHE: dict | None = None


def instances() -> dict[str, tuple[KernelFunction, dict]]:
    """Every kernel instance of ops/ by name."""
    global _CACHE
    if _CACHE is None:
        out = {}
        for fname in sorted(os.listdir(OPS_DIR)):
            if not fname.endswith(".py") or fname.startswith("_"):
                continue
            path = os.path.join(OPS_DIR, fname)
            with open(path, encoding="utf-8") as f:
                # annotations such as tl.tensor(DT, 2) name constexprs: keep them unevaluated
                code = compile(f.read(), path, "exec", flags=__future__.annotations.compiler_flag,
                               dont_inherit=True)
            ns = {"__name__": f"_tl_ops_src_{fname[:-3]}", "__file__": path}
            exec(code, ns)
            for obj in ns.values():
                if isinstance(obj, KernelFunction):
                    for sp in obj.specializations or [{}]:
                        out[instance_name(obj.name, sp)] = (obj, dict(sp))
        _CACHE = out
    return _CACHE


class InterpPackage:
    """Runs ops/ kernel instances through ``KernelFunction.interpret``."""

    def __getattr__(self, name):
        try:
            kf, cx = instances()[name]
        except KeyError:
            raise AttributeError(f"no kernel instance {name!r} in ops/") from None
        return lambda *args, grid=None: kf.interpret(*args, grid=grid, **cx)

    def __contains__(self, name):
        return name in instances()

