"""Per-kernel constexpr choices of the CPU backend, keyed ``ops/<file>.py::<kernel>``.

Today the ops/ kernels carry these values as their constexpr defaults and ``specializations=``
(and tl.ops picks among the instances); this table is the one place that says which values the CPU
variants were measured with and why, so a backend with other tile sizes writes its own table
instead of editing ops/. Every entry must name a kernel of ops/ and values it is compiled with
(tests/package/test_backends.py checks that); nothing reads it to change code yet, so the
generated C is unchanged. Values are per target family: ``all`` applies to every CPU variant.
"""
from __future__ import annotations

from typing import Any

# key -> {constexpr: value}; measured on x86_64-avx512 (Zen 5) unless said otherwise
_ALL: dict[str, dict[str, Any]] = {
    # 256 x 128 tiles of c, K steps of 128: the AVX-512 12 x 32 microkernel's cache blocks
    "ops/matmul.py::matmul": {"BM": 256, "BN": 128, "BK": 128},
    # fewer rows (M <= 128): 256 columns per program stream b once
    "ops/matmul.py::matmul_rows": {"BN": 256, "BK": 256},
    # one row of c: 4 long B streams the hardware prefetcher follows (44 vs 36 GB/s at 4096^2)
    "ops/matmul.py::matmul_gemv": {"BM": 1, "BK": 64},
    # elementwise: one 256-lane row per program (16 AVX-512 vectors)
    "ops/elementwise.py::add": {"BM": 1, "BN": 256},
    # softmax: chunks of V = 16 vectors summed as a tree
    "ops/softmax.py::softmax": {"BR": 1, "V": 16},
}


def table(variant) -> dict[str, dict[str, Any]]:
    """The choices for ``variant`` (a tlc.backends.cpu.targets.Variant, or None): today the same
    for every CPU variant."""
    return {k: dict(v) for k, v in _ALL.items()}
