"""A deterministic corpus of bad .tlpkg packages, built from one good fixture package.

``make_corpus(dir, good_bytes, bundle_bytes, extra_bundles)`` writes every case to ``dir`` and
returns ``[(file name, expected message substring or None), ...]`` (None: any clean refusal;
ANY: a refusal or, when the damage hit bytes the reader does not rely on (a zip timestamp, a local
header size the central directory overrides), a package that opens with every payload's SHA-256
verified).
Also runnable as a script in a subprocess for crash detection: ``python bad_packages.py DIR``
opens every file in DIR with tl._runtime and prints "<name>\\t<status>\\t<message>" per file.
"""
from __future__ import annotations

import hashlib
import io
import json
import random
import struct
import sys
import zipfile
from pathlib import Path


def _entries(good: bytes):
    with zipfile.ZipFile(io.BytesIO(good)) as zf:
        return [(i.filename, zf.read(i)) for i in zf.infolist()]


def _zip(entries) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in entries:
            zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def _with_manifest(entries, edit) -> bytes:
    out = []
    for name, data in entries:
        if name == "manifest.json":
            m = json.loads(data)
            edit(m)
            data = json.dumps(m).encode()
        out.append((name, data))
    return _zip(out)


def _replace_bundle(entries, new: bytes, **bundle_fields) -> bytes:
    """The package with bundles/base.so replaced by ``new``, the manifest's size/hash updated (so
    only the loader can refuse it)."""
    def edit(m):
        b = m["bundles"][0]
        b["size"], b["sha256"] = len(new), hashlib.sha256(new).hexdigest()
        b.update(bundle_fields)
    return _with_manifest([(n, new if n == "bundles/base.so" else d) for n, d in entries], edit)


def _patch_all(data: bytes, sig: bytes, offset: int, fmt: str, value) -> bytes:
    """Sets a field at ``offset`` of every zip record starting with ``sig``."""
    b = bytearray(data)
    at = b.find(sig)
    while at >= 0:
        struct.pack_into(fmt, b, at + offset, value)
        at = b.find(sig, at + 4)
    return bytes(b)


ANY = "<refused, or opened with verified payloads>"


