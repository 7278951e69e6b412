"""The backend registry: one line per backend, and the lookups built on it.

``BACKENDS`` maps a backend name to the ``module:Class`` implementing :class:`tlc.backends.base.Backend`
(imported on first use). A new backend is one folder under tlc/backends/ plus one line here
(tests/package/toy_backend/ is such a folder, registered by its test through :func:`register`).

  backend_for(x)     the backend of a variant object, a target or variant name, or None (the default, cpu)
  resolve(names)     variants for "host", target names and variant names, comma-separated
  all_targets()      target name -> variants, over every backend
  pipeline(v)        COMMON_PIPELINE + backend_for(v).passes(v)
  registry()         pass name -> pass, common and every backend's (``tlc opt -p``)
"""
from __future__ import annotations

import importlib
from typing import Any

from tlc.backends.base import Backend, Payload  # noqa: F401 - re-exported

# name -> "module:Class"; one line per backend
BACKENDS: dict[str, str] = {
    "cpu": "tlc.backends.cpu.backend:CpuBackend",
}
DEFAULT = "cpu"
_LOADED: dict[str, Backend] = {}


def register(backend: Backend) -> None:
    """Adds (or replaces) a backend instance under its name (tests register test-only backends)."""
    _LOADED[backend.name] = backend
    BACKENDS.setdefault(backend.name, f"{type(backend).__module__}:{type(backend).__qualname__}")


def unregister(name: str) -> None:
    """Removes a backend registered by :func:`register` (never the built-in ones)."""
    if name == DEFAULT:
        raise ValueError("the default backend cannot be unregistered")
    _LOADED.pop(name, None)
    BACKENDS.pop(name, None)


def get(name: str) -> Backend:
    """The backend called ``name``; KeyError listing the known ones."""
    if name not in _LOADED:
        if name not in BACKENDS:
            raise KeyError(f"unknown backend {name!r}; known: {', '.join(BACKENDS)}")
        module, cls = BACKENDS[name].split(":")
        _LOADED[name] = getattr(importlib.import_module(module), cls)()
    return _LOADED[name]


def backends() -> list[Backend]:
    """Every registered backend, in registry order."""
    return [get(n) for n in list(BACKENDS)]


def backend_for(x: Any = None) -> Backend:
    """The backend of ``x``: a variant object (by its type), a target or variant name, or None
    (the default backend). ValueError for a name no backend knows."""
    if x is None:
        return get(DEFAULT)
    if isinstance(x, str):
        for b in backends():
            if x in b.targets or any(v.name == x for vs in b.targets.values() for v in vs):
                return b
        if x == "host":
            return get(DEFAULT)
        raise ValueError(f"unknown target {x!r}; known targets: {', '.join(_known())}")
    for b in backends():
        if isinstance(x, b.variant_type):
            return b
    raise ValueError(f"no backend has variants of type {type(x).__name__}")


def all_targets() -> dict[str, tuple[Any, ...]]:
    """Target name -> its variants, over every backend (registry order)."""
    return {name: vs for b in backends() for name, vs in b.targets.items()}


def _known() -> list[str]:
    return ["host", *all_targets(), *(v.name for vs in all_targets().values() for v in vs)]


def host_target_name() -> str:
    """The target ``host`` means here (the first backend that has one)."""
    for b in backends():
        t = b.host_target()
        if t is not None:
            return t
    raise ValueError("no backend has a target for this host")


def resolve(names: str) -> list[Any]:
    """Variants for a comma-separated target list such as "host" or "x86_64".

    Raises ValueError naming the unknown target and the known ones. A variant named twice
    (``x86_64-avx2,x86_64-avx2`` or ``x86_64,x86_64-avx2``) is kept once, at its first place.
    """
    targets = all_targets()
    out: list[Any] = []
    for raw in names.split(","):
        name = raw.strip()
        if name == "host":
            name = host_target_name()
        if name in targets:
            out.extend(targets[name])
            continue
        variant = next((v for vs in targets.values() for v in vs if v.name == name), None)
        if variant is None:
            raise ValueError(f"unknown target {name!r}; known targets: {', '.join(_known())}")
        out.append(variant)
    seen: set[str] = set()
    return [v for v in out if not (v.name in seen or seen.add(v.name))]


# ------------------------------------------------------------------------------ pipelines
def pipeline(variant: Any = None) -> list[Any]:
    """The whole pass pipeline of ``variant``: COMMON_PIPELINE, then its backend's passes."""
    from tlc.lower.passes import COMMON_PIPELINE
    return [*COMMON_PIPELINE, *backend_for(variant).passes(variant)]


def registry() -> dict[str, Any]:
    """Pass name -> pass: the common passes, then every backend's (first name wins)."""
    from tlc.lower.passes import REGISTRY
    out = dict(REGISTRY)
    for b in backends():
        for p in b.passes(None):
            out.setdefault(p.name, p)
    return out


def get_pass(name: str) -> Any:
    """The pass called ``name`` (common or a backend's); KeyError listing the known names."""
    reg = registry()
    if name not in reg:
        raise KeyError(f"unknown pass {name!r}; known passes: {', '.join(reg)}")
    return reg[name]


def pipeline_through(name: str, variant: Any = None) -> list[Any]:
    """``pipeline(variant)`` up to and including the pass called ``name``; ``"parse"`` gives [] (the
    IR as the frontend made it). Raises KeyError listing the known names."""
    if name == "parse":
        return []
    todo = pipeline(variant)
    names = [p.name for p in todo]
    if name not in names:
        raise KeyError(f"unknown pass {name!r}; known passes: {', '.join(names)}")
    return todo[:names.index(name) + 1]
