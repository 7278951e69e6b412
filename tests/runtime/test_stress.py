"""The C stress driver (programs/stress.c) on the fixture package: open/launch/close loops, an
allocator failing after N = 0, 1, 2, ... allocations (clean errors, nothing leaked), launches from
8 threads while packages open/close and set_num_threads runs, fork after the pool started.
Linked with the library under test ($TL_RUNTIME_LIB: the ASan+UBSan build under
`make test-sanitize`, which also runs it with LeakSanitizer); valgrind when installed."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rt_helpers import INCLUDE, SANITIZE, _ensure_runtime

PROGRAMS = Path(__file__).with_name("programs")
SAN_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]


@pytest.fixture(scope="module")
def stress_exe(tmp_path_factory):
    lib = Path(_ensure_runtime())
    exe = tmp_path_factory.mktemp("stress") / "stress"
    cmd = ["gcc", "-std=c11", "-D_GNU_SOURCE", "-O1", "-g", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
           str(PROGRAMS / "stress.c"), "-o", str(exe), f"-L{lib.parent}", f"-Wl,-rpath,{lib.parent}", "-ltl_runtime",
           "-pthread"]
    if SANITIZE:
        cmd[1:1] = SAN_FLAGS
    subprocess.run(cmd, check=True)
    return exe


@pytest.mark.parametrize("what", ["loops", "alloc", "threads", "fork", "release"])
def test_stress(stress_exe, package_path, what):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    env.pop("LD_PRELOAD", None)
    r = subprocess.run([str(stress_exe), str(package_path), what], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all passed" in r.stdout
    assert "ERROR: AddressSanitizer" not in r.stderr and "LeakSanitizer" not in r.stderr, r.stderr
    assert "runtime error" not in r.stderr, r.stderr


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="no valgrind")
def test_valgrind_loops(stress_exe, package_path):
    if SANITIZE:
        pytest.skip("valgrind does not run ASan binaries")
    r = subprocess.run(["valgrind", "-q", "--leak-check=full", "--errors-for-leak-kinds=definite,indirect",
                        "--error-exitcode=9", str(stress_exe), str(package_path), "loops"],
                       capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
