"""Register-blocked fp32 GEMM microkernels as GCC extended-asm functions (AVX-512, AVX2+FMA;
AArch64 NEON and RISC-V V 1.0 register plans live in gemm_neon_rvv.py).

Python decides everything (block shape, registers, displacements, unrolling); the jinja2
templates in templates/gemm_<family>.j2 only substitute and loop. Shapes are static (tile
shapes are compile-time), so the row strides of A (K), B and C (N) are immediate displacements.

Semantics (the same as the portable ``dot`` loops, bit for bit): for each output element,
c = acc (or 0), then c = fma(a[i, k], b[k, j], c) for k ascending, one rounding per step.

Public API:
  choose(family, vregs, lanes, M, K, N) -> (mr, nv) | None    the register block
  function(family, mr, nv, K, lda, ldb, ldc, acc) -> AsmFunction    one microkernel instance
  row_function / row_stream_function(...) -> AsmFunction            one-row (GEMV) instances
  b_from_source(family, M, mr, N) -> bool   whether the dot's calls read B from the tensor itself
      (``b_src``) when the caller can give it (then the B tile is not copied)
Every function here is pure: a value of its parameters (tlc/emit_asm/code.py). The C calls into
them, packing and loops around them are emitted by tlc/emit_c/gemm_calls.py.

One-row dots (M == 1) on x86 use the GEMV kernel of templates/gemm_row.j2: a[k] broadcast once
per k, B an FMA memory operand read in place at its run-time row stride (no copy, no packing) and
prefetched ahead, up to 16 (AVX-512) / 12 (AVX2) accumulators per call. Wider ones use
templates/gemm_row_stream.j2: passes of STREAM_ROWS B rows across all N columns, c updated in
memory (L1), so B is read as a few long contiguous streams instead of N / 256 column strips
(Zen 5, B from DRAM: 4 rows x 4096 columns 44 GB/s vs 36 GB/s for 256-column strips; 3 or 6
rows, or software prefetch 512..2048 bytes ahead in each row, were slower; the AVX2 code on the
same machine: 37 vs 23 GB/s for 256 columns). On AVX-512, when B is off its 64-byte lines by the
same bytes in every row (NumPy's 16-byte alignment), the passes shift their vector loop onto the
line boundaries and do the first and last vector under store masks (misaligned: 37 vs 42 GB/s).
"""
from __future__ import annotations

from tlc import simd, templating
from tlc.emit_asm import gemm_neon_rvv
from tlc.emit_asm.code import AsmFunction

# float32 lanes of the fp32 families (tlc/simd.py); "neon", "rvv": register plans in gemm_neon_rvv.py
LANES = {f: simd.UKERNEL_LANES[f] for f in ("avx512", "avx2", *gemm_neon_rvv.FAMILIES)}
UNROLL = 4
ROW_CAP = {"avx512": 16, "avx2": 12}   # accumulators of the one-row kernel (one register for a[k])
PF_BYTES = 16384                      # how far ahead (bytes of B rows) the one-row kernel prefetches
PACK_PF_ROWS = 8                       # how many rows ahead the B packing loop prefetches its source
STREAM_ROWS = 4                        # B rows per pass of the wide one-row kernel (gemm_row_stream.j2)


def b_from_source(family: str, M: int, mr: int, N: int) -> bool:
    """True when the dot's calls (tlc/emit_c/gemm_calls.py) read B from the tensor (``b_src``)
    whenever the caller passes it: B packed into panels (M > mr) or streamed by the one-row
    kernel (M == 1 on x86); both need every column in full vectors (N a multiple of the lanes)."""
    if family not in LANES or N % LANES[family]:
        return False
    return M > mr or (M == 1 and family in ROW_CAP)


def a_from_source(family: str, M: int, mr: int) -> bool:
    """True when the dot's calls (tlc/emit_c/gemm_calls.py) copy A from the tensor (``a_src``)
    when the caller passes it: x86 dots with several row blocks, where the next K step's A and B
    are prefetched during the microkernel calls (the copy then reads L2 instead of waiting on L3/DRAM)."""
    return family in ROW_CAP and M > mr


