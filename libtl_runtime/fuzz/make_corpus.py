"""Writes the small seed corpus of the package-reader fuzzer (libtl_runtime/fuzz/corpus/):
deterministic .tlpkg-shaped zips (valid manifest with a tiny fake bundle, a lying manifest, an
unsafe name, a duplicate) and a few non-zips. Run from the repository root:
    PYTHONPATH=. python3 libtl_runtime/fuzz/make_corpus.py"""
import hashlib
import io
import json
import os
import platform
import zipfile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def zip_bytes(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as zf:
        for name, data in entries:
            zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def manifest(bundle, size=None, sha=None):
    return json.dumps({
        "format": "tlpkg", "format_version": [1, 0], "min_runtime_version": [0, 1, 0], "name": "seed",
        "kernels": [{"name": "k", "params": [{"name": "x", "kind": "tensor", "dtype": "float32", "rank": 1}]}],
        "bundles": [{"path": "bundles/b.so", "variant": "x86_64-baseline", "arch": platform.machine(),
                     "features": ["sse2"], "priority": 10, "size": len(bundle) if size is None else size,
                     "sha256": sha or hashlib.sha256(bundle).hexdigest()}],
        "files": [],
    }).encode()


def main():
    os.makedirs(OUT, exist_ok=True)
    bundle = b"\x7fELF\x02\x01\x01" + b"\0" * 57
    seeds = {
        "valid_shape.tlpkg": zip_bytes([("manifest.json", manifest(bundle)), ("bundles/b.so", bundle)]),
        "lying_size.tlpkg": zip_bytes([("manifest.json", manifest(bundle, size=3)), ("bundles/b.so", bundle)]),
        "lying_hash.tlpkg": zip_bytes([("manifest.json", manifest(bundle, sha="0" * 64)), ("bundles/b.so", bundle)]),
        "dotdot.tlpkg": zip_bytes([("manifest.json", manifest(bundle)), ("../b.so", bundle)]),
        "manifest_only.tlpkg": zip_bytes([("manifest.json", b'{"format": "tlpkg", "format_version": [1, 0]}')]),
        "not_zip.bin": b"PK\x03\x04" + b"\xff" * 60,
        "empty_zip.tlpkg": zip_bytes([]),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as fh:
            fh.write(data)


if __name__ == "__main__":
    main()
