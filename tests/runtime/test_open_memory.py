"""Opening a package holds only what the runtime reads (the manifest and the bundles) in memory:
the other entries -- generated sources, IR, headers, most of a real package's bytes -- are hashed
as they stream past (libtl_runtime/src/package.c). A package with a 24 MiB source entry opens
with under 2 MiB allocated beyond its bundle, and a corrupted byte in that streamed entry is still
caught by its SHA-256."""
from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from rt_helpers import INCLUDE, SANITIZE, _ensure_runtime, bundle_entry, manifest_for

PROGRAMS = Path(__file__).with_name("programs")
BIG = 24 << 20


@pytest.fixture(scope="module")
def open_cost(tmp_path_factory):
    lib = Path(_ensure_runtime())
    exe = tmp_path_factory.mktemp("open") / "open_cost"
    # under make test-sanitize the runtime is the ASan build: the driver is built with ASan too
    san = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"] if SANITIZE else []
    subprocess.run(["gcc", *san, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                    str(PROGRAMS / "open_cost.c"), "-o", str(exe), f"-L{lib.parent}", f"-Wl,-rpath,{lib.parent}",
                    "-ltl_runtime"], check=True)
    return exe


@pytest.fixture(scope="module")
def big_package(tmp_path_factory, bundle_bytes):
    from tlc.package.format import write_package
    path = tmp_path_factory.mktemp("bigpkg") / "big.tlpkg"
    junk = os.urandom(BIG)                       # incompressible: the archive really is this large
    write_package(path, manifest_for([bundle_entry("base")], files=[{"path": "src/big.c"}]),
                  {"bundles/base.so": bundle_bytes, "src/big.c": junk})
    return path, len(bundle_bytes)


def _run(exe, path, n=3):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    env.pop("LD_PRELOAD", None)                  # linked with ASan itself under make test-sanitize
    return subprocess.run([str(exe), str(path), str(n)], capture_output=True, text=True, timeout=120, env=env)


def test_streamed_entries_are_not_held(open_cost, big_package):
    path, bundle = big_package
    r = _run(open_cost, path)
    assert r.returncode == 0, r.stdout + r.stderr
    got = dict(kv.split("=") for kv in r.stdout.split())
    per_open, peak = int(got["bytes_per_open"]), int(got["peak_live"])
    assert per_open < bundle * 3 + (2 << 20), (per_open, bundle)   # was > BIG: every entry read into memory
    assert peak < bundle * 3 + (2 << 20), (peak, bundle)


def test_a_corrupt_streamed_entry_is_still_refused(open_cost, big_package, tmp_path):
    path, _ = big_package
    bad = tmp_path / "bad.tlpkg"
    with zipfile.ZipFile(path) as zin, zipfile.ZipFile(bad, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "src/big.c":
                data = data[:BIG // 2] + bytes([data[BIG // 2] ^ 1]) + data[BIG // 2 + 1:]
            zout.writestr(info, data)
    r = _run(open_cost, bad, 1)
    assert r.returncode == 1 and "entry 'src/big.c' is corrupt: sha256 mismatch" in r.stdout, r.stdout + r.stderr
