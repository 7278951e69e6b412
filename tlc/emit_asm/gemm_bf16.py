"""bfloat16 x bfloat16 -> float32 GEMM microkernels on AVX-512 BF16 (``vdpbf16ps``), as GCC
extended-asm functions, for variants whose ``Variant.ukernel_bf16`` is "avx512bf16".

Same style as tlc/emit_asm/gemm.py: Python chooses the block, registers and displacements; the
jinja2 template templates/gemm_avx512bf16.j2 only substitutes and loops.

Instruction (Intel SDM vol. 2, VDPBF16PS; AVX512_BF16, CPUID.(EAX=7,ECX=1):EAX[5]): for each
float32 lane j, ``acc[j] += a.bf16[2j+1] * b.bf16[2j+1]`` then ``acc[j] += a.bf16[2j] *
b.bf16[2j]``; each bf16 is widened exactly to float32, each step is a fused multiply-add rounded
to nearest-even, input denormals are read as zero and output denormals flushed to zero, MXCSR is
neither read nor written (no exceptions). So per output element the sum runs over pairs (k, k+1),
k even ascending, in float32; products of two bfloat16 are exact in float32.

Operands: tiles of a ``dot`` whose A and B are bfloat16 tiles hold float32 lanes (design.md,
"Tile storage"); they are packed with ``vcvtne2ps2bf16`` (round to nearest-even, so lanes that
came from bfloat16 memory convert exactly). A becomes rows of K2 = ceil(K/2) dwords (pairs
(a[i, k], a[i, k+1])), B becomes column panels of K2 rows of W dwords (VNNI layout: the pair
(b[k, j], b[k+1, j]) in column j's dword); an odd K pads the last pair with zero. The last
vector column may be partial (N not a multiple of 16): B's panel is zero-padded and C's last
vector is loaded/stored under mask k1, so the microkernel covers every column.

Accuracy contract of a bf16 dot (tests/ops/test_matmul_bf16.py): with A, B the bfloat16 values,
``|C - A @ B (float64)| <= K * 2**-23 * (|A| @ |B|)`` per element (K float32 roundings of
partial sums, each <= 2**-24 relative, with headroom), for inputs and products in float32's
normal range; bfloat16 denormal inputs read as zero and results below 2**-126 flush to zero.

Public API (pure functions; the C around the calls is tlc/emit_c/gemm_bf16_calls.py):
  choose(vregs, M, K, N) -> (mr, nv) | None
  function(mr, nv, K2, lda, ldb, ldc, acc, mask) -> AsmFunction
  HELPERS: the packing helpers every bf16 dot calls, as AsmFunction values
"""
from __future__ import annotations

from tlc import simd, templating
from tlc.emit_asm import gemm
from tlc.emit_asm.code import AsmFunction

FAMILY = "avx512bf16"
LANES = simd.UKERNEL_LANES[FAMILY]
UNROLL = 4

