"""Where the installed files of tl-compiler are: the runtime library, its C headers, the operator
sources and the operator package, for both ways the project is installed.

* A wheel (``pip install tl-compiler``) carries them inside the ``tl`` package:
  ``tl/_lib/libtl_runtime.so``, ``tl/include/tl/*.h``, ``tl/_data/ops/*.py`` and
  ``tl/_data/ops.tlpkg`` (setup.py's build step puts them there).
* A source checkout (``make run``/``make test``: the editable install) has none of these inside
  ``tl/``; it is recognised because the directory above ``tl/`` holds ``pyproject.toml``,
  ``ops/`` and ``libtl_runtime/``, and the files come from the checkout instead:
  ``build/runtime/libtl_runtime.so``, ``libtl_runtime/include``, ``ops/`` and ``build/ops.tlpkg``.

Each function returns a path (which need not exist) or None when this kind of install has none.
"""
from __future__ import annotations

import os

PKG_DIR = os.path.dirname(os.path.abspath(__file__))
VERSION = "0.1.0"   # the distribution's version (pyproject.toml); names the per-user ops package


def checkout_root() -> str | None:
    """The source checkout ``tl/`` lives in (editable/dev install), or None for an installed wheel."""
    root = os.path.dirname(PKG_DIR)
    marks = ("pyproject.toml", "ops", "libtl_runtime")
    return root if all(os.path.exists(os.path.join(root, m)) for m in marks) else None


def _inside(*parts: str) -> str | None:
    path = os.path.join(PKG_DIR, *parts)
    return path if os.path.exists(path) else None


def _in_checkout(*parts: str) -> str | None:
    root = checkout_root()
    return os.path.join(root, *parts) if root else None


def runtime_library() -> str:
    """libtl_runtime.so: ``$TL_RUNTIME_LIB``, else the wheel's ``tl/_lib``, else ``<checkout>/build/runtime``."""
    env = os.environ.get("TL_RUNTIME_LIB")
    if env:
        return env
    return (_inside("_lib", "libtl_runtime.so") or _in_checkout("build", "runtime", "libtl_runtime.so")
            or os.path.join(PKG_DIR, "_lib", "libtl_runtime.so"))


def include_dir() -> str:
    """The directory holding ``tl/runtime.h`` and ``tl/bundle_abi.h`` (``-I`` for C users and tlc)."""
    return (_inside("include") or _in_checkout("libtl_runtime", "include")
            or os.path.join(PKG_DIR, "include"))


def ops_source_dir() -> str:
    """The operator library's TL sources: the wheel's ``tl/_data/ops``, else ``<checkout>/ops``."""
    return _inside("_data", "ops") or _in_checkout("ops") or os.path.join(PKG_DIR, "_data", "ops")


def shipped_ops_package() -> str | None:
    """The operator package built into the wheel (``tl/_data/ops.tlpkg``), or None."""
    return _inside("_data", "ops.tlpkg")


def checkout_ops_package() -> str | None:
    """``<checkout>/build/ops.tlpkg`` (what ``make ops`` builds) in a source checkout, else None."""
    return _in_checkout("build", "ops.tlpkg")


def user_ops_package() -> str:
    """The per-user operator package ``<cache>/ops-<version>.tlpkg`` (``tlc build-ops`` writes it), in
    tlc's cache directory (``$TL_CACHE_DIR``, default ``~/.cache/tl-compiler``)."""
    from tlc.config import cache_dir
    return os.path.join(str(cache_dir()), f"ops-{VERSION}.tlpkg")