def row_function(family: str, nv: int, K: int, acc: bool) -> AsmFunction:
    """(name, C source) of one one-row (GEMV) kernel instance: c[0, :nv*L] over K, run-time ldb."""
    name = f"tl_gemv_{family}_v{nv}k{K}_{'acc' if acc else 'zero'}"
    vb = 4 * LANES[family]
    areg = ROW_CAP[family]
    assert nv <= areg, (family, nv)
    kloops, tail = divmod(K, UNROLL)
    src = templating.render("emit_asm/gemm_row.j2",
        name=name, nv=nv, vb=vb, reg="zmm" if family == "avx512" else "ymm", areg=areg, acc=acc,
        kloops=kloops, unroll=UNROLL, tail=tail, lines=nv * vb // 64,
        pf_rows=max(4, min(64, PF_BYTES // (nv * vb))), clobbers=list(range(nv)) + [areg])
    return AsmFunction(name, src)


def row_stream_function(family: str, nvec: int, K: int, acc: bool, rows: int = STREAM_ROWS) -> AsmFunction:
    """(name, C source) of one wide one-row (GEMV) kernel instance (templates/gemm_row_stream.j2):
    c[0, :nvec*L] over K in passes of ``rows`` B rows across the whole width, c kept in memory;
    run-time ldb (bytes). The first pass starts from c0 (acc) or zero, the rest from c."""
    name = f"tl_gemv_stream_{family}_v{nvec}k{K}r{rows}_{'acc' if acc else 'zero'}"
    first = min(rows, K)
    mid, tail = divmod(K - first, rows)
    u = next(w for w in (4, 2, 1) if nvec % w == 0)
    areg = 16 if family == "avx512" else 8
    src = templating.render("emit_asm/gemm_row_stream.j2",
        name=name, nv=nvec, vb=4 * LANES[family], reg="zmm" if family == "avx512" else "ymm", u=u,
        areg=areg, rows=rows, first=first, src0="c0" if acc else "zero", mid=mid, tail=tail,
        nq=(rows + 1) // 2, shift=family == "avx512", clobbers=list(range(u)) + list(range(areg, areg + rows)))
    return AsmFunction(name, src)


def max_rows(family: str, vregs: int, nv: int) -> int:
    """Rows of the register block for nv vectors: accumulators + B registers (double-buffered on
    AVX-512) + at least one A broadcast register."""
    if family in gemm_neon_rvv.LANES:
        return gemm_neon_rvv.max_rows(family, vregs, nv)
    if family == "avx512":
        return min(16, (vregs - 2 * nv - 1) // nv)
    return min(12, (vregs - nv - 1) // nv)


def choose(family: str, vregs: int, lanes: int, M: int, K: int, N: int):
    """(mr, nv) for a dot of static shape (M, K) x (K, N), or None for the portable loops
    (no microkernel for ``family``, or fewer than one full vector of columns)."""
    if family not in LANES or LANES[family] != lanes or M < 1 or K < 1:
        return None
    nvec = N // lanes
    if nvec == 0:
        return None
    widest = 3 if family == "avx512" else 2
    nv = next((w for w in range(widest, 1, -1) if nvec % w == 0), min(widest, nvec))
    top = min(M, max_rows(family, vregs, nv), 8 if nv == 3 else 12)
    # prefer a row count that divides M (no edge block) when one is at least 3/4 of the top
    mr = next((r for r in range(top, 0, -1) if M % r == 0 and 4 * r >= 3 * top), top)
    return mr, nv


def _a_bases(mr: int) -> list[int]:
    """Rows holding a base pointer when A's row stride is a run-time register (AVX-512): row i
    is addressed as base o plus (i - o) * lda with i - o in {0, 1, 2, 4, 8} (x86 scales)."""
    bases: list[int] = []
    for i in range(mr):
        if not any(i - o in (0, 1, 2, 4, 8) for o in bases):
            bases.append(i)
    return bases


def a_addressing(mr: int, lda: int | None) -> dict:
    """Template values addressing A's 4-byte element (row i, k step u): ``addr[u][i]`` (an AT&T
    memory operand), ``bases`` (rows holding a pointer register a<o>) and ``rt_lda`` (lda None:
    the row stride is the run-time register %[lda], bytes; else static displacements)."""
    if lda is None:
        bases = _a_bases(mr)
        base_of = {i: next(o for o in bases if i - o in (0, 1, 2, 4, 8)) for i in range(mr)}
        addr = [[f"{u * 4}(%[a{base_of[i]}]" + (f",%[lda],{i - base_of[i]})" if i != base_of[i] else ")")
                 for i in range(mr)] for u in range(UNROLL)]
    else:
        bases = [0]
        addr = [[f"{i * lda + u * 4}(%[a0])" for i in range(mr)] for u in range(UNROLL)]
    return {"addr": addr, "bases": bases, "rt_lda": lda is None}


def function(family: str, mr: int, nv: int, K: int, lda: int | None, ldb: int, ldc: int,
             acc: bool) -> AsmFunction:
    """(name, C source) of one microkernel instance (byte strides lda, ldb, ldc). ``lda=None``
    (AVX-512 only): A's row stride is the function's fifth argument, in bytes (A read in place)."""
    name = f"tl_gemm_{family}_m{mr}v{nv}k{K}_{'rt' if lda is None else lda}_{ldb}_{ldc}_{'acc' if acc else 'zero'}"
    if family in gemm_neon_rvv.LANES:
        return AsmFunction(name, gemm_neon_rvv.render(family, name, mr, nv, K, lda, ldb, ldc, acc, UNROLL))
    kloops, tail = divmod(K, UNROLL)
    breg = mr * nv
    if family == "avx512":
        nareg = min(4, 32 - breg - 2 * nv)
        assert nareg >= 1, (family, mr, nv)
        nregs = breg + 2 * nv + nareg
        extra = {"areg": breg + 2 * nv, "nareg": nareg}
        extra.update(a_addressing(mr, lda))
    else:
        nregs = breg + nv + 1
        extra = {"areg": breg + nv}
    assert nregs <= (32 if family == "avx512" else 16), (family, mr, nv)
    src = templating.render(f"emit_asm/gemm_{family}.j2",
        name=name, mr=mr, nv=nv, lda=lda, ldb=ldb, ldc=ldc, acc=acc, kloops=kloops, unroll=UNROLL,
        tail=tail, breg=breg, clobbers=list(range(nregs)), **extra)
    return AsmFunction(name, src)