def make_corpus(d: Path, good: bytes, bundle: bytes, extra_bundles: dict) -> list:
    d.mkdir(parents=True, exist_ok=True)
    cases = []

    def add(name, data, expect=None):
        (d / name).write_bytes(data)
        cases.append((name, expect))

    entries = _entries(good)
    for i, cut in enumerate(sorted({0, 1, 4, 22, 29, 30, 100, 512, 1000} | set(range(0, len(good), len(good) // 40))
                                   | {len(good) - k for k in (1, 2, 10, 21, 22, 23, 50, 100)})):
        if 0 < cut < len(good):
            add(f"truncated_{cut:06d}.tlpkg", good[:cut])
    rng = random.Random(1234)
    for i in range(60):
        b = bytearray(good)
        pos = rng.randrange(len(b))
        b[pos] ^= 1 << rng.randrange(8)
        add(f"flip_{i:02d}_at_{pos:06d}.tlpkg", bytes(b), ANY)
    add("wrong_magic.tlpkg", b"XK\x05\x06" + good[4:])
    add("empty.tlpkg", b"", "empty file")
    (d / "directory.tlpkg").mkdir(exist_ok=True)
    cases.append(("directory.tlpkg", "is a directory"))
    add("text.tlpkg", b"not a zip archive at all\n" * 20, "not a valid .tlpkg")
    # lengths that overflow: local/central sizes, name lengths, central directory offset and size
    add("local_size_ffffffff.tlpkg", _patch_all(good, b"PK\x03\x04", 22, "<I", 0xFFFFFFFF), ANY)
    add("local_csize_ffffffff.tlpkg", _patch_all(good, b"PK\x03\x04", 18, "<I", 0xFFFFFFFF), ANY)
    add("central_size_ffffffff.tlpkg", _patch_all(good, b"PK\x01\x02", 24, "<I", 0xFFFFFFFF), ANY)
    add("central_namelen_ffff.tlpkg", _patch_all(good, b"PK\x01\x02", 28, "<H", 0xFFFF))
    add("local_namelen_ffff.tlpkg", _patch_all(good, b"PK\x03\x04", 26, "<H", 0xFFFF))
    add("eocd_offset_ffffffff.tlpkg", _patch_all(good, b"PK\x05\x06", 16, "<I", 0xFFFFFFFF))
    add("eocd_cdsize_ffffffff.tlpkg", _patch_all(good, b"PK\x05\x06", 12, "<I", 0xFFFFFFFF))
    add("eocd_count_ffff.tlpkg", _patch_all(good, b"PK\x05\x06", 10, "<H", 0xFFFF))
    # names
    add("dotdot.tlpkg", _zip(entries + [("../evil.txt", b"x")]), "unsafe entry name '../evil.txt'")
    add("inner_dotdot.tlpkg", _zip(entries + [("include/../../evil", b"x")]), "unsafe entry name")
    add("absolute.tlpkg", _zip(entries + [("/etc/evil", b"x")]), "unsafe entry name '/etc/evil'")
    add("backslash.tlpkg", _zip(entries + [("..\\evil", b"x")]), "unsafe entry name")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        add("duplicate.tlpkg", _zip(entries + [entries[1]]), "duplicate entry")
        add("duplicate_manifest.tlpkg", _zip(entries + [entries[0]]), "duplicate entry 'manifest.json'")
    # manifests that lie
    add("lying_size.tlpkg", _with_manifest(entries, lambda m: m["bundles"][0].update(size=12)),
        "but the manifest says 12")
    add("lying_hash.tlpkg", _with_manifest(entries, lambda m: m["bundles"][0].update(sha256="ab" * 32)),
        "sha256 mismatch")
    add("lying_file_hash.tlpkg", _with_manifest(entries, lambda m: m["files"][0].update(sha256="00" * 32)),
        "sha256 mismatch")
    add("missing_payload.tlpkg", _with_manifest(entries, lambda m: m["bundles"][0].update(path="bundles/ghost.so")),
        "no such entry")
    add("size_not_int.tlpkg", _with_manifest(entries, lambda m: m["bundles"][0].update(size="big")),
        "integer 'size'")
    add("huge_size.tlpkg", _with_manifest(entries, lambda m: m["bundles"][0].update(size=2 ** 62)),
        "but the manifest says")
    add("negative_version.tlpkg", _with_manifest(entries, lambda m: m.update(format_version=[-1, 0])),
        "format_version")
    add("format_2.tlpkg", _with_manifest(entries, lambda m: m.update(format_version=[2, 0])), "format version 2.0")
    add("runtime_99.tlpkg", _with_manifest(entries, lambda m: m.update(min_runtime_version=[99, 0, 0])),
        "needs runtime version >= 99.0.0, this runtime is 0.1.0")
    add("manifest_array.tlpkg", _zip([("manifest.json", b"[1, 2]")] + entries[1:]), "not valid JSON")
    add("manifest_dupkey.tlpkg", _zip([("manifest.json", b'{"format": "tlpkg", "format": "x"}')] + entries[1:]),
        "not valid JSON")
    add("manifest_deep.tlpkg", _zip([("manifest.json", b"[" * 100000 + b"]" * 100000)] + entries[1:]),
        "not valid JSON")
    add("no_manifest.tlpkg", _zip(entries[1:]), "no manifest.json")
    # bundles the loader must refuse (hashes right, so only dlopen / the handshake can say no)
    add("bundle_not_elf.tlpkg", _replace_bundle(entries, b"\x7fELF garbage" * 10), "is a 32-bit ELF")
    add("bundle_text.tlpkg", _replace_bundle(entries, b"#!/bin/sh\nrm -rf /\n"), "is not an ELF shared object")
    elf = bytearray(bundle)
    struct.pack_into("<H", elf, 18, 183)  # e_machine = EM_AARCH64
    add("bundle_emachine_aarch64.tlpkg", _replace_bundle(entries, bytes(elf)),
        "is for machine aarch64 (ELF e_machine 183), this machine is x86_64")
    exe = bytearray(bundle)
    struct.pack_into("<H", exe, 16, 2)  # e_type = ET_EXEC
    add("bundle_exec.tlpkg", _replace_bundle(entries, bytes(exe)), "is not a shared object")
    ph = bytearray(bundle)
    struct.pack_into("<Q", ph, 32, 2 ** 63)  # e_phoff far outside
    add("bundle_phoff.tlpkg", _replace_bundle(entries, bytes(ph)), "program headers")
    for name, data in extra_bundles.items():
        expect = {"aarch64": "is for machine aarch64", "undefined": "tl_fixture_no_such_function",
                  "abi99": "bundle ABI version 99, this runtime needs 1"}[name]
        add(f"bundle_{name}.tlpkg", _replace_bundle(entries, data), expect)
    for frac in (2, 3, 5):   # truncated images: the loader would map past the end and fault (SIGBUS)
        add(f"bundle_truncated_{frac}.tlpkg", _replace_bundle(entries, bundle[: len(bundle) // frac]),
            "truncated or corrupt")
    return cases


def _main(d: str) -> int:
    import tl._runtime as R
    for p in sorted(Path(d).iterdir()):
        try:
            R.load(p).close()
            print(f"{p.name}\tOK\t", flush=True)
        except (R.TLError, FileNotFoundError) as e:
            print(f"{p.name}\t{getattr(e, 'status', '?')}\t{str(e)[:300]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
