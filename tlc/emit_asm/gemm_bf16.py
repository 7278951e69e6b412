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

Public API:
  choose(vregs, M, K, N) -> (mr, nv) | None
  emit_dot(e, mr, nv, a, b, acc, out, M, K, N) -> N      (every column is covered)
"""
from __future__ import annotations

from tlc.emit_asm import gemm

FAMILY = "avx512bf16"
LANES = 16
UNROLL = 4

_HELPERS = {
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


def choose(vregs: int, M: int, K: int, N: int):
    """(mr, nv) for a bf16 dot of static shape (M, K) x (K, N): the fp32 AVX-512 block rules
    (tlc.emit_asm.gemm.choose) on K2 = ceil(K/2) pair steps and ceil(N/16) vectors; None when
    M, K or N is 0."""
    if M < 1 or K < 1 or N < 1:
        return None
    return gemm.choose("avx512", vregs, LANES, M, (K + 1) // 2, -(-N // LANES) * LANES)


def function(mr: int, nv: int, K2: int, lda: int | None, ldb: int, ldc: int, acc: bool,
             mask: int) -> tuple[str, str]:
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
    src = gemm._ENV.get_template(f"gemm_{FAMILY}.j2").render(
        name=name, mr=mr, nv=nv, ldb=ldb, ldc=ldc, acc=acc, kloops=kloops, unroll=UNROLL,
        tail=tail, breg=breg, areg=breg + 2 * nv, nareg=nareg, mask=mask, mbits=(1 << mask) - 1,
        km="%{%%k1%}", kz="%{%%k1%}%{z%}", clobbers=list(range(nregs)), **gemm.a_addressing(mr, lda))
    return name, src


def direct_loads(e) -> set[int]:
    """ids of the loads that are operand A or B (directly or through one alias ``reshape``) of a
    bf16 microkernel ``dot``, have no other use, no mask, bfloat16 data and size-1 leading
    axes: when such a load is in bounds with unit inner stride it copies nothing
    (tlc/emit_c/memory.py) and the dot packs straight from the tensor's bf16 (no float32 round
    trip); otherwise it fills its float32 tile as usual and the dot packs from that."""
    from tlc.lower.dtypes import DType
    from tlc.emit_c.memory import collect_direct_loads
    return collect_direct_loads(e, "_dot_bf16_loads", lambda op, uk: op.operands[:2] if uk[0] == FAMILY else [],
                                DType.bfloat16)


def operand_srcs(e, op):
    """(A source, B source) of a bf16 dot: each (pointer, row stride) C names set by the direct
    load (pointer null at run time when the tile was filled instead), or None."""
    def src(v):
        v = v.operands[0] if v.opcode == "reshape" else v
        return e.__dict__.get("dot_b_src", {}).get(id(v)) if id(v) in direct_loads(e) else None
    return src(op.operands[0]), src(op.operands[1])


def emit_dot(e, mr: int, nv: int, a: str, b: str, acc: str | None, out: str, M: int, K: int, N: int,
             srcs=(None, None)) -> int:
    """Calls covering out[0:M, 0:N]; a, b, acc, out are C names of dense row-major float tiles
    (M, K), (K, N), (M, N), (M, N) (out may be acc). ``srcs``: (A, B) bf16 sources from
    :func:`operand_srcs`; where the pointer is non-null at run time the operand is packed from
    the tensor's bf16 (its float32 tile is then unwritten), else from the float32 tile.
    Packs A and B to bf16 pairs in the workspace. Returns N (no columns are left to the caller)."""
    for name, src in _HELPERS.items():
        e.asm.setdefault(name, src)
    L = LANES
    K2 = (K + 1) // 2
    nvec = -(-N // L)
    W = nv * L
    tail = N % L                      # valid columns of the very last vector (0: full)
    npan, ev = divmod(nvec, nv)       # full panels of nv vectors, then one of ev vectors
    pa, pk = e.fresh("pa"), e.fresh("pk")
    e.line(f"uint32_t* const {pa} = (uint32_t*)(ws + {e.alloc(4 * M * K2)});")
    e.line(f"uint32_t* const {pk} = (uint32_t*)(ws + {e.alloc(4 * K2 * nvec * L)});")
    i, q, kk = e.fresh("i"), e.fresh("q"), e.fresh("k")

    def either(src, direct, tile) -> None:
        if src is None:
            tile()
            return
        e.open(f"if ({src[0]})")
        direct(*src)
        e.close("} else {")
        e.depth += 1
        tile()
        e.close()

    def pack_a(fn: str, base: str, ld: str) -> None:
        e.open(f"for (int64_t {i} = 0; {i} < {M}; ++{i})")
        e.line(f"{fn}((uint16_t*)({pa} + {i} * {K2}), {base} + {i} * {ld}, {K}, {2 * K2});")
        e.close()

    # an in-place A with whole pairs (K even) is read straight from the tensor (run-time row
    # stride: no copy); otherwise its rows are copied (odd K: zero-padded) or packed from the tile
    direct_a = srcs[0] is not None and K % 2 == 0
    if direct_a:
        e.open(f"if (!{srcs[0][0]})")
        pack_a("tl_bf16_a_row", a, str(K))
        e.close()
    else:
        either(srcs[0], lambda p, ld: pack_a("tl_bf16_a_copy", p, ld), lambda: pack_a("tl_bf16_a_row", a, str(K)))
    # B panels: (first column, number of panels, vectors per panel)
    groups = []
    if npan:
        groups.append((0, npan, nv))
    if ev:
        groups.append((npan * W, 1, ev))

    def pack_b(fn: str, base: str, ld: str) -> None:
        # pair rows outermost: rows 2k and 2k+1 are read once, front to back, and scattered
        # to every panel (the panels are in L1/L2; the source may not be)
        for last_k, (lo, hi) in ((False, (0, K // 2)), (True, (K // 2, K2))):
            if hi <= lo:
                continue
            e.open(f"for (int64_t {kk} = {lo}; {kk} < {hi}; ++{kk})")
            for col0, count, vecs in groups:
                w = vecs * L
                e.open(f"for (int64_t {q} = {col0}; {q} < {col0 + count * w}; {q} += {w})")
                for v in range(vecs):
                    col = f"{q} + {v * L}"
                    r1 = "0" if last_k else f"{base} + (2 * {kk} + 1) * {ld} + {col}"
                    n = f"({col} + 16 <= {N} ? 16 : {N} - ({col}))" if tail else "16"
                    e.line(f"{fn}({pk} + {q} * {K2} + {kk} * {w} + {v * L}, "
                           f"{base} + 2 * {kk} * {ld} + {col}, {r1}, {n});")
                e.close()
            e.close()

    either(srcs[1], lambda p, ld: pack_b("tl_bf16_b_pairs_h", p, ld), lambda: pack_b("tl_bf16_b_pairs", b, str(N)))

    def fn(rows: int, vecs: int, masked: bool, direct: bool) -> str:
        name, src = function(rows, vecs, K2, None if direct else 4 * K2, 4 * vecs * L, 4 * N,
                             acc is not None, tail if masked else 0)
        e.asm.setdefault(name, src)
        return name

    def call(rows: int, vecs: int, masked: bool, i_: str, j_: str) -> None:
        c0 = f"{acc} + ({i_}) * {N} + ({j_})" if acc is not None else "(const float*)0"
        rest = f"{pk} + ({j_}) * {K2}, {c0}, {out} + ({i_}) * {N} + ({j_})"
        if direct[0]:
            p, ld = srcs[0]
            e.line(f"{fn(rows, vecs, masked, True)}({p} + ({i_}) * ({ld}), {rest}, 2 * ({ld}));")
        else:
            e.line(f"{fn(rows, vecs, masked, False)}({pa} + ({i_}) * {K2}, {rest});")

    Mm, em = M // mr * mr, M % mr

    def panel_run(col0: int, count: int, vecs: int, masked: bool) -> None:
        if count == 0:
            return
        j = e.fresh("j")
        w = vecs * L
        if count > 1:
            e.open(f"for (int64_t {j} = {col0}; {j} < {col0 + count * w}; {j} += {w})")
        else:
            e.open("")
            e.line(f"const int64_t {j} = {col0};")
        if Mm:
            e.open(f"for (int64_t {i} = 0; {i} < {Mm}; {i} += {mr})")
            call(mr, vecs, masked, i, j)
            e.close()
        if em:
            call(em, vecs, masked, str(Mm), j)
        e.close()

    def runs() -> None:
        for idx, (col0, count, vecs) in enumerate(groups):
            last = idx == len(groups) - 1
            if last and tail:             # the very last panel has the partial vector
                panel_run(col0, count - 1, vecs, False)
                panel_run(col0 + (count - 1) * vecs * L, 1, vecs, True)
            else:
                panel_run(col0, count, vecs, False)

    direct = [False]
    if direct_a:
        e.open(f"if ({srcs[0][0]})")
        direct[0] = True
        runs()
        direct[0] = False
        e.close("} else {")
        e.depth += 1
        runs()
        e.close()
    else:
        runs()
    return N
