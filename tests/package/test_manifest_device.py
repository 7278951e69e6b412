"""Package format 1.1: every bundle the compiler writes names its device and payload format (the
backend's), a 1.0 entry without them reads as the CPU's, and the runtime opens what we write."""
from __future__ import annotations

import numpy as np
import pytest

from pkg_helpers import ADD_SRC
from tlc.errors import PackageError
from tlc.package.format import FORMAT_VERSION, bundle_device, check_manifest, read_package
from tlc.package.pack import build_package


def test_format_version_is_1_1():
    assert FORMAT_VERSION == (1, 1)


def test_cpu_bundles_record_device_and_format(tmp_path, cache_dir):
    src = tmp_path / "add.py"
    src.write_text(ADD_SRC.format(name="add"))
    out = tmp_path / "p.tlpkg"
    manifest = build_package([str(src)], "x86_64-baseline", out, jobs=1, progress=False)
    m, _ = read_package(out)
    assert m["format_version"] == [1, 1]
    (b,) = m["bundles"]
    assert b["device"] == "cpu" and b["format"] == "elf-shared-object" and b["path"] == "bundles/x86_64-baseline.so"
    assert b["arch"] == "x86_64" and b["features"] == ["sse2"] and b["priority"] == 10
    assert bundle_device(b) == ("cpu", "elf-shared-object") and manifest["bundles"] == m["bundles"]
    import tl
    pkg = tl.load(str(out))
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    o = np.empty_like(x)
    pkg.add(x, x, o)
    assert (o == 2 * x).all()


def test_a_1_0_bundle_entry_reads_as_cpu_and_fields_must_be_strings():
    assert bundle_device({"variant": "v", "arch": "x86_64"}) == ("cpu", "elf-shared-object")
    assert bundle_device({"device": "toy", "format": "toy-text"}) == ("toy", "toy-text")
    base = {"format": "tlpkg", "format_version": [1, 0], "bundles": [{"variant": "v", "arch": "x86_64"}]}
    check_manifest(base)
    for field in ("device", "format"):
        bad = {**base, "format_version": [1, 1], "bundles": [{"variant": "v", "arch": "x86_64", field: 3}]}
        with pytest.raises(PackageError, match=f"'{field}' must be a string"):
            check_manifest(bad)
