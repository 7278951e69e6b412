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

from tlc import simd

ISA: dict[str, dict[str, object]] = {
    "avx512": {
        "includes": ("<immintrin.h>",),
        "lanes": simd.lanes("avx512"),
        "splat_f": "((tl_vf)_mm512_set1_ps({a}))",
        "splat_i": "((tl_vi)_mm512_set1_epi32({a}))",
        "fma": "((tl_vf)_mm512_fmadd_ps((__m512)({a}), (__m512)({b}), (__m512)({c})))",
        "sqrt": "((tl_vf)_mm512_sqrt_ps((__m512)({a})))",
        "h2f": "((tl_vf)_mm512_cvtph_ps((__m256i)({a})))",
        "f2h": "((tl_vh)_mm512_cvtps_ph((__m512)({a}), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))",
        # masked-off lanes are neither read nor written, and do not fault (mask registers)
        "mldz_f": "((tl_vf)_mm512_maskz_loadu_ps(_mm512_test_epi32_mask((__m512i)({b}), (__m512i)({b})), {a}))",
        "mldz_i": "((tl_vi)_mm512_maskz_loadu_epi32(_mm512_test_epi32_mask((__m512i)({b}), (__m512i)({b})), {a}))",
        "mldz_h": "((tl_vh)_mm256_maskz_loadu_epi16(_mm512_test_epi32_mask((__m512i)({b}), (__m512i)({b})), {a}))",
        "mst_f": "_mm512_mask_storeu_ps({a}, _mm512_test_epi32_mask((__m512i)({b}), (__m512i)({b})), (__m512)({c}))",
        "mst_i": "_mm512_mask_storeu_epi32({a}, _mm512_test_epi32_mask((__m512i)({b}), (__m512i)({b})), (__m512i)({c}))",
        "mst_h": "_mm256_mask_storeu_epi16({a}, _mm512_test_epi32_mask((__m512i)({b}), (__m512i)({b})), (__m256i)({c}))",
    },
    "avx2": {
        "includes": ("<immintrin.h>",),
        "lanes": simd.lanes("avx2"),
        "splat_f": "((tl_vf)_mm256_set1_ps({a}))",
        "splat_i": "((tl_vi)_mm256_set1_epi32({a}))",
        "fma": "((tl_vf)_mm256_fmadd_ps((__m256)({a}), (__m256)({b}), (__m256)({c})))",
        "sqrt": "((tl_vf)_mm256_sqrt_ps((__m256)({a})))",
        "h2f": "((tl_vf)_mm256_cvtph_ps((__m128i)({a})))",
        "f2h": "((tl_vh)_mm256_cvtps_ph((__m256)({a}), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC))",
        # vmaskmov (32-bit lanes only): masked-off lanes are not accessed and do not fault
        "mldz_f": "((tl_vf)_mm256_maskload_ps({a}, (__m256i)({b})))",
        "mldz_i": "((tl_vi)_mm256_maskload_epi32((const int*)({a}), (__m256i)({b})))",
        "mst_f": "_mm256_maskstore_ps({a}, (__m256i)({b}), (__m256)({c}))",
        "mst_i": "_mm256_maskstore_epi32((int*)({a}), (__m256i)({b}), (__m256i)({c}))",
    },
    "sse2": {
        "includes": ("<immintrin.h>",),
        "lanes": simd.lanes("sse2"),
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
# RVV float32 -> int32/int64 lanes, rounding toward zero, without any vector FP-to-int
# instruction: QEMU 7.2 (Debian 12's qemu-user) aborts translating vfcvt.rtz.x.f.v and
# vfwcvt.rtz.x.f.v (assertion in decode_save_opc), and clang emits those for every
# __builtin_convertvector to an integer vector. The conversion is done on the IEEE-754 bits
# instead (RISC-V ISA manual, "Single-Precision Floating-Point Conversion": same results as
# fcvt/vfcvt with rtz): e = exponent - 127, m = mantissa with the implicit bit; |x| < 1 gives 0,
# else m shifted by e - 23, negated for a negative x; e > 30 (int32) or e > 62 (int64), which
# covers +-inf and NaN, saturates as RISC-V does: INT_MIN for negative values, INT_MAX for
# positive ones and NaN. About 15 integer vector instructions instead of one conversion.
_RVV_F2I = ("({{ tl_vi b_ = (tl_vi)({a}), e_ = ((b_ >> 23) & 0xff) - 127, s_ = b_ >> 31, big_ = e_ > 23; "
            "tl_vu m_ = ((tl_vu)b_ & 0x7fffffu) | 0x800000u; "
            "tl_vi r_ = (tl_vi)((m_ >> (tl_vu)((23 - e_) & ~big_ & 31)) << (tl_vu)((e_ - 23) & big_ & 31)) & ~(e_ < 0); "
            "tl_vi sat_ = e_ > 30, nan_ = ({a}) != ({a}); r_ = (r_ ^ s_) - s_; "
            "(sat_ & ((int32_t)0x7fffffff ^ (s_ & ~nan_))) | (~sat_ & r_); }})")
_RVV_F2L = ("({{ tl_vl b_ = __builtin_convertvector((tl_vi)({a}), tl_vl), "
            "nan_ = __builtin_convertvector(({a}) != ({a}), tl_vl); "
            "tl_vl e_ = ((b_ >> 23) & 0xff) - 127, s_ = b_ >> 63, big_ = e_ > 23; "
            "tl_vul m_ = ((tl_vul)b_ & 0x7fffffu) | 0x800000u; "
            "tl_vl r_ = (tl_vl)((m_ >> (tl_vul)((23 - e_) & ~big_ & 63)) << (tl_vul)((e_ - 23) & big_ & 63)) & ~(e_ < 0); "
            "tl_vl sat_ = e_ > 62; r_ = (r_ ^ s_) - s_; "
            "(sat_ & ((int64_t)0x7fffffffffffffff ^ (s_ & ~nan_))) | (~sat_ & r_); }})")
ISA.update({
    "neon": {
        "includes": ("<arm_neon.h>",),
        "lanes": simd.lanes("neon"),
        "splat_f": "((tl_vf)vdupq_n_f32({a}))",
        "splat_i": "((tl_vi)vdupq_n_s32({a}))",
        "fma": "((tl_vf)vfmaq_f32((float32x4_t)({c}), (float32x4_t)({a}), (float32x4_t)({b})))",
        "sqrt": "((tl_vf)vsqrtq_f32((float32x4_t)({a})))",
        "h2f": "((tl_vf)vcvt_f32_f16(vreinterpret_f16_u16((uint16x4_t)({a}))))",
        "f2h": "((tl_vh)vreinterpret_u16_f16(vcvt_f16_f32((float32x4_t)({a}))))",
    },
    "rvv": {**_SCALAR_VECTOR, "lanes": simd.lanes("rvv"), "f2i": _RVV_F2I, "f2l": _RVV_F2L},
    "rv64": {**_SCALAR_VECTOR, "lanes": simd.lanes("rv64")},
})

# entries every ISA table must provide (checked by tests/emit_c/test_isa.py)
REQUIRED = ("includes", "lanes", "splat_f", "splat_i", "fma", "sqrt", "h2f", "f2h")
# entries a table may override; the default is used otherwise. f2i / f2l: float32 lanes to
# int32 / int64 lanes rounding toward zero (the prelude's tl_v_f2i / tl_v_f2l, used by casts and
# floor/ceil); out-of-range and NaN lanes give what the ISA's conversion gives
DEFAULTS = {"f2i": "__builtin_convertvector({a}, tl_vi)", "f2l": "__builtin_convertvector({a}, tl_vl)"}
# masked lane loads (mldz_<s>: {a} pointer, {b} tl_vi mask of -1/0; masked-off lanes give 0) and
# stores (mst_<s>: {a} pointer, {c} lanes, {b} mask) of float32 (f), int32 (i), int64 (l) and
# 16-bit (h: float16/bfloat16 bits) elements, used by masked tl.load/tl.store. A masked-off lane
# must not be read or written (it may lie outside any allocation), so an entry must be a masked
# instruction that suppresses faults on such lanes. Default: the prelude's lane loops (a test per
# lane; the store writes the whole vector when every lane is set).
MASKED = tuple(f"{op}_{s}" for op in ("mldz", "mst") for s in "filh")
DEFAULTS.update({f"mldz_{s}": f"tl_mldz_lanes_{s}({{a}}, {{b}})" for s in "filh"})
DEFAULTS.update({f"mst_{s}": f"tl_mst_lanes_{s}({{a}}, {{c}}, {{b}})" for s in "filh"})


def table(isa: str) -> dict[str, object]:
    """The table of one ISA key; raises KeyError naming the known keys."""
    if isa not in ISA:
        raise KeyError(f"no emitter table for isa {isa!r}; known: {', '.join(sorted(ISA))}")
    return ISA[isa]


def entry(isa: str, key: str, **operands: str) -> str:
    """One table entry with its placeholders filled; KeyError when the ISA lacks ``key``."""
    tab = table(isa)
    if key not in tab and key not in DEFAULTS:
        raise KeyError(f"emitter table {isa!r} has no entry {key!r}")
    value = tab.get(key, DEFAULTS.get(key))
    return value.format(**operands) if isinstance(value, str) else value
