"""Dispatch data: what a bundle's code offers that the ``tl.ops`` wrappers choose kernels by.

``tlc build`` writes ``dispatch_facts(variant)`` into each CPU bundle of the manifest (``"dispatch"``,
through ``CpuBackend.bundle_fields``),
so the wrappers (tl/ops/_dispatch.py) ask the package instead of testing variant names; a new
backend states its own facts in its bundle_fields, from its variant's data, and no wrapper changes. Readers ignore
unknown bundle fields, so older runtimes open such packages unchanged, and tl.ops falls back to
the variant-name rule for packages written before the field.

- ``gemv_streams_b``: one-row dots (M == 1) run the one-row microkernel that streams B in place
  (tlc/emit_asm/gemm.py ``ROW_CAP``: the x86 families), so ``matmul_gemv`` pays off once B
  leaves the L2 cache.
- ``tall_matmul_tiles``: ``matmul_big``'s 512 x 128 tiles beat 256 x 256 on tall products (B
  packed half as often); measured on the AVX-512 microkernel only (AVX2 ran 0-3% slower on Zen 5).
"""
from __future__ import annotations

from tlc.emit_asm.gemm import ROW_CAP

TALL_TILE_FAMILIES = ("avx512",)      # microkernel families measured faster with 512 x 128 tiles


def dispatch_facts(variant) -> dict:
    """The ``dispatch`` object of ``variant``'s bundle in the manifest (JSON booleans)."""
    return {"gemv_streams_b": variant.ukernel in ROW_CAP,
            "tall_matmul_tiles": variant.ukernel in TALL_TILE_FAMILIES}
