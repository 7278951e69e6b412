"""Finding and loading the operator package (.tlpkg) of ``tl.ops`` (``package()``, ``package_path()``,
``use_package()``). Which one it loads: The first of these that applies wins:

1. ``tl.ops.use_package(path)``: an explicit path (must exist).
2. ``$TL_OPS_PACKAGE``: a path (must exist; a set variable is never skipped).
3. In a source checkout (the editable install of ``make run``/``make test``), the checkout's
   ``build/ops.tlpkg`` (``make ops`` builds it) and nothing else: a contributor's tests run the
   operators of the tree they edit, never a copy from elsewhere.
4. Otherwise (an installed wheel), the per-user package ``~/.cache/tl-compiler/ops-<version>.tlpkg``
   (under ``$TL_CACHE_DIR`` when set), which ``tlc build-ops`` writes (e.g. for more targets),
5. then the package shipped inside the wheel, ``tl/_data/ops.tlpkg``.

A wheel is never pointed at a source tree: only step 3 looks outside the installed ``tl``
package, and only when ``tl`` itself lives in a checkout (``tl._resources.checkout_root``).
When nothing is found, :func:`locate` raises ``FileNotFoundError`` naming every place it looked
and how to build the package.
"""
from __future__ import annotations

import os
import threading

from tl import _resources
from tl._runtime import load as _load

_PKG = None                     # the loaded package (or the interpreter stand-in); tests may set it
_EXPLICIT: str | None = None    # use_package()'s path
_LOCK = threading.Lock()
# elementwise fast paths: kernel base name -> {dtype: compiled kernel, or None (no fast path)}
_EW_CACHES: dict = {}


def candidates(explicit: str | None = None) -> list[tuple[str, str]]:
    """``(where, path)`` in lookup order; a step that names a path ends the list (it must exist)."""
    if explicit:
        return [("tl.ops.use_package()", explicit)]
    env = os.environ.get("TL_OPS_PACKAGE")
    if env:
        return [("$TL_OPS_PACKAGE", env)]
    checkout = _resources.checkout_ops_package()
    if checkout:
        return [("the source checkout's build/ops.tlpkg", checkout)]
    found = [("the per-user package", _resources.user_ops_package())]
    shipped = _resources.shipped_ops_package()
    found.append(("the package shipped in the wheel", shipped or os.path.join(_resources.PKG_DIR, "_data",
                                                                               "ops.tlpkg")))
    return found


def locate(explicit: str | None = None) -> str:
    """The operator package path ``tl.ops`` loads (see the module docstring for the order).

    Raises FileNotFoundError listing each place looked at, with the command that builds it."""
    looked = candidates(explicit)
    for _, path in looked:
        if os.path.isfile(path):
            return path
    where = "; ".join(f"{name}: {path}" for name, path in looked)
    if _resources.checkout_root() and not explicit and not os.environ.get("TL_OPS_PACKAGE"):
        how = "run `make ops` in the checkout (or `tlc build ops/ -t host -o build/ops.tlpkg`)"
    else:
        how = (f"run `tlc build-ops` (builds the operator sources into {_resources.user_ops_package()}), "
               f"or point TL_OPS_PACKAGE / tl.ops.use_package() at an existing .tlpkg")
    raise FileNotFoundError(f"tl.ops: no operator package found (looked at {where}); {how}")


def package():
    """The loaded operator package (or the interpreter stand-in with TL_OPS_BACKEND=interp)."""
    global _PKG
    if _PKG is None:
        with _LOCK:
            if _PKG is None:
                if os.environ.get("TL_OPS_BACKEND", "").lower() == "interp":
                    from tl.ops._interp import InterpPackage
                    _PKG = InterpPackage()
                else:
                    _PKG = _load(package_path())
    return _PKG


def package_path() -> str:
    """The path of the operator package ``tl.ops`` loads (or would load): ``use_package``'s path,
    ``$TL_OPS_PACKAGE``, a checkout's ``build/ops.tlpkg``, the per-user package, the wheel's copy.
    Raises FileNotFoundError naming each place looked at when none exists."""
    return locate(_EXPLICIT)


def use_package(path) -> None:
    """Makes ``tl.ops`` load the operator package at ``path`` (str or os.PathLike) from its next call
    on, ahead of ``$TL_OPS_PACKAGE`` and the defaults; ``use_package(None)`` goes back to them.
    Raises FileNotFoundError when ``path`` is not a file, TypeError when it is not a path."""
    global _EXPLICIT
    if path is not None:
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"tl.ops.use_package: argument 'path' must be a str or os.PathLike, "
                            f"got {type(path).__name__}")
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"tl.ops.use_package: argument 'path': no file {path}")
    with _LOCK:
        _EXPLICIT = path
    _reset_package()


def _reset_package() -> None:
    """Forgets the loaded package (tests switch TL_OPS_PACKAGE / TL_OPS_BACKEND)."""
    global _PKG
    _PKG = None
    for cache in _EW_CACHES.values():
        cache.clear()

