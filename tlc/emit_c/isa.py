"""Per-ISA emitter tables: one dict per ``Variant.isa`` key ("avx512", "avx2", "sse2").

Each entry is a C expression template with ``{a}``, ``{b}``, ``{c}`` placeholders (vector
operands of the GCC vector-extension types ``tl_vf`` float32 x L, ``tl_vi`` int32 x L,
``tl_vh`` uint16 x L). Generic arithmetic (+ - * / compares & | ^) uses the vector-extension
operators and needs no entry. A missing entry raises ``KeyError`` at emit time (:func:`entry`).

The SSE2 baseline (x86-64 psABI v1) has no FMA and no F16C: ``fma`` is a multiply then an
add (two roundings, so ``dot`` results may differ from the AVX variants in the last bits) and
the float16 conversions are a lane loop over the bit-exact software conversion of the prelude.
"""
from __future__ import annotations

ISA: dict[str, dict[str, object]] = {
    "avx512": {
        "includes": ("<immintrin.h>",),
        "lanes": 16,
        "splat_f": "((tl_vf)_mm512_set1_ps({a}))",
        "splat_i": "((tl_vi)_mm512_set1_epi32({a}))",
        "fma": "((tl_vf)_mm512_fmadd_ps((__m512)({a}), (__m512)({b}), (__m512)({c})))",
        "sqrt": "((tl_vf)_mm512_sqrt_ps((__m512)({a})))",
        "h2f": "((tl_vf)_mm512_cvtph_ps((__m256i)({a})))",
        "f2h": "((tl_vh)_mm512_cvtps_ph((__m512)({a}), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))",
    },
    "avx2": {
        "includes": ("<immintrin.h>",),
        "lanes": 8,
        "splat_f": "((tl_vf)_mm256_set1_ps({a}))",
        "splat_i": "((tl_vi)_mm256_set1_epi32({a}))",
        "fma": "((tl_vf)_mm256_fmadd_ps((__m256)({a}), (__m256)({b}), (__m256)({c})))",
        "sqrt": "((tl_vf)_mm256_sqrt_ps((__m256)({a})))",
        "h2f": "((tl_vf)_mm256_cvtph_ps((__m128i)({a})))",
        "f2h": "((tl_vh)_mm256_cvtps_ph((__m256)({a}), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))",
    },
    "sse2": {
        "includes": ("<immintrin.h>",),
        "lanes": 4,
        "splat_f": "((tl_vf)_mm_set1_ps({a}))",
        "splat_i": "((tl_vi)_mm_set1_epi32({a}))",
        # no FMA in the x86-64 baseline: multiply, round, add, round
        "fma": "((({a}) * ({b})) + ({c}))",
        "sqrt": "((tl_vf)_mm_sqrt_ps((__m128)({a})))",
        # no F16C: lane loops over the bit-exact software conversions (tl_h2f/tl_f2h)
        "h2f": "tl_h2f_lanes({a})",
        "f2h": "tl_f2h_lanes({a})",
    },
}

# entries every ISA table must provide (checked by tests/emit_c/test_isa.py)
REQUIRED = ("includes", "lanes", "splat_f", "splat_i", "fma", "sqrt", "h2f", "f2h")


def table(isa: str) -> dict[str, object]:
    """The table of one ISA key; raises KeyError naming the known keys."""
    if isa not in ISA:
        raise KeyError(f"no emitter table for isa {isa!r}; known: {', '.join(sorted(ISA))}")
    return ISA[isa]


def entry(isa: str, key: str, **operands: str) -> str:
    """One table entry with its placeholders filled; KeyError when the ISA lacks ``key``."""
    tab = table(isa)
    if key not in tab:
        raise KeyError(f"emitter table {isa!r} has no entry {key!r}")
    value = tab[key]
    return value.format(**operands) if isinstance(value, str) else value
