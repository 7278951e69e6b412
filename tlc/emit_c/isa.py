"""Per-ISA emitter tables: one dict per ``Variant.isa`` key ("avx512", "avx2", "sse2").

Each entry is a C expression template with ``{a}``, ``{b}``, ``{c}`` placeholders (vector
operands of the GCC vector-extension types ``tl_vf`` float32 x L, ``tl_vi`` int32 x L,
``tl_vh`` uint16 x L). Generic arithmetic (+ - * / compares & | ^) uses the vector-extension
operators and needs no entry. A missing entry raises ``KeyError`` at emit time (:func:`entry`).

The SSE2 baseline (x86-64 psABI v1) has no FMA and no F16C: ``fma`` is a multiply then an
add (two roundings, so ``dot`` results may differ from the AVX variants in the last bits) and
the float16 conversions are a lane loop over the bit-exact software conversion of the prelude.

Non-x86 tables ("neon" AArch64, "rvv" RISC-V RVV 1.0, "rv64" scalar rv64gc) keep the same
contract. "neon" uses <arm_neon.h> intrinsics (vfmaq_f32 is fused, vcvt_f32_f16 exact).
"rvv" and "rv64" use no intrinsics (clang 14 / gcc 12 cross compilers): splat and sqrt/fma are
lane loops that the compiler turns into vector (rvv: vfmv/vfsqrt/vfmadd under a constant AVL) or
scalar (rv64: fsqrt.s, fmadd.s) instructions; fma is fused on both, so dot results match the
x86 AVX variants. float16 conversions use the prelude's software lane loops (no Zvfh here).
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

# lane loops: statement expressions over the prelude's vector types (TL_L lanes); braces are
# doubled because every entry is itself a str.format template
_SPLAT_LOOP = "({{ T r_; for (int i_ = 0; i_ < TL_L; ++i_) r_[i_] = ({a}); r_; }})"
_LANE_LOOP = "({{ tl_vf r_, a_ = ({a})DECL; for (int i_ = 0; i_ < TL_L; ++i_) r_[i_] = CALL; r_; }})"
_SCALAR_VECTOR = {
    "includes": (),
    "splat_f": _SPLAT_LOOP.replace("T", "tl_vf", 1),
    "splat_i": _SPLAT_LOOP.replace("T", "tl_vi", 1),
    # fused (one rounding) like the x86 AVX variants: fmadd.s / vfmadd.vv
    "fma": _LANE_LOOP.replace("DECL", ", b_ = ({b}), c_ = ({c})").replace(
        "CALL", "__builtin_fmaf(a_[i_], b_[i_], c_[i_])"),
    "sqrt": _LANE_LOOP.replace("DECL", "").replace("CALL", "__builtin_sqrtf(a_[i_])"),
    "h2f": "tl_h2f_lanes({a})",
    "f2h": "tl_f2h_lanes({a})",
}
ISA.update({
    "neon": {
        "includes": ("<arm_neon.h>",),
        "lanes": 4,
        "splat_f": "((tl_vf)vdupq_n_f32({a}))",
        "splat_i": "((tl_vi)vdupq_n_s32({a}))",
        "fma": "((tl_vf)vfmaq_f32((float32x4_t)({c}), (float32x4_t)({a}), (float32x4_t)({b})))",
        "sqrt": "((tl_vf)vsqrtq_f32((float32x4_t)({a})))",
        "h2f": "((tl_vf)vcvt_f32_f16(vreinterpret_f16_u16((uint16x4_t)({a}))))",
        "f2h": "((tl_vh)vreinterpret_u16_f16(vcvt_f16_f32((float32x4_t)({a}))))",
    },
    "rvv": {**_SCALAR_VECTOR, "lanes": 8},
    "rv64": {**_SCALAR_VECTOR, "lanes": 4},
})

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
