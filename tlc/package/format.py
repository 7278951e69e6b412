"""The .tlpkg container (format 1.1, see docs/design.md): write and verify packages.

``write_package`` fills each ``bundles``/``files`` entry's ``size`` and ``sha256`` from the payloads
and writes a ZIP (stored, manifest first, fixed timestamps, sorted entries) atomically, so equal
input gives a byte-identical file. ``read_package`` checks the same rules as libtl_runtime's
``tl_package_open`` and raises :class:`PackageError` naming the file and the cause.
"""
from __future__ import annotations

import copy
import hashlib
import json
import os
import stat
import tempfile
import zipfile

from tlc.errors import PackageError

FORMAT_NAME = "tlpkg"
FORMAT_VERSION = (1, 1)      # 1.1: bundles name their "device" and payload "format" (optional: 1.0 had neither)
DEFAULT_DEVICE = "cpu"
DEFAULT_PAYLOAD_FORMAT = "elf-shared-object"
MIN_RUNTIME_VERSION = (0, 1, 0)
MANIFEST_NAME = "manifest.json"
MAX_ENTRY_BYTES = 1 << 30
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "MIN_RUNTIME_VERSION", "MANIFEST_NAME", "MAX_ENTRY_BYTES",
           "PackageError", "write_package", "read_package", "check_entry_name", "sha256_hex", "bundle_device"]


def bundle_device(bundle: dict) -> tuple[str, str]:
    """(device, payload format) of a manifest bundle entry; a format 1.0 entry, which has neither,
    is ("cpu", "elf-shared-object"), as libtl_runtime reads it."""
    return bundle.get("device", DEFAULT_DEVICE), bundle.get("format", DEFAULT_PAYLOAD_FORMAT)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_entry_name(name: str) -> bool:
    """True for a safe archive entry name: relative, '/'-separated, no '.', '..' or empty parts."""
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        return False
    if len(name) >= 2 and name[1] == ":":
        return False
    parts = name.rstrip("/").split("/") if name.endswith("/") else name.split("/")
    return all(p not in ("", ".", "..") for p in parts)


def _listed(manifest: dict):
    for key in ("bundles", "files"):
        items = manifest.get(key, [])
        if not isinstance(items, list):
            raise PackageError(f"manifest {key!r} must be a list")
        for item in items:
            if not isinstance(item, dict) or not isinstance(item.get("path"), str):
                raise PackageError(f"manifest {key!r} entries need a string 'path'")
            yield key, item


