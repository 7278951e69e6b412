"""tlc.package.format: write_package is deterministic and read_package enforces the same rules
as the runtime."""
from __future__ import annotations

import zipfile

import pytest

from tlc.package.format import (FORMAT_VERSION, MIN_RUNTIME_VERSION, PackageError, read_package, sha256_hex,
                                write_package)


def manifest(**extra):
    m = {"name": "t", "kernels": [],
         "bundles": [{"path": "bundles/a.so", "variant": "a", "arch": "x86_64", "features": [], "priority": 0}],
         "files": [{"path": "include/t.h"}]}
    m.update(extra)
    return m


PAYLOADS = {"bundles/a.so": b"\x7fELF" + bytes(range(256)) * 4, "include/t.h": b"/* t */\n"}


def test_roundtrip_and_determinism(tmp_path):
    a, b = tmp_path / "a.tlpkg", tmp_path / "b.tlpkg"
    written = write_package(a, manifest(), PAYLOADS)
    write_package(b, manifest(), dict(reversed(list(PAYLOADS.items()))))
    assert a.read_bytes() == b.read_bytes()
    m, payloads = read_package(a)
    assert m == written
    assert payloads == PAYLOADS
    assert m["format"] == "tlpkg" and tuple(m["format_version"]) == FORMAT_VERSION
    assert tuple(m["min_runtime_version"]) == MIN_RUNTIME_VERSION
    assert m["bundles"][0]["sha256"] == sha256_hex(PAYLOADS["bundles/a.so"])
    assert m["bundles"][0]["size"] == len(PAYLOADS["bundles/a.so"])
    with zipfile.ZipFile(a) as zf:
        infos = zf.infolist()
    assert infos[0].filename == "manifest.json"
    assert all(i.compress_type == zipfile.ZIP_STORED for i in infos)
    assert not list(tmp_path.glob(".tlpkg-*"))       # no temporary left behind


def test_write_errors(tmp_path):
    with pytest.raises(PackageError, match="no payload"):
        write_package(tmp_path / "x.tlpkg", manifest(), {"bundles/a.so": b"x"})
    with pytest.raises(PackageError, match="invalid payload name"):
        write_package(tmp_path / "x.tlpkg", manifest(), dict(PAYLOADS, **{"../x": b""}))


def test_read_errors(tmp_path):
    good = tmp_path / "g.tlpkg"
    write_package(good, manifest(), PAYLOADS)
    data = good.read_bytes()
    flipped = bytearray(data)
    at = data.find(PAYLOADS["bundles/a.so"]) + 100
    flipped[at] ^= 1
    bad = tmp_path / "f.tlpkg"
    bad.write_bytes(bytes(flipped))
    with pytest.raises(PackageError, match="sha256"):
        read_package(bad)
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(PackageError, match="not a valid"):
        read_package(bad)
    bad.write_bytes(b"")
    with pytest.raises(PackageError, match="empty"):
        read_package(bad)
    with pytest.raises(PackageError, match="directory"):
        read_package(tmp_path)
    with pytest.raises(PackageError, match="cannot open"):
        read_package(tmp_path / "missing.tlpkg")
    write_package(bad, manifest(format_version=[3, 1]), PAYLOADS)
    with pytest.raises(PackageError, match=r"3\.1.*1\.1"):
        read_package(bad)
    write_package(bad, manifest(min_runtime_version=[5, 0, 0]), PAYLOADS)
    with pytest.raises(PackageError, match=r"5\.0\.0.*0\.1\.0"):
        read_package(bad)
    with zipfile.ZipFile(good) as zf:
        entries = [(i.filename, zf.read(i)) for i in zf.infolist()]
    for extra, msg in [(("../evil", b""), "unsafe entry name"), (("/abs", b""), "unsafe entry name"),
                       (entries[1], "duplicate entry")]:
        with pytest.warns(UserWarning) if extra is entries[1] else _nullcontext():
            with zipfile.ZipFile(bad, "w") as zf:
                for name, d in entries + [extra]:
                    zf.writestr(name, d)
        with pytest.raises(PackageError, match=msg):
            read_package(bad)
    with zipfile.ZipFile(bad, "w") as zf:
        for name, d in entries[1:]:
            zf.writestr(name, d)
    with pytest.raises(PackageError, match="no manifest.json"):
        read_package(bad)
    with zipfile.ZipFile(bad, "w") as zf:
        zf.writestr("manifest.json", b"{nope")
    with pytest.raises(PackageError, match="not valid JSON"):
        read_package(bad)


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
