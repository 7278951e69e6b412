"""The C per-call cost of a 1-element kernel launch, measured by benchmarks/percall.c.

``measure(package, kernel="add__DT_float32") -> dict`` builds percall.c with the system gcc
against the runtime library this process uses (tl._runtime.library_path()) and returns its JSON:
median_ns (tl_kernel_launch), entry_median_ns (the kernel's entry point called directly) and
overhead_ns (their difference: the runtime's launch path). ``contenders(package)`` wraps the two
medians for the per-call workload (harness.per_call reads ``per_call_s``). Raises RuntimeError
when the build or the run fails.
"""
from __future__ import annotations

import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BIN = os.path.join(REPO, "build", "bench", "percall")


def build() -> str:
    from tl._runtime import library_path
    src = os.path.join(HERE, "percall.c")
    libdir = os.path.dirname(os.path.abspath(library_path()))
    os.makedirs(os.path.dirname(BIN), exist_ok=True)
    cmd = ["gcc", "-std=c11", "-O2", "-Wall", "-Wextra", src, "-I", os.path.join(REPO, "libtl_runtime", "include"),
           "-L", libdir, "-ltl_runtime", f"-Wl,-rpath,{libdir}", "-o", BIN]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"building percall.c failed:\n{r.stderr}")
    return BIN


def measure(package: str, kernel: str = "add__DT_float32") -> dict:
    r = subprocess.run([build(), package, kernel], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"percall {kernel} failed:\n{r.stderr}")
    return json.loads(r.stdout)


class _Measured:
    """A per-call contender timed elsewhere (in the C loop): harness.per_call returns per_call_s()."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def per_call_s(self) -> float:
        return self.seconds

    def __call__(self):
        raise RuntimeError("measured by benchmarks/percall.c; use harness.per_call")


def contenders(package: str) -> dict:
    """{"tl C launch": ..., "tl C kernel body": ...} for the overhead workload."""
    m = measure(package)
    return {"tl C launch": _Measured(m["median_ns"] * 1e-9), "tl C kernel body": _Measured(m["entry_median_ns"] * 1e-9)}