_HELPER_SOURCES = {
    # a row of n float32 -> n bf16 (RNE), then a zero bf16 when npad > n (odd K)
    "tl_bf16_a_row": """\
static inline __attribute__((always_inline)) void tl_bf16_a_row(uint16_t* dst, const float* src, int64_t n, int64_t npad) {
  int64_t c = 0;
  for (; c + 32 <= n; c += 32)
    _mm512_storeu_si512((void*)(dst + c), (__m512i)_mm512_cvtne2ps_pbh(_mm512_loadu_ps(src + c + 16), _mm512_loadu_ps(src + c)));
  for (; c < n; c += 16) {
    const int64_t r = n - c < 16 ? n - c : 16;
    const __mmask16 m = (__mmask16)((1u << r) - 1u);
    _mm256_mask_storeu_epi16((void*)(dst + c), m, (__m256i)_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(m, src + c)));
  }
  if (npad > n) dst[n] = 0;
}
""",
    # 16 columns of rows k (r0) and k+1 (r1, or zeros when null) -> 16 dwords (b[k,j], b[k+1,j]);
    # n <= 16 valid columns, the others zero
    # vpermw indices: words 0..15 (row k) and 16..31 (row k+1) -> (k, k+1) pairs per column;
    # named so that it sorts before its users
    "tl_bf16_0ilv": """\
static const uint16_t tl_bf16_ilv[32] __attribute__((aligned(64))) = {
  0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
""",
    "tl_bf16_b_pairs": """\
static inline __attribute__((always_inline)) void tl_bf16_b_pairs(uint32_t* dst, const float* r0, const float* r1, int64_t n) {
  const __mmask16 m = (__mmask16)((1u << n) - 1u);
  const __m512 x0 = _mm512_maskz_loadu_ps(m, r0);
  const __m512 x1 = r1 ? _mm512_maskz_loadu_ps(m, r1) : _mm512_setzero_ps();
  const __m512i h = (__m512i)_mm512_cvtne2ps_pbh(x1, x0);     /* x0 in words 0..15, x1 in 16..31 */
  _mm512_storeu_si512((void*)dst, _mm512_permutexvar_epi16(_mm512_load_si512((const void*)tl_bf16_ilv), h));
}
""",
    # from bfloat16 memory: n bf16 of a row (unit stride), then a zero when npad > n (odd K)
    "tl_bf16_a_copy": """\
static inline __attribute__((always_inline)) void tl_bf16_a_copy(uint16_t* dst, const uint16_t* src, int64_t n, int64_t npad) {
  int64_t c = 0;
  for (; c + 32 <= n; c += 32) _mm512_storeu_si512((void*)(dst + c), _mm512_loadu_si512((const void*)(src + c)));
  if (c < n) {
    const __mmask32 m = (__mmask32)((1ull << (n - c)) - 1ull);
    _mm512_mask_storeu_epi16((void*)(dst + c), m, _mm512_maskz_loadu_epi16(m, (const void*)(src + c)));
  }
  if (npad > n) dst[n] = 0;
}
""",
    # from bfloat16 memory: 16 columns of rows k (r0) and k+1 (r1, or zeros when null) -> 16
    # dwords (b[k,j], b[k+1,j]); n <= 16 valid columns, the others zero
    "tl_bf16_b_pairs_h": """\
static inline __attribute__((always_inline)) void tl_bf16_b_pairs_h(uint32_t* dst, const uint16_t* r0, const uint16_t* r1, int64_t n) {
  const __mmask16 m = (__mmask16)((1u << n) - 1u);
  const __m256i x0 = _mm256_maskz_loadu_epi16(m, (const void*)r0);
  const __m256i x1 = r1 ? _mm256_maskz_loadu_epi16(m, (const void*)r1) : _mm256_setzero_si256();
  const __m512i h = _mm512_inserti64x4(_mm512_castsi256_si512(x0), x1, 1);
  _mm512_storeu_si512((void*)dst, _mm512_permutexvar_epi16(_mm512_load_si512((const void*)tl_bf16_ilv), h));
}
""",
}


HELPERS = tuple(AsmFunction(name, src) for name, src in _HELPER_SOURCES.items())


def choose(vregs: int, M: int, K: int, N: int):
    """(mr, nv) for a bf16 dot of static shape (M, K) x (K, N): the fp32 AVX-512 block rules
    (tlc.emit_asm.gemm.choose) on K2 = ceil(K/2) pair steps and ceil(N/16) vectors; None when
    M, K or N is 0."""
    if M < 1 or K < 1 or N < 1:
        return None
    return gemm.choose("avx512", vregs, LANES, M, (K + 1) // 2, -(-N // LANES) * LANES)


def function(mr: int, nv: int, K2: int, lda: int | None, ldb: int, ldc: int, acc: bool,
             mask: int) -> AsmFunction:
    """(name, C source) of one microkernel instance: byte strides lda (A rows; None: the
    function's fifth argument, A read in place from the tensor), ldb (B pair rows), ldc (C rows);
    ``mask`` in 1..15: valid columns of the last vector (0: all 16)."""
    name = (f"tl_gemm_{FAMILY}_m{mr}v{nv}k{K2}_{'rt' if lda is None else lda}_{ldb}_{ldc}_"
            f"{'acc' if acc else 'zero'}_t{mask}")
    kloops, tail = divmod(K2, UNROLL)
    breg = mr * nv
    nareg = min(4, 32 - breg - 2 * nv)     # A pairs broadcast into registers, as in gemm_avx512.j2
    assert nareg >= 1, (mr, nv)
    nregs = breg + 2 * nv + nareg
    src = templating.render(f"emit_asm/gemm_{FAMILY}.j2",
        name=name, mr=mr, nv=nv, ldb=ldb, ldc=ldc, acc=acc, kloops=kloops, unroll=UNROLL,
        tail=tail, breg=breg, areg=breg + 2 * nv, nareg=nareg, mask=mask, mbits=(1 << mask) - 1,
        km="%{%%k1%}", kz="%{%%k1%}%{z%}", clobbers=list(range(nregs)), **gemm.a_addressing(mr, lda))
    return AsmFunction(name, src)
