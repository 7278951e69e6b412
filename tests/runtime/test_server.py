"""The example C++ server (examples/server/server.cpp): built like `make server` (C++17, flags from
the build tree's tl_runtime.pc, header from the package) and run briefly in both threading modes."""
from __future__ import annotations

import os
import subprocess
import zipfile

import pytest

from rt_helpers import REPO

OPS = REPO / "build" / "ops.tlpkg"


@pytest.mark.skipif(not OPS.exists(), reason="build/ops.tlpkg not built (make ops)")
def test_server_quick_run(tmp_path):
    with zipfile.ZipFile(OPS) as zf:
        header = zf.read("include/ops.h")
    if b"ops_kernels_resolve" not in header:
        pytest.skip("build/ops.tlpkg predates the kernels table in the generated header: make ops")
    (tmp_path / "ops.h").write_bytes(header)
    env = dict(os.environ, PKG_CONFIG_PATH=str(REPO / "build" / "runtime"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "tl_runtime"], check=True, capture_output=True,
                           text=True, env=env).stdout.split()
    exe = tmp_path / "server"
    subprocess.run(["g++", "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{tmp_path}",
                    str(REPO / "examples/server/server.cpp"), "-o", str(exe), *flags,
                    f"-Wl,-rpath,{REPO / 'build' / 'runtime'}", "-pthread"], check=True)
    r = subprocess.run([str(exe), str(OPS), "--requests", "200"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "mode=runtime" in r.stdout and "mode=host" in r.stdout and "p99" in r.stdout
    assert "all results match the reference" in r.stdout
    assert "host_pool_tasks=0" not in r.stdout      # the host's parallel_for really ran programs
