"""The tlc command line through click's CliRunner (plus one real `python -m tlc` run)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tlc.cli import cli
from tlc.errors import TLCompileError

REPO = Path(__file__).resolve().parents[2]


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.mark.parametrize("cmd", [[], ["build"], ["compile"], ["inspect"], ["targets"]])
def test_help_has_example(cmd):
    r = run(*cmd, "--help")
    assert r.exit_code == 0 and "Example" in r.output


def test_targets():
    r = run("targets")
    assert r.exit_code == 0 and "x86_64-avx512" in r.output and "native" in r.output
    data = json.loads(run("targets", "--json").output)
    variants = {v["name"]: v for t in data["targets"] for v in t["variants"]}
    assert set(variants) >= {"x86_64-avx512", "x86_64-avx2", "x86_64-baseline"}
    if data["host"]["arch"] == "x86_64":
        assert variants["x86_64-baseline"]["runs_here"] is True
        assert "sse2" in data["host"]["features"]


def test_targets_agree_with_the_runtime():
    """`tlc targets` calls a variant native exactly when the runtime's CPUID check (the one that
    picks a package's bundle) finds all of its features: py-cpuinfo's avx512_bf16 is avx512bf16."""
    from tl import _runtime
    from tlc.cli import cpu_features, run_status
    from tlc.backends.cpu.targets import TARGETS
    have, flags = set(_runtime.cpu_features()), cpu_features()
    for v in TARGETS["x86_64"].variants:
        status, detail = run_status(v, "x86_64", flags)
        assert (status == "native") == (set(v.features) <= have), (v.name, status, detail)


def test_build_and_inspect(kernel_dir, tmp_path, stub_driver):
    out = tmp_path / "ops.tlpkg"
    r = run("build", kernel_dir, "-t", "host", "-o", out, "-j", "1", "--depfile", tmp_path / "ops.d")
    assert r.exit_code == 0, r.output
    assert "3 kernels from 2 files, 4 bundles" in r.output and (tmp_path / "ops.d").exists()
    r = run("inspect", out)
    assert r.exit_code == 0 and "add(x: tensor<float32, 2> read" in r.output and "verified" in r.output
    data = json.loads(run("inspect", out, "--json").output)
    assert data["verified"] is True and len(data["bundles"]) == 4
    assert [k["name"] for k in data["kernels"]] == ["add", "add2", "add3"]
    r = run("build", kernel_dir, "-t", "host", "-o", out)
    assert r.exit_code == 0 and "0/8 objects compiled" in r.output


def test_user_errors_exit_1_without_traceback(kernel_dir, tmp_path, stub_driver, monkeypatch):
    r = run("build", kernel_dir, "-t", "sparc", "-o", tmp_path / "a.tlpkg")
    assert r.exit_code == 1 and "unknown target 'sparc'" in r.output and "Traceback" not in r.output
    bad = tmp_path / "bad.tlpkg"
    bad.write_bytes(b"not a zip")
    r = run("inspect", bad)
    assert r.exit_code == 1 and "not a valid .tlpkg" in r.output
    r = run("compile", kernel_dir / "add.py", "-t", "sparc")
    assert r.exit_code == 1 and "unknown target" in r.output

    from tlc import driver

    def boom(*a, **k):
        raise TLCompileError("add.py:3:5: error: unsupported construct")
    monkeypatch.setattr(driver, "compile_unit", boom)
    r = run("build", kernel_dir, "-o", tmp_path / "b.tlpkg", "-j", "1")
    assert r.exit_code == 1 and "add.py:3:5: error: unsupported construct" in r.output
    assert "Traceback" not in r.output


def test_compile_emit_c_and_asm_with_stub(kernel_dir, monkeypatch):
    from pkg_helpers import stub_compile_unit
    from tlc import driver
    monkeypatch.setattr(driver, "parse", lambda path: path)
    monkeypatch.setattr(driver, "select_kernels", lambda m, names: m)
    monkeypatch.setattr(driver, "run_pipeline", lambda m, v, p=False, passes=None: m)
    monkeypatch.setattr(driver, "emit", lambda m, v: stub_compile_unit(m, v).c_source)
    monkeypatch.setattr(driver, "lint", lambda m, display_file=None, variant=None: [])
    r = run("compile", kernel_dir / "add.py", "--emit", "c", "-t", "x86_64-avx2")
    assert r.exit_code == 0 and "tl_bundle_query" in r.output and '"x86_64-avx2"' in r.output
    r = run("compile", kernel_dir / "add.py", "--emit", "asm", "-t", "host")
    assert r.exit_code == 0 and "tl_bundle_query:" in r.output


def test_python_dash_m_tlc():
    env = dict(os.environ, PYTHONPATH=str(REPO))
    r = subprocess.run([sys.executable, "-m", "tlc", "targets", "--json"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and json.loads(r.stdout)["targets"]


@pytest.mark.parametrize("text,expect", [
    ("import tl\nx = 1 +\n", ["bad.py:2:8: error: syntax error", "    x = 1 +\n           ^"]),
    ("import tl\nx = 1\n", ["no @tl.kernel functions in"]),
])
def test_build_file_without_kernels(tmp_path, text, expect):
    """A named file without kernels: its syntax error first (file:line:col and a caret), else
    'no @tl.kernel functions'; exit status 1 and no package written."""
    (tmp_path / "bad.py").write_text(text)
    r = run("build", tmp_path / "bad.py", "-o", tmp_path / "x.tlpkg")
    assert r.exit_code == 1 and all(e in r.output for e in expect), r.output
    assert not (tmp_path / "x.tlpkg").exists()
