"""The one lane table: float32 lanes per vector register of each ISA key (``Variant.isa``) and
of each GEMM microkernel family (``Variant.ukernel`` / ``ukernel_bf16``). The C emitter's vector
width TL_L (tlc/emit_c/isa.py) and the microkernels' register plans (tlc/emit_asm) read it here.
"""
from __future__ import annotations

# ISA key (tlc/emit_c/isa.py) -> float32 lanes of one vector
ISA_LANES: dict[str, int] = {"avx512": 16, "avx2": 8, "sse2": 4, "neon": 4, "rvv": 8, "rv64": 4}

# GEMM microkernel family (tlc/emit_asm) -> float32 lanes of one vector register
UKERNEL_LANES: dict[str, int] = {"avx512": 16, "avx2": 8, "neon": 4, "rvv": 8, "avx512bf16": 16}


def lanes(isa: str) -> int:
    """float32 lanes of the ISA key ``isa``; KeyError naming the known keys."""
    if isa not in ISA_LANES:
        raise KeyError(f"no lane count for isa {isa!r}; known: {', '.join(sorted(ISA_LANES))}")
    return ISA_LANES[isa]
