"""The C around the fp32 GEMM microkernels of tlc/emit_asm/gemm.py: B packing into column
panels (from the tensor in place where the plan allows), A copies with prefetching, and the
calls over the row blocks and panels of one ``dot`` (rules/dot.py). The microkernel functions
themselves are pure values (tlc.emit_asm.code.AsmFunction) recorded in the context.

  emit_dot(ctx, plan, family, mr, nv, a, b, acc, out, M, K, N, b_src, a_src) -> Nv
      calls covering out[0:M, 0:Nv] (Nv a multiple of the lanes); columns [Nv, N) are left to
      the caller's portable loops.
"""
from __future__ import annotations

from tlc.emit_asm import gemm
from tlc.emit_c.context import Context
from tlc.emit_c.plan import Plan


def _emit_row(ctx: Context, family: str, a: str, b: str, acc: str | None, out: str, K: int, N: int,
              b_src: tuple[str, str] | None) -> int:
    """One-row dot: out[0, 0:Nv] from B in place (b_src when non-null at run time, else the tile)."""
    L, cap = gemm.LANES[family], gemm.ROW_CAP[family]
    nvec = N // L
    if nvec > cap:     # wider than one call's registers: passes of gemm.STREAM_ROWS rows across all columns

        def stream(bp: str, ld: str) -> None:
            name = ctx.add_asm(gemm.row_stream_function(family, nvec, K, acc is not None))
            ctx.line(f"{name}({a}, {bp}, {acc if acc is not None else '(const float*)0'}, {out}, 4 * ({ld}));")

        from_source_or_tile(ctx, b_src if nvec * L == N else None, stream, b, N)
        return nvec * L
    ncall = -(-nvec // cap)
    chunks, j = [], 0
    for t in range(ncall):             # near-equal chunks of vectors
        w = (nvec - j) // (ncall - t)
        chunks.append((j, w))
        j += w

    def calls(bp: str, ld: str) -> None:
        for j0, w in chunks:
            name = ctx.add_asm(gemm.row_function(family, w, K, acc is not None))
            c0 = f"{acc} + {j0 * L}" if acc is not None else "(const float*)0"
            ctx.line(f"{name}({a}, {bp} + {j0 * L}, {c0}, {out} + {j0 * L}, 4 * ({ld}));")

    from_source_or_tile(ctx, b_src if nvec * L == N else None, calls, b, N)
    return nvec * L


def from_source_or_tile(ctx: Context, b_src, emit, b: str, N: int) -> None:
    """emit(pointer, row stride) reading B from the tensor (``b_src`` = (pointer, row stride) C
    names; used where the pointer is non-null at run time) or else from the dense tile ``b``
    (row stride N); only from the tile when ``b_src`` is None."""
    if b_src is None:
        emit(b, str(N))
        return
    ctx.open(f"if ({b_src[0]})")
    emit(*b_src)
    ctx.chain("} else {")
    emit(b, str(N))
    ctx.close()


def emit_dot(ctx: Context, plan: Plan, family: str, mr: int, nv: int, a: str, b: str, acc: str | None, out: str,
             M: int, K: int, N: int, b_src: tuple[str, str] | None = None,
             a_src: tuple[str, str] | None = None) -> int:
    """Calls covering out[0:M, 0:Nv] (Nv = N // lanes * lanes); a, b, acc, out are C pointer
    names of dense row-major tiles (M, K), (K, N), (M, N), (M, N). ``b_src`` = (pointer, row
    stride) C names: when the pointer is non-null at run time B is packed from there (the
    tensor itself) instead of from ``b`` (then unwritten); only used when B is packed.
    ``a_src`` likewise for A (see a_from_source): A is copied row by row into ``a`` with the
    rows gemm.PACK_PF_ROWS ahead prefetched; with both sources, the microkernel calls also prefetch
    (into L2) the tiles of the next K step: A columns [K, 2K) and B rows [K, 2K) of the sources."""
    L = gemm.LANES[family]
    if M == 1 and family in gemm.ROW_CAP:
        return _emit_row(ctx, family, a, b, acc, out, K, N, b_src)
    nvec = N // L
    Nv = nvec * L
    lda, ldb, ldc = 4 * K, 4 * N, 4 * N
    W = nv * L

    def fn(rows: int, vecs: int, ldb_: int) -> str:
        name = ctx.add_asm(gemm.function(family, rows, vecs, K, lda, ldb_, ldc, acc is not None))
        return name

    Mm, Nm = M // mr * mr, nvec // nv * W
    ev = nvec - Nm // L
    em = M - Mm
    # B is packed into column panels of W (last: ev * L) columns, each K x width contiguous, so
    # a microkernel's B stream is sequential (a row stride of N floats would map every k to
    # the same few L1 sets); panels run outermost, so one stays in L1 across the row blocks.
    # One row block (M <= mr) reads each panel once: no reuse, so no packing.
    pack = M > mr
    pk = ctx.fresh("pk")
    if pack:
        off = ctx.alloc(4 * K * Nv)
        ctx.line(f"float* const {pk} = (float*)(ws + {off});")
    q, kk = ctx.fresh("q"), ctx.fresh("k")
    panels = [(Nm, W, nv)] + ([(ev * L, ev * L, ev)] if ev else [])

    def pack_from(src: str, ld: str, rt: str | None = None, ct: str | None = None) -> None:
        # rows outermost: each source row is read once, contiguously, while the row
        # gemm.PACK_PF_ROWS below is prefetched (short strided rows defeat the hardware prefetcher).
        # With offset tables (plan.gather_b) row kk starts at src + rt[kk] and column
        # chunk q / L of it at + ct[q / L].
        ctx.open(f"for (int64_t {kk} = 0; {kk} < {K}; ++{kk})")
        ctx.open(f"for (int64_t {q} = 0; {q} < {Nv}; {q} += {max(L, 16)})")
        if rt is None:
            ctx.line(f"__builtin_prefetch((const void*)((uintptr_t)({src} + {q}) + "
                     f"(uintptr_t)(4 * ({kk} + {gemm.PACK_PF_ROWS}) * ({ld}))));")
        else:
            ctx.line(f"if ({kk} + {gemm.PACK_PF_ROWS} < {K}) __builtin_prefetch({src} + {rt}[{kk} + {gemm.PACK_PF_ROWS}] "
                     f"+ {ct}[{q} / {L}]);")
        ctx.close()
        for width_total, width, vecs in panels:
            if width_total == 0:
                continue
            start = 0 if width == W else Nm
            ctx.open(f"for (int64_t {q} = {start}; {q} < {start + width_total}; {q} += {width})")
            for v in range(vecs):
                at = (f"{src} + {kk} * {ld} + {q} + {v * L}" if rt is None
                      else f"{src} + {rt}[{kk}] + {ct}[{q} / {L} + {v}]")
                ctx.line(f"tl_st_f({pk} + {q} * {K} + {kk} * {width} + {v * L}, tl_ld_f({at}, TL_L), TL_L);")
            ctx.close()
        ctx.close()

    # AVX-512 reads an in-place A straight from the tensor (run-time row stride: no copy) when
    # every column is in the microkernel's vectors (the portable tail loops read the A tile)
    direct_a = a_src is not None and family == "avx512" and Nv == N
    if a_src is not None and not direct_a:
        r, c = ctx.fresh("r"), ctx.fresh("c")
        ctx.open(f"if ({a_src[0]})")
        ctx.open(f"for (int64_t {r} = 0; {r} < {M}; ++{r})")
        ctx.open(f"for (int64_t {c} = 0; {c} < {K}; {c} += 16)")
        ctx.line(f"__builtin_prefetch((const void*)((uintptr_t)({a_src[0]} + {c}) + "
                 f"(uintptr_t)(4 * ({r} + {gemm.PACK_PF_ROWS}) * ({a_src[1]}))));")
        ctx.close()
        ctx.open(f"for (int64_t {c} = 0; {c} < {K}; {c} += TL_L)")
        if K % L:
            ctx.line(f"const int64_t n = tl_lanes({K} - {c});")
        n = "n" if K % L else "TL_L"
        ctx.line(f"tl_st_f({a} + {r} * {K} + {c}, tl_ld_f({a_src[0]} + {r} * ({a_src[1]}) + {c}, {n}), {n});")
        ctx.close()
        ctx.close()
        ctx.close()
    if pack:
        from_source_or_tile(ctx, b_src if Nv == N else None, pack_from, b, N)

    def call(rows: int, vecs: int, i: str, j: str, direct: bool = False) -> None:
        c0 = f"{acc} + ({i}) * {N} + ({j})" if acc is not None else "(const float*)0"
        bp = f"{pk} + ({j}) * {K}" if pack else f"{b} + ({j})"
        if direct:
            name = ctx.add_asm(gemm.function(family, rows, vecs, K, None, 4 * vecs * L, ldc, acc is not None))
            ctx.line(f"{name}({a_src[0]} + ({i}) * ({a_src[1]}), {bp}, {c0}, {out} + ({i}) * {N} + ({j}), "
                     f"4 * ({a_src[1]}));")
            return
        ctx.line(f"{fn(rows, vecs, 4 * vecs * L if pack else ldb)}({a} + ({i}) * {K}, {bp}, {c0}, "
                 f"{out} + ({i}) * {N} + ({j}));")

    i, j = ctx.fresh("i"), ctx.fresh("j")
    npan, nblk = Nm // W, Mm // mr
    ahead = a_src is not None and b_src is not None and len(b_src) == 2 and Nv == N and pack and npan and nblk

    def prefetch_next(i: str, j: str) -> None:
        """Lines of the next K step's tiles, spread over the calls (panel j, row block i): call
        (i, j) takes rows [i + pj * ra, + ra) of A's next columns and rows [bi * rb, + rb) of
        B's next rows within panel j (pj = j / W, bi = i / mr)."""
        ra, rb = -(-mr // npan), -(-K // nblk)
        pj, bi, t = ctx.fresh("pj"), ctx.fresh("bi"), ctx.fresh("t")
        ctx.open(f"if ({a_src[0]} && {b_src[0]})")
        ctx.line(f"const int64_t {pj} = ({j}) / {W}, {bi} = ({i}) / {mr};")
        ctx.open(f"for (int64_t {t} = {pj} * {ra}; {t} < {pj} * {ra} + {ra} && {t} < {mr}; ++{t})")
        for line in range(-(-K // 16)):
            ctx.line(f"__builtin_prefetch((const void*)((uintptr_t)({a_src[0]} + {K} + {line * 16}) + "
                     f"(uintptr_t)(4 * ({i} + {t}) * ({a_src[1]}))), 0, 2);")
        ctx.close()
        ctx.open(f"for (int64_t {t} = {bi} * {rb}; {t} < {bi} * {rb} + {rb} && {t} < {K}; ++{t})")
        for line in range(-(-W // 16)):
            ctx.line(f"__builtin_prefetch((const void*)((uintptr_t)({b_src[0]} + {j} + {line * 16}) + "
                     f"(uintptr_t)(4 * ({K} + {t}) * ({b_src[1]}))), 0, 2);")
        ctx.close()
        ctx.close()

    def loops(direct: bool) -> None:
        if Nm:
            ctx.open(f"for (int64_t {j} = 0; {j} < {Nm}; {j} += {W})")
            if Mm:
                ctx.open(f"for (int64_t {i} = 0; {i} < {Mm}; {i} += {mr})")
                if ahead:
                    prefetch_next(i, j)
                call(mr, nv, i, j, direct)
                ctx.close()
            if em:
                call(em, nv, str(Mm), j, direct)
            ctx.close()
        if ev:
            if Mm:
                ctx.open(f"for (int64_t {i} = 0; {i} < {Mm}; {i} += {mr})")
                call(mr, ev, i, str(Nm), direct)
                ctx.close()
            if em:
                call(em, ev, str(Mm), str(Nm), direct)

    if direct_a:
        ctx.open(f"if ({a_src[0]})")
        loops(True)
        ctx.chain("} else {")
        loops(False)
        ctx.close()
    else:
        loops(False)
    return Nv