def write_package(path, manifest: dict, payloads: dict) -> dict:
    """Writes ``payloads`` (entry name -> bytes) and the manifest to ``path``.

    Fills ``size``/``sha256`` of every ``bundles``/``files`` entry and the format fields when absent;
    returns the manifest as written. Raises PackageError for unsafe names or unlisted payloads missing.
    """
    path = os.fspath(path)
    manifest = copy.deepcopy(manifest)
    manifest.setdefault("format", FORMAT_NAME)
    manifest.setdefault("format_version", list(FORMAT_VERSION))
    manifest.setdefault("min_runtime_version", list(MIN_RUNTIME_VERSION))
    payloads = {str(k): bytes(v) for k, v in payloads.items()}
    for name, data in payloads.items():
        if name == MANIFEST_NAME or not check_entry_name(name):
            raise PackageError(f"{path}: invalid payload name {name!r}")
        if len(data) > MAX_ENTRY_BYTES:
            raise PackageError(f"{path}: payload {name!r} is larger than {MAX_ENTRY_BYTES} bytes")
    for key, item in _listed(manifest):
        data = payloads.get(item["path"])
        if data is None:
            raise PackageError(f"{path}: manifest {key} lists {item['path']!r} but no payload was given")
        item["size"] = len(data)
        item["sha256"] = sha256_hex(data)
    text = json.dumps(manifest, indent=2, sort_keys=True).encode("utf-8") + b"\n"

    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tlpkg-", suffix=".tmp", dir=directory)
    except OSError as e:
        raise PackageError(f"{path}: cannot write the package there: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as fh, zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED) as zf:
            for name, data in [(MANIFEST_NAME, text)] + sorted(payloads.items()):
                info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
                info.compress_type = zipfile.ZIP_STORED
                info.create_system = 3
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                zf.writestr(info, data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return manifest


def _version(value, n, what, path):
    if (not isinstance(value, list) or not 2 <= len(value) <= n
            or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value)):
        raise PackageError(f"{path}: manifest {what!r} must be a list of {n} non-negative integers")
    return tuple(value) + (0,) * (n - len(value))


def check_manifest(manifest, path="<package>", runtime_version=MIN_RUNTIME_VERSION):
    """Checks format, versions and list shapes of a manifest (not the payload hashes)."""
    if not isinstance(manifest, dict):
        raise PackageError(f"{path}: manifest.json must hold a JSON object")
    if manifest.get("format") != FORMAT_NAME:
        raise PackageError(f"{path}: manifest 'format' must be {FORMAT_NAME!r}, got {manifest.get('format')!r}")
    fv = _version(manifest.get("format_version"), 2, "format_version", path)
    if fv[0] != FORMAT_VERSION[0]:
        raise PackageError(f"{path}: package format version {fv[0]}.{fv[1]} is not supported "
                           f"(this reader supports format {FORMAT_VERSION[0]}.{FORMAT_VERSION[1]})")
    if "min_runtime_version" in manifest:
        rv = _version(manifest["min_runtime_version"], 3, "min_runtime_version", path)
        if rv > tuple(runtime_version):
            raise PackageError(f"{path}: package needs runtime version >= {'.'.join(map(str, rv))}, "
                               f"this reader is {'.'.join(map(str, runtime_version))}")
    bundles = manifest.get("bundles")
    if not isinstance(bundles, list) or not bundles:
        raise PackageError(f"{path}: manifest 'bundles' must be a non-empty list")
    for b in bundles:
        if not isinstance(b, dict) or not isinstance(b.get("variant"), str) or not isinstance(b.get("arch"), str):
            raise PackageError(f"{path}: manifest bundles need string 'variant' and 'arch'")
        # format 1.1: the bundle's device and payload format, and a CUDA bundle's GPU target
        # ("sm_90a", "sm_80", "compute_80"; docs/design.md, "CUDA bundles")
        for key in ("device", "format", "sm"):
            if key in b and not isinstance(b[key], str):
                raise PackageError(f"{path}: manifest bundle {b['variant']!r}: {key!r} must be a string")
    if not isinstance(manifest.get("kernels", []), list):
        raise PackageError(f"{path}: manifest 'kernels' must be a list")


def read_package(path):
    """Reads and verifies a .tlpkg; returns ``(manifest, payloads)`` (payloads excludes the manifest)."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
    except OSError as e:
        raise PackageError(f"{path}: cannot open package: {e.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise PackageError(f"{path}: is a directory, not a .tlpkg file")
    if not stat.S_ISREG(st.st_mode):
        raise PackageError(f"{path}: not a regular file")
    if st.st_size == 0:
        raise PackageError(f"{path}: empty file, not a .tlpkg archive")
    entries = {}
    try:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                name = info.filename
                if not check_entry_name(name):
                    raise PackageError(f"{path}: unsafe entry name {name!r} (absolute or containing '..')")
                if info.is_dir():
                    continue
                if name in entries:
                    raise PackageError(f"{path}: duplicate entry {name!r}")
                if info.file_size > MAX_ENTRY_BYTES:
                    raise PackageError(f"{path}: entry {name!r} is too large ({info.file_size} bytes)")
                try:
                    entries[name] = zf.read(info)
                except zipfile.BadZipFile as e:
                    # a CRC error: report it as the hash mismatch it also is, if the manifest lists it
                    entries[name] = None
                    entries.setdefault("\0crc", []).append((name, str(e)))
    except zipfile.BadZipFile as e:
        raise PackageError(f"{path}: not a valid .tlpkg (zip) archive: {e}") from None
    except OSError as e:
        raise PackageError(f"{path}: cannot read package: {e}") from None
    crc_errors = entries.pop("\0crc", [])
    raw = entries.pop(MANIFEST_NAME, None)
    if any(n == MANIFEST_NAME for n, _ in crc_errors):
        raise PackageError(f"{path}: manifest.json is corrupt (CRC mismatch)")
    if raw is None:
        raise PackageError(f"{path}: no manifest.json in the archive")
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise PackageError(f"{path}: manifest.json is not valid JSON: {e}") from None
    check_manifest(manifest, path)
    for key, item in _listed(manifest):
        name = item["path"]
        if name not in entries:
            raise PackageError(f"{path}: manifest lists {name!r} but the archive has no such entry")
        data = entries[name]
        if data is None:
            raise PackageError(f"{path}: entry {name!r} is corrupt: sha256 mismatch (zip CRC check failed)")
        if item.get("size") != len(data):
            raise PackageError(f"{path}: entry {name!r} has {len(data)} bytes but the manifest says {item.get('size')}")
        actual = sha256_hex(data)
        if not isinstance(item.get("sha256"), str) or item["sha256"].lower() != actual:
            raise PackageError(f"{path}: entry {name!r} is corrupt: sha256 mismatch "
                               f"(manifest {item.get('sha256')}, actual {actual})")
    if crc_errors:
        name, msg = crc_errors[0]
        raise PackageError(f"{path}: entry {name!r} is corrupt: {msg}")
    return manifest, entries
