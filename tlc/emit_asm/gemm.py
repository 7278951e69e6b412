"""Register-blocked fp32 GEMM microkernels as GCC extended-asm functions (AVX-512, AVX2+FMA;
AArch64 NEON and RISC-V V 1.0 register plans live in gemm_neon_rvv.py).

Python decides everything (block shape, registers, displacements, unrolling); the jinja2
templates in templates/gemm_<family>.j2 only substitute and loop. Shapes are static (tile
shapes are compile-time), so the row strides of A (K), B and C (N) are immediate displacements.

Semantics (the same as the portable ``dot`` loops, bit for bit): for each output element,
c = acc (or 0), then c = fma(a[i, k], b[k, j], c) for k ascending, one rounding per step.

Public API:
  choose(family, vregs, lanes, M, K, N) -> (mr, nv) | None    the register block
  emit_dot(e, family, mr, nv, a, b, acc, out, M, K, N) -> int  emits calls into KernelEmitter
      ``e`` (functions collected in ``e.asm``: name -> C source); returns Nv, the columns covered
      (a multiple of the lanes); columns [Nv, N) are left to the caller.
  b_from_source(family, M, mr, N) -> bool   whether emit_dot reads B from the tensor itself
      (``b_src``) when the caller can give it (then the B tile is not copied)

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

from pathlib import Path

import jinja2

from tlc.emit_asm import gemm_neon_rvv

_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
                          undefined=jinja2.StrictUndefined, keep_trailing_newline=True, autoescape=False)

LANES = {"avx512": 16, "avx2": 8}
LANES.update(gemm_neon_rvv.LANES)     # "neon", "rvv": register plans in gemm_neon_rvv.py
UNROLL = 4
ROW_CAP = {"avx512": 16, "avx2": 12}   # accumulators of the one-row kernel (one register for a[k])
PF_BYTES = 16384                      # how far ahead (bytes of B rows) the one-row kernel prefetches
PACK_PF_ROWS = 8                       # how many rows ahead the B packing loop prefetches its source
STREAM_ROWS = 4                        # B rows per pass of the wide one-row kernel (gemm_row_stream.j2)


def b_from_source(family: str, M: int, mr: int, N: int) -> bool:
    """True when emit_dot reads B from the tensor (``b_src``) for this dot whenever the caller
    passes it: B packed into panels (M > mr) or streamed by the one-row kernel (M == 1 on x86);
    both need every column in full vectors (N a multiple of the lanes)."""
    if family not in LANES or N % LANES[family]:
        return False
    return M > mr or (M == 1 and family in ROW_CAP)


def a_from_source(family: str, M: int, mr: int) -> bool:
    """True when emit_dot copies A itself from the tensor (``a_src``) when the caller passes it:
    x86 dots with several row blocks, where the next K step's A and B are prefetched during the
    microkernel calls (the copy then reads L2 instead of waiting on L3/DRAM)."""
    return family in ROW_CAP and M > mr


def row_function(family: str, nv: int, K: int, acc: bool) -> tuple[str, str]:
    """(name, C source) of one one-row (GEMV) kernel instance: c[0, :nv*L] over K, run-time ldb."""
    name = f"tl_gemv_{family}_v{nv}k{K}_{'acc' if acc else 'zero'}"
    vb = 4 * LANES[family]
    areg = ROW_CAP[family]
    assert nv <= areg, (family, nv)
    kloops, tail = divmod(K, UNROLL)
    src = _ENV.get_template("gemm_row.j2").render(
        name=name, nv=nv, vb=vb, reg="zmm" if family == "avx512" else "ymm", areg=areg, acc=acc,
        kloops=kloops, unroll=UNROLL, tail=tail, lines=nv * vb // 64,
        pf_rows=max(4, min(64, PF_BYTES // (nv * vb))), clobbers=list(range(nv)) + [areg])
    return name, src


def row_stream_function(family: str, nvec: int, K: int, acc: bool, rows: int = STREAM_ROWS) -> tuple[str, str]:
    """(name, C source) of one wide one-row (GEMV) kernel instance (templates/gemm_row_stream.j2):
    c[0, :nvec*L] over K in passes of ``rows`` B rows across the whole width, c kept in memory;
    run-time ldb (bytes). The first pass starts from c0 (acc) or zero, the rest from c."""
    name = f"tl_gemv_stream_{family}_v{nvec}k{K}r{rows}_{'acc' if acc else 'zero'}"
    first = min(rows, K)
    mid, tail = divmod(K - first, rows)
    u = next(w for w in (4, 2, 1) if nvec % w == 0)
    areg = 16 if family == "avx512" else 8
    src = _ENV.get_template("gemm_row_stream.j2").render(
        name=name, nv=nvec, vb=4 * LANES[family], reg="zmm" if family == "avx512" else "ymm", u=u,
        areg=areg, rows=rows, first=first, src0="c0" if acc else "zero", mid=mid, tail=tail,
        nq=(rows + 1) // 2, shift=family == "avx512", clobbers=list(range(u)) + list(range(areg, areg + rows)))
    return name, src


def _emit_row(e, family: str, a: str, b: str, acc: str | None, out: str, K: int, N: int,
              b_src: tuple[str, str] | None) -> int:
    """One-row dot: out[0, 0:Nv] from B in place (b_src when non-null at run time, else the tile)."""
    L, cap = LANES[family], ROW_CAP[family]
    nvec = N // L
    if nvec > cap:     # wider than one call's registers: passes of STREAM_ROWS rows across all columns

        def stream(bp: str, ld: str) -> None:
            name, src = row_stream_function(family, nvec, K, acc is not None)
            e.asm.setdefault(name, src)
            e.line(f"{name}({a}, {bp}, {acc if acc is not None else '(const float*)0'}, {out}, 4 * ({ld}));")

        from_source_or_tile(e, b_src if nvec * L == N else None, stream, b, N)
        return nvec * L
    ncall = -(-nvec // cap)
    chunks, j = [], 0
    for t in range(ncall):             # near-equal chunks of vectors
        w = (nvec - j) // (ncall - t)
        chunks.append((j, w))
        j += w

    def calls(bp: str, ld: str) -> None:
        for j0, w in chunks:
            name, src = row_function(family, w, K, acc is not None)
            e.asm.setdefault(name, src)
            c0 = f"{acc} + {j0 * L}" if acc is not None else "(const float*)0"
            e.line(f"{name}({a}, {bp} + {j0 * L}, {c0}, {out} + {j0 * L}, 4 * ({ld}));")

    from_source_or_tile(e, b_src if nvec * L == N else None, calls, b, N)
    return nvec * L


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
             acc: bool) -> tuple[str, str]:
    """(name, C source) of one microkernel instance (byte strides lda, ldb, ldc). ``lda=None``
    (AVX-512 only): A's row stride is the function's fifth argument, in bytes (A read in place)."""
    name = f"tl_gemm_{family}_m{mr}v{nv}k{K}_{'rt' if lda is None else lda}_{ldb}_{ldc}_{'acc' if acc else 'zero'}"
    if family in gemm_neon_rvv.LANES:
        return name, gemm_neon_rvv.render(_ENV, family, name, mr, nv, K, lda, ldb, ldc, acc, UNROLL)
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
    src = _ENV.get_template(f"gemm_{family}.j2").render(
        name=name, mr=mr, nv=nv, lda=lda, ldb=ldb, ldc=ldc, acc=acc, kloops=kloops, unroll=UNROLL,
        tail=tail, breg=breg, clobbers=list(range(nregs)), **extra)
    return name, src


def from_source_or_tile(e, b_src, emit, b: str, N: int) -> None:
    """emit(pointer, row stride) reading B from the tensor (``b_src`` = (pointer, row stride) C
    names; used where the pointer is non-null at run time) or else from the dense tile ``b``
    (row stride N); only from the tile when ``b_src`` is None."""
    if b_src is None:
        emit(b, str(N))
        return
    e.open(f"if ({b_src[0]})")
    emit(*b_src)
    e.close("} else {")
    e.depth += 1
    emit(b, str(N))
    e.close()


def emit_dot(e, family: str, mr: int, nv: int, a: str, b: str, acc: str | None, out: str,
             M: int, K: int, N: int, b_src: tuple[str, str] | None = None,
             a_src: tuple[str, str] | None = None) -> int:
    """Calls covering out[0:M, 0:Nv] (Nv = N // lanes * lanes); a, b, acc, out are C pointer
    names of dense row-major tiles (M, K), (K, N), (M, N), (M, N). ``b_src`` = (pointer, row
    stride) C names: when the pointer is non-null at run time B is packed from there (the
    tensor itself) instead of from ``b`` (then unwritten); only used when B is packed.
    ``a_src`` likewise for A (see a_from_source): A is copied row by row into ``a`` with the
    rows PACK_PF_ROWS ahead prefetched; with both sources, the microkernel calls also prefetch
    (into L2) the tiles of the next K step: A columns [K, 2K) and B rows [K, 2K) of the sources."""
    L = LANES[family]
    if M == 1 and family in ROW_CAP:
        return _emit_row(e, family, a, b, acc, out, K, N, b_src)
    nvec = N // L
    Nv = nvec * L
    lda, ldb, ldc = 4 * K, 4 * N, 4 * N
    W = nv * L

    def fn(rows: int, vecs: int, ldb_: int) -> str:
        name, src = function(family, rows, vecs, K, lda, ldb_, ldc, acc is not None)
        e.asm.setdefault(name, src)
        return name

    Mm, Nm = M // mr * mr, nvec // nv * W
    ev = nvec - Nm // L
    em = M - Mm
    # B is packed into column panels of W (last: ev * L) columns, each K x width contiguous, so
    # a microkernel's B stream is sequential (a row stride of N floats would map every k to
    # the same few L1 sets); panels run outermost, so one stays in L1 across the row blocks.
    # One row block (M <= mr) reads each panel once: no reuse, so no packing.
    pack = M > mr
    pk = e.fresh("pk")
    if pack:
        off = e.alloc(4 * K * Nv)
        e.line(f"float* const {pk} = (float*)(ws + {off});")
    q, kk = e.fresh("q"), e.fresh("k")
    panels = [(Nm, W, nv)] + ([(ev * L, ev * L, ev)] if ev else [])

    def pack_from(src: str, ld: str, rt: str | None = None, ct: str | None = None) -> None:
        # rows outermost: each source row is read once, contiguously, while the row
        # PACK_PF_ROWS below is prefetched (short strided rows defeat the hardware prefetcher).
        # With offset tables (memory.gather_b_loads) row kk starts at src + rt[kk] and column
        # chunk q / L of it at + ct[q / L].
        e.open(f"for (int64_t {kk} = 0; {kk} < {K}; ++{kk})")
        e.open(f"for (int64_t {q} = 0; {q} < {Nv}; {q} += {max(L, 16)})")
        if rt is None:
            e.line(f"__builtin_prefetch((const void*)((uintptr_t)({src} + {q}) + "
                   f"(uintptr_t)(4 * ({kk} + {PACK_PF_ROWS}) * ({ld}))));")
        else:
            e.line(f"if ({kk} + {PACK_PF_ROWS} < {K}) __builtin_prefetch({src} + {rt}[{kk} + {PACK_PF_ROWS}] "
                   f"+ {ct}[{q} / {L}]);")
        e.close()
        for width_total, width, vecs in panels:
            if width_total == 0:
                continue
            start = 0 if width == W else Nm
            e.open(f"for (int64_t {q} = {start}; {q} < {start + width_total}; {q} += {width})")
            for v in range(vecs):
                at = (f"{src} + {kk} * {ld} + {q} + {v * L}" if rt is None
                      else f"{src} + {rt}[{kk}] + {ct}[{q} / {L} + {v}]")
                e.line(f"tl_st_f({pk} + {q} * {K} + {kk} * {width} + {v * L}, tl_ld_f({at}, TL_L), TL_L);")
            e.close()
        e.close()

    # AVX-512 reads an in-place A straight from the tensor (run-time row stride: no copy) when
    # every column is in the microkernel's vectors (the portable tail loops read the A tile)
    direct_a = a_src is not None and family == "avx512" and Nv == N
    if a_src is not None and not direct_a:
        r, c = e.fresh("r"), e.fresh("c")
        e.open(f"if ({a_src[0]})")
        e.open(f"for (int64_t {r} = 0; {r} < {M}; ++{r})")
        e.open(f"for (int64_t {c} = 0; {c} < {K}; {c} += 16)")
        e.line(f"__builtin_prefetch((const void*)((uintptr_t)({a_src[0]} + {c}) + "
               f"(uintptr_t)(4 * ({r} + {PACK_PF_ROWS}) * ({a_src[1]}))));")
        e.close()
        e.open(f"for (int64_t {c} = 0; {c} < {K}; {c} += TL_L)")
        if K % L:
            e.line(f"const int64_t n = tl_lanes({K} - {c});")
        n = "n" if K % L else "TL_L"
        e.line(f"tl_st_f({a} + {r} * {K} + {c}, tl_ld_f({a_src[0]} + {r} * ({a_src[1]}) + {c}, {n}), {n});")
        e.close()
        e.close()
        e.close()
    if pack:
        from_source_or_tile(e, b_src if Nv == N else None, pack_from, b, N)

    def call(rows: int, vecs: int, i: str, j: str, direct: bool = False) -> None:
        c0 = f"{acc} + ({i}) * {N} + ({j})" if acc is not None else "(const float*)0"
        bp = f"{pk} + ({j}) * {K}" if pack else f"{b} + ({j})"
        if direct:
            name, src = function(family, rows, vecs, K, None, 4 * vecs * L, ldc, acc is not None)
            e.asm.setdefault(name, src)
            e.line(f"{name}({a_src[0]} + ({i}) * ({a_src[1]}), {bp}, {c0}, {out} + ({i}) * {N} + ({j}), "
                   f"4 * ({a_src[1]}));")
            return
        e.line(f"{fn(rows, vecs, 4 * vecs * L if pack else ldb)}({a} + ({i}) * {K}, {bp}, {c0}, "
               f"{out} + ({i}) * {N} + ({j}));")

    i, j = e.fresh("i"), e.fresh("j")
    npan, nblk = Nm // W, Mm // mr
    ahead = a_src is not None and b_src is not None and len(b_src) == 2 and Nv == N and pack and npan and nblk

    def prefetch_next(i: str, j: str) -> None:
        """Lines of the next K step's tiles, spread over the calls (panel j, row block i): call
        (i, j) takes rows [i + pj * ra, + ra) of A's next columns and rows [bi * rb, + rb) of
        B's next rows within panel j (pj = j / W, bi = i / mr)."""
        ra, rb = -(-mr // npan), -(-K // nblk)
        pj, bi, t = e.fresh("pj"), e.fresh("bi"), e.fresh("t")
        e.open(f"if ({a_src[0]} && {b_src[0]})")
        e.line(f"const int64_t {pj} = ({j}) / {W}, {bi} = ({i}) / {mr};")
        e.open(f"for (int64_t {t} = {pj} * {ra}; {t} < {pj} * {ra} + {ra} && {t} < {mr}; ++{t})")
        for line in range(-(-K // 16)):
            e.line(f"__builtin_prefetch((const void*)((uintptr_t)({a_src[0]} + {K} + {line * 16}) + "
                   f"(uintptr_t)(4 * ({i} + {t}) * ({a_src[1]}))), 0, 2);")
        e.close()
        e.open(f"for (int64_t {t} = {bi} * {rb}; {t} < {bi} * {rb} + {rb} && {t} < {K}; ++{t})")
        for line in range(-(-W // 16)):
            e.line(f"__builtin_prefetch((const void*)((uintptr_t)({b_src[0]} + {j} + {line * 16}) + "
                   f"(uintptr_t)(4 * ({K} + {t}) * ({b_src[1]}))), 0, 2);")
        e.close()
        e.close()

    def loops(direct: bool) -> None:
        if Nm:
            e.open(f"for (int64_t {j} = 0; {j} < {Nm}; {j} += {W})")
            if Mm:
                e.open(f"for (int64_t {i} = 0; {i} < {Mm}; {i} += {mr})")
                if ahead:
                    prefetch_next(i, j)
                call(mr, nv, i, j, direct)
                e.close()
            if em:
                call(em, nv, str(Mm), j, direct)
            e.close()
        if ev:
            if Mm:
                e.open(f"for (int64_t {i} = 0; {i} < {Mm}; {i} += {mr})")
                call(mr, ev, i, str(Nm), direct)
                e.close()
            if em:
                call(em, ev, str(Mm), str(Nm), direct)

    if direct_a:
        e.open(f"if ({a_src[0]})")
        loops(True)
        e.close("} else {")
        e.depth += 1
        loops(False)
        e.close()
    else:
        loops(False)
    return Nv
