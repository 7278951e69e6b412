"""A corrupted build cache is detected (SHA-256 of every artifact recorded in meta.json), discarded
with one log line, and rebuilt: the package built from it loads and computes."""
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tlc.cli import cli
from tlc.package import cache

RUNTIME = Path(__file__).resolve().parents[2] / "build" / "runtime" / "libtl_runtime.so"


def test_lookup_discards_an_entry_whose_artifact_changed(tmp_path, capsys):
    c = cache.Cache(tmp_path)
    s = c.staging("objects", "cd" * 32)
    (s / "u.o").write_bytes(b"\x7fELF object bytes")
    e = c.publish("objects", "cd" * 32, s, {"n": 1})
    assert c.lookup("objects", "cd" * 32) == e and c.meta(e) == {"n": 1}
    data = bytearray((e / "u.o").read_bytes())
    data[5] ^= 0xFF
    (e / "u.o").write_bytes(bytes(data))
    assert c.lookup("objects", "cd" * 32) is None
    assert not e.exists()
    err = capsys.readouterr().err
    assert "cache entry" in err and "u.o does not match its recorded SHA-256" in err and "rebuilding" in err


def test_lookup_discards_an_entry_without_hashes(tmp_path):
    c = cache.Cache(tmp_path)
    d = c._dir("bundles", "ef" * 32)
    d.mkdir(parents=True)
    (d / "bundle.so").write_bytes(b"junk")
    (d / "meta.json").write_text('{"variant": "x"}')      # an entry from before hashes were recorded
    assert c.lookup("bundles", "ef" * 32) is None and not d.exists()


@pytest.mark.skipif(not RUNTIME.exists(), reason="run `make -C libtl_runtime` first")
def test_corrupted_cached_bundle_is_rebuilt(kernel_dir, tmp_path, stub_driver, cache_dir, capsys):
    out = tmp_path / "ops.tlpkg"
    args = ["build", str(kernel_dir), "-t", "x86_64-baseline", "-o", str(out)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    bundles = list((cache_dir / "v1" / "bundles").rglob("bundle.so"))
    objects = list((cache_dir / "v1" / "objects").rglob("*.o"))
    assert bundles and objects
    for f in bundles + objects:                             # flip bytes in the middle of each artifact
        data = bytearray(f.read_bytes())
        for i in range(len(data) // 3, len(data) // 3 + 64):
            data[i] ^= 0x5A
        f.write_bytes(bytes(data))
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert "is corrupt" in capsys.readouterr().err + r.output
    import tl
    pkg = tl.load(out)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    o = np.zeros_like(x)
    pkg.add(x, x, o)
    np.testing.assert_array_equal(o, 2 * x)
    pkg.close()
