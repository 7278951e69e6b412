"""The emitter tests compile bundles with exactly the package build's compiler and flags
(tlc.backends.cpu.build: BASE_CFLAGS, one source of truth), -fno-strict-aliasing included."""
import subprocess
from pathlib import Path

import pytest

import harness
from harness import VARIANTS, compile_command
from tlc.backends.cpu import build


def _contains(seq, sub) -> bool:
    return any(seq[i:i + len(sub)] == sub for i in range(len(seq) - len(sub) + 1))


@pytest.mark.parametrize("isa", sorted(VARIANTS))
def test_harness_command_is_the_build_flags(isa):
    v = VARIANTS[isa]
    cmd = compile_command(Path("k.c"), Path("k.so"), v)
    assert cmd[0] == build.cc_for(v)
    assert _contains(cmd, build.cflags(v))                  # same flags, same order
    assert _contains(cmd, list(build.BASE_CFLAGS))
    assert "-fno-strict-aliasing" in cmd and "-ffp-contract=off" in cmd
    assert _contains(cmd, list(v.cflags))


def test_compile_bundle_runs_that_command(monkeypatch, tmp_path):
    from test_add import add_kernel
    seen = []

    def fake_run(cmd, **kw):
        seen.append(cmd)
        Path(cmd[cmd.index("-o") + 1]).write_bytes(b"")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(harness, "_CACHE", tmp_path)
    monkeypatch.setattr(harness.subprocess, "run", fake_run)
    so = harness.compile_bundle([add_kernel()], "avx2")
    (cmd,) = seen
    c = Path(cmd[cmd.index("-shared") + 1])
    assert cmd == compile_command(c, Path(str(so) + ".tmp"), VARIANTS["avx2"])
    assert "-fno-strict-aliasing" in cmd


def test_cache_key_follows_the_flags(monkeypatch, tmp_path):
    """A flag change must not reuse a .so built with the old flags (the cache is content-keyed)."""
    from test_add import add_kernel
    monkeypatch.setattr(harness, "_CACHE", tmp_path)
    monkeypatch.setattr(harness.subprocess, "run", lambda cmd, **kw: (
        Path(cmd[cmd.index("-o") + 1]).write_bytes(b""), subprocess.CompletedProcess(cmd, 0, "", ""))[1])
    a = harness.compile_bundle([add_kernel()], "avx2")
    monkeypatch.setattr(build, "BASE_CFLAGS", build.BASE_CFLAGS + ("-fwrapv",))
    b = harness.compile_bundle([add_kernel()], "avx2")
    assert a != b
