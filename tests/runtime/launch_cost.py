"""Instructions per tl_kernel_launch, counted by valgrind's callgrind on programs/launch_cost.c.

    python tests/runtime/launch_cost.py [RUNTIME_DIR ...]

For each directory holding a libtl_runtime.so (default: the tree's build/runtime), builds the
fixture package and the driver against it and prints "<dir>: <N> instructions per launch": the
instructions executed inside tl_kernel_launch (callgrind --toggle-collect, the kernel's entry
included) divided by the number of calls. The count is deterministic, so two runtimes (before and
after a change to the launch path) compare exactly.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

CALLS = 20000


def build_driver(libdir: Path, out: Path) -> Path:
    """Compiles programs/launch_cost.c against the runtime in libdir (rpath set)."""
    from rt_helpers import INCLUDE
    cmd = ["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}", str(HERE / "programs" / "launch_cost.c"),
           "-o", str(out), f"-L{libdir}", f"-Wl,-rpath,{libdir}", "-ltl_runtime"]
    subprocess.run(cmd, check=True)
    return out


def fixture_package(d: Path) -> Path:
    """The fixture package of the runtime tests, written under d."""
    from rt_helpers import build_bundle, bundle_entry, manifest_for
    from tlc.package.format import write_package
    so = build_bundle(d / "fixture.so")
    path = d / "fixture.tlpkg"
    write_package(path, manifest_for([bundle_entry("base")]),
                  {"bundles/base.so": so.read_bytes(), "include/fixture.h": b"/* fixture */\n"})
    return path


def instructions_per_launch(exe: Path, package: Path, calls: int = CALLS) -> float:
    """Ir inside tl_kernel_launch over `calls` launches, divided by calls."""
    with tempfile.TemporaryDirectory() as t:
        out = Path(t) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", "--toggle-collect=tl_kernel_launch",
                        f"--callgrind-out-file={out}", str(exe), str(package), str(calls)],
                       check=True, capture_output=True)
        text = out.read_text()
    m = re.search(r"^summary:\s+(\d+)", text, re.M) or re.search(r"^totals:\s+(\d+)", text, re.M)
    if m is None:
        raise RuntimeError("callgrind wrote no summary line")
    return int(m.group(1)) / calls


def main(argv) -> int:
    if shutil.which("valgrind") is None:
        print("valgrind is not installed", file=sys.stderr)
        return 2
    dirs = [Path(a).resolve() for a in argv] or [HERE.parents[1] / "build" / "runtime"]
    with tempfile.TemporaryDirectory() as t:
        package = fixture_package(Path(t))
        for i, libdir in enumerate(dirs):
            exe = build_driver(libdir, Path(t) / f"launch_cost{i}")
            print(f"{libdir}: {instructions_per_launch(exe, package):.1f} instructions per launch")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
