"""Content-addressed build cache (root: tlc.config.cache_dir(), i.e. $TL_CACHE_DIR or ~/.cache/tl-compiler).

Keys are SHA-256 hex digests over everything that can change a build output:

object key  = TL source bytes + the tlc compiler's own sources (Python, templates, and the bundle
              ABI headers, so a compiler change invalidates) + the variant (every field of the
              backend's frozen variant dataclass) + the backend's toolchain (the C compiler's
              ``--version``) + the exact compile flags (which include the unit name) + options
              (the backend's name, ...).
bundle key  = the variant + the ordered (unit, object key) list + compiler version + link recipe.

Layout: ``<root>/v1/objects/<key[:2]>/<key>/`` holds ``<unit>.c``, ``<unit>.o``, ``<unit>.ir`` and
``meta.json`` (kernel signatures for the manifest and header); ``<root>/v1/bundles/<key[:2]>/<key>/``
holds ``bundle.so``. meta.json records the SHA-256 of every other file of the entry (key
``artifacts``); :meth:`Cache.lookup` verifies them and discards (and logs) an entry that does not
match, so a corrupted cache is rebuilt rather than packaged. Entries are built in a temporary sibling directory and published with one
``rename``, so readers never see a partial entry and concurrent builders are safe.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from tl._resources import include_dir

LAYOUT = "v1"
_TLC_ROOT = Path(__file__).resolve().parents[1]
_ABI_DIR = Path(include_dir()) / "tl"   # libtl_runtime/include/tl, or tl/include/tl in a wheel


@functools.lru_cache(maxsize=1)
def compiler_hash() -> str:
    """SHA-256 over the tlc package's sources (*.py, templates) and the bundle ABI headers."""
    h = hashlib.sha256()
    files = [(str(p.relative_to(_TLC_ROOT.parent)), p) for p in _TLC_ROOT.rglob("*")
             if p.is_file() and p.suffix in (".py", ".j2", ".h", ".c", ".json") and "__pycache__" not in p.parts]
    if _ABI_DIR.is_dir():   # named as in the checkout, so a wheel's tlc hashes (and hits) the same
        files += [(f"libtl_runtime/include/tl/{p.name}", p) for p in _ABI_DIR.glob("*.h")]
    for name, p in sorted(files, key=lambda f: Path(f[0])):   # Path order, as the keys always had
        h.update(name.encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()


def object_key(source: bytes, variant, unit: str, cc_version: str, flags: list[str],
               options: dict | None = None) -> str:
    """Key of one (TL file, variant) object. ``options``: anything else that changes the output.

    The ``-I`` of the bundle ABI headers is keyed by name, not by where they lie: their content is in
    compiler_hash, so checkouts in different places, the sdist's build directory of a wheel build and
    an installed wheel share cache entries."""
    include = f"-I{include_dir()}"
    flags = ["-I<tl-include>" if f == include else f for f in flags]
    return _digest({"layout": LAYOUT, "tl": hashlib.sha256(source).hexdigest(), "tlc": compiler_hash(),
                    "variant": asdict(variant), "unit": unit, "cc": cc_version, "flags": flags,
                    "options": options or {}})


def bundle_key(variant, units: list[tuple[str, str]], cc_version: str) -> str:
    """Key of one linked bundle from its ordered (unit, object key) pairs."""
    return _digest({"layout": LAYOUT, "tlc": compiler_hash(), "variant": asdict(variant),
                    "units": [list(u) for u in units], "cc": cc_version})


class Cache:
    """A cache rooted at ``root``. ``enabled=False`` never reports hits (entries are still written
    under ``root``, which the caller then points at a temporary directory)."""

    def __init__(self, root: Path, enabled: bool = True):
        self.root = Path(root)
        self.enabled = enabled

    def _dir(self, kind: str, key: str) -> Path:
        return self.root / LAYOUT / kind / key[:2] / key

    def lookup(self, kind: str, key: str) -> Path | None:
        """The entry directory for (kind, key) if complete and intact, else None. kind:
        "objects"|"bundles". An entry whose files do not match the SHA-256 recorded in its
        meta.json (or that records none) is removed, with one line on stderr."""
        d = self._dir(kind, key)
        if not self.enabled or not (d / "meta.json").is_file():
            return None
        problem = _verify(d)
        if problem is None:
            return d
        sys.stderr.write(f"tlc: cache entry {d} is corrupt ({problem}); discarding it and rebuilding\n")
        self._discard(d)
        return None

    @staticmethod
    def _discard(entry: Path) -> None:
        try:   # rename first, so no reader sees a half-deleted entry
            aside = Path(tempfile.mkdtemp(prefix=".discard-", dir=entry.parent))
            os.rename(entry, aside / "entry")
        except OSError:
            aside = entry
        shutil.rmtree(aside, ignore_errors=True)

    def staging(self, kind: str, key: str) -> Path:
        """A fresh private directory to build an entry in; publish it with :meth:`publish`."""
        parent = self._dir(kind, key).parent
        parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=parent))

    def publish(self, kind: str, key: str, staging: Path, meta: dict) -> Path:
        """Writes meta.json into ``staging`` and renames it to the entry; if another builder won
        the race, keeps theirs. Returns the entry directory."""
        meta = dict(meta, artifacts=_artifact_hashes(Path(staging)))
        (Path(staging) / "meta.json").write_text(json.dumps(meta, sort_keys=True, indent=1))
        final = self._dir(kind, key)
        try:
            os.rename(staging, final)
        except OSError:
            if not (final / "meta.json").is_file():
                shutil.rmtree(final, ignore_errors=True)
                os.rename(staging, final)
            else:
                shutil.rmtree(staging, ignore_errors=True)
        return final

    @staticmethod
    def meta(entry: Path) -> dict:
        """The metadata published with the entry (without the recorded artifact hashes)."""
        meta = json.loads((Path(entry) / "meta.json").read_text())
        meta.pop("artifacts", None)
        return meta


def _sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _artifact_hashes(entry: Path) -> dict:
    """{relative path: SHA-256 hex} of every file of an entry except meta.json."""
    return {p.relative_to(entry).as_posix(): _sha256_file(p) for p in sorted(entry.rglob("*"))
            if p.is_file() and p.name != "meta.json"}


def _verify(entry: Path) -> str | None:
    """None when every artifact of the entry matches its recorded SHA-256, else what is wrong."""
    try:
        recorded = json.loads((entry / "meta.json").read_text()).get("artifacts")
    except (OSError, ValueError, AttributeError) as e:
        return f"unreadable meta.json: {e}"
    if not isinstance(recorded, dict) or not recorded:
        return "no artifact hashes recorded"
    for name, digest in recorded.items():
        path = entry / name
        try:
            actual = _sha256_file(path)
        except OSError:
            return f"{name} is missing"
        if actual != digest:
            return f"{name} does not match its recorded SHA-256"
    return None
