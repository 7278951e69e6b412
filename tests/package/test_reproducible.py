"""A package is reproducible byte for byte and carries no build-machine path: the same TL sources
copied into two different directories, built there (the real compiler, separate caches, the CLI
run from each copy) give identical .tlpkg files, whose manifest and bundle descriptors name the
sources relative to the build root."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tlc.backends import resolve

REPO = Path(__file__).resolve().parents[2]
SRC = '''"""A two-kernel file for the reproducibility test."""
import tl


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[0], 64),))
def scale(x: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 1), s: tl.float32, B: tl.constexpr = 64):
    """out = x * s; x, out: (N,) float32."""
    i = tl.program_id(0) * B
    tl.store(out + (i,), tl.load(x + (i,), (B,)) * s)


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[0], 64),))
def shift(x: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 1), B: tl.constexpr = 64):
    i = tl.program_id(0) * B
    tl.store(out + (i,), tl.load(x + (i,), (B,)) + 1.0)
'''


def _tree(root: Path) -> Path:
    src = root / "kern"
    (src / "sub").mkdir(parents=True)
    (src / "a.py").write_text(SRC)
    (src / "sub" / "b.py").write_text(SRC.replace("def scale", "def scale_b").replace("def shift", "def shift_b"))
    return src


def _build(root: Path, src_arg: str, target: str) -> Path:
    env = dict(os.environ, TL_CACHE_DIR=str(root / "cache"), PYTHONPATH=str(REPO))
    out = root / "out" / "k.tlpkg"
    r = subprocess.run([sys.executable, "-m", "tlc", "build", src_arg, "-t", target, "-o", str(out), "-j", "1"],
                       cwd=root, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return out


@pytest.mark.parametrize("how", ["relative", "absolute"])
def test_same_sources_in_two_directories_give_identical_packages(tmp_path, how):
    target = resolve("host")[-1].name       # one variant (the baseline) keeps the test fast
    outs = []
    for d in ("first_checkout", "elsewhere/second"):
        root = tmp_path / d
        src = _tree(root)
        outs.append(_build(root, "kern" if how == "relative" else str(src), target))
    one, two = (p.read_bytes() for p in outs)
    assert one == two
    with zipfile.ZipFile(outs[0]) as zf:
        blobs = {n: zf.read(n) for n in zf.namelist()}
    for name, data in blobs.items():           # no build-machine path anywhere, not even in the .so
        assert str(tmp_path).encode() not in data, name
        assert b"first_checkout" not in data, name
    manifest = json.loads(blobs["manifest.json"])
    assert [(k["name"], k["source"]) for k in manifest["kernels"]] == [
        ("scale", "kern/a.py:6"), ("shift", "kern/a.py:13"), ("scale_b", "kern/sub/b.py:6"), ("shift_b", "kern/sub/b.py:13")]
    assert manifest["kernels"][0]["doc"] == "out = x * s; x, out: (N,) float32." and manifest["kernels"][1]["doc"] == ""


def test_descriptor_source_is_relative(tmp_path):
    """The runtime's view: tl_kernel_desc(k)->source of the loaded package."""
    import tl._runtime as R
    root = tmp_path / "build_here"
    _tree(root)
    out = _build(root, "kern", resolve("host")[-1].name)
    pkg = R.load(out)
    try:
        assert pkg.kernel("scale").source == "kern/a.py:6"
        assert pkg.kernel("shift_b").source == "kern/sub/b.py:13"
    finally:
        pkg.close()


def test_display_paths_carry_no_build_machine_layout(tmp_path, monkeypatch):
    from tlc.package.pack import discover
    src = _tree(tmp_path / "x" / "y")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert [u.display for u in discover([str(src)])] == ["kern/a.py", "kern/sub/b.py"]
    assert [u.display for u in discover([os.path.relpath(src / "a.py")])] == ["a.py"]     # ../x/y/kern/a.py
    assert [u.display for u in discover([str(src / "sub" / "b.py")])] == ["b.py"]
    monkeypatch.chdir(src.parent)
    assert [u.display for u in discover(["kern/sub/b.py"])] == ["kern/sub/b.py"]
