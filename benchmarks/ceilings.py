"""This machine's ceilings, measured by benchmarks/ceilings.c (built here with the system gcc).

``measure(threads) -> dict`` with fma_avx512_gflops, fma_avx2_gflops, triad_gbs, triad_nt_gbs,
triad_l2_gbs (see ceilings.c). Raises RuntimeError when the compiler or the run fails.
"""
from __future__ import annotations

import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BIN = os.path.join(REPO, "build", "bench", "ceilings")


def build() -> str:
    src = os.path.join(HERE, "ceilings.c")
    if not os.path.exists(BIN) or os.path.getmtime(BIN) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(BIN), exist_ok=True)
        r = subprocess.run(["gcc", "-O2", "-pthread", src, "-o", BIN], capture_output=True, text=True)
        if r.returncode:
            raise RuntimeError(f"building ceilings.c failed:\n{r.stderr}")
    return BIN


def measure(threads: int) -> dict:
    r = subprocess.run([build(), str(threads)], capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(f"ceilings {threads} failed:\n{r.stderr}")
    return json.loads(r.stdout)
