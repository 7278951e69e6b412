"""Kernel choices that depend on the bundle the loaded package runs, taken from dispatch data.

``tlc build`` records per bundle of the manifest what the wrappers may rely on
(tlc/backends/cpu/dispatch.py ``dispatch_facts``), e.g. ``"dispatch": {"gemv_streams_b": true,
"tall_matmul_tiles": true}``:

- ``gemv_streams_b``: one-row products (M == 1) stream B in place through the one-row
  microkernel (``matmul_gemv`` beats ``matmul_rows`` once B leaves the L2 cache);
- ``tall_matmul_tiles``: the 512 x 128 tiles of ``matmul_big`` pay off on tall products (B
  packed half as often; measured on AVX-512 bundles only, the AVX2 one ran 0-3% slower).

The wrappers ask these questions (``gemv_streams_b()``, ``tall_matmul_tiles()``) instead of
testing variant names. A package built before the field existed gets today's answers from its
bundle's variant name (``_by_variant_name``); the interpreter and emulated stand-ins, which run
no bundle of their own, answer False to each.
"""
from __future__ import annotations

import json
import zipfile

from tl.ops import _package

_FACTS = ("gemv_streams_b", "tall_matmul_tiles")
_SEEN: tuple = (None, {})        # (package object, its facts): one manifest read per loaded package


def _by_variant_name(variant: str) -> dict:
    """The facts of a bundle without a ``dispatch`` field, from its x86 variant name (the rule
    tl.ops used before the manifest carried them)."""
    return {"gemv_streams_b": variant.startswith(("x86_64-avx512", "x86_64-avx2")),
            "tall_matmul_tiles": variant.startswith("x86_64-avx512")}


def _manifest_dispatch(path: str, variant: str):
    """The ``dispatch`` object of bundle ``variant`` in the manifest of the package at ``path``,
    or None (no such field, a bare bundle .so, an unreadable manifest)."""
    if not path.endswith(".tlpkg") and not zipfile.is_zipfile(path):
        return None
    try:
        with zipfile.ZipFile(path) as z:
            manifest = json.loads(z.read("manifest.json"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    for b in manifest.get("bundles", ()):
        if b.get("variant") == variant and isinstance(b.get("dispatch"), dict):
            return b["dispatch"]
    return None


def facts_of(pkg) -> dict:
    """The dispatch facts of ``pkg`` (a tl.load package, or a stand-in without a bundle)."""
    variant = getattr(pkg, "target", None)
    if not isinstance(variant, str):
        return {k: False for k in _FACTS}
    path = getattr(pkg, "path", None)
    d = _manifest_dispatch(path, variant) if isinstance(path, str) else None
    if d is None:
        d = _by_variant_name(variant)
    return {k: bool(d.get(k, False)) for k in _FACTS}


def facts() -> dict:
    """The dispatch facts of the loaded package (``tl.ops.package()``)."""
    global _SEEN
    pkg = _package._PKG if _package._PKG is not None else _package.package()
    seen, f = _SEEN
    if seen is not pkg:
        f = facts_of(pkg)
        _SEEN = (pkg, f)
    return f


def gemv_streams_b() -> bool:
    """Whether one-row products of the loaded bundle stream B in place (ops/matmul.py matmul_gemv)."""
    return facts()["gemv_streams_b"]


def tall_matmul_tiles() -> bool:
    """Whether the loaded bundle runs tall products on 512 x 128 tiles (matmul_big__BM_512__BN_128)."""
    return facts()["tall_matmul_tiles"]
