"""The C around the bfloat16 GEMM microkernels of tlc/emit_asm/gemm_bf16.py (``vdpbf16ps``):
A and B packed to bf16 pairs in the workspace (from the tensor's bf16 in place where the plan
allows: plan.bf16_direct), then the calls over the row blocks and panels of one ``dot``."""
from __future__ import annotations

from tlc.emit_asm import gemm_bf16
from tlc.emit_c.context import Context
from tlc.emit_c.plan import Plan


def operand_srcs(ctx: Context, plan: Plan, op):
    """(A source, B source) of a bf16 dot: each (pointer, row stride) C names set by the direct
    load (pointer null at run time when the tile was filled instead), or None."""
    def src(v):
        v = v.operands[0] if v.opcode == "reshape" else v
        return ctx.dot_src_of(v) if id(v) in plan.bf16_direct else None
    return src(op.operands[0]), src(op.operands[1])


def emit_dot(ctx: Context, mr: int, nv: int, a: str, b: str, acc: str | None, out: str, M: int, K: int, N: int,
             srcs=(None, None)) -> int:
    """Calls covering out[0:M, 0:N]; a, b, acc, out are C names of dense row-major float tiles
    (M, K), (K, N), (M, N), (M, N) (out may be acc). ``srcs``: (A, B) bf16 sources from
    :func:`operand_srcs`; where the pointer is non-null at run time the operand is packed from
    the tensor's bf16 (its float32 tile is then unwritten), else from the float32 tile.
    Packs A and B to bf16 pairs in the workspace. Returns N (no columns are left to the caller)."""
    for helper in gemm_bf16.HELPERS:
        ctx.add_asm(helper)
    L = gemm_bf16.LANES
    K2 = (K + 1) // 2
    nvec = -(-N // L)
    W = nv * L
    tail = N % L                      # valid columns of the very last vector (0: full)
    npan, ev = divmod(nvec, nv)       # full panels of nv vectors, then one of ev vectors
    pa, pk = ctx.fresh("pa"), ctx.fresh("pk")
    ctx.line(f"uint32_t* const {pa} = (uint32_t*)(ws + {ctx.alloc(4 * M * K2)});")
    ctx.line(f"uint32_t* const {pk} = (uint32_t*)(ws + {ctx.alloc(4 * K2 * nvec * L)});")
    i, q, kk = ctx.fresh("i"), ctx.fresh("q"), ctx.fresh("k")

    def either(src, direct, tile) -> None:
        if src is None:
            tile()
            return
        ctx.open(f"if ({src[0]})")
        direct(*src)
        ctx.chain("} else {")
        tile()
        ctx.close()

    def pack_a(fn: str, base: str, ld: str) -> None:
        ctx.open(f"for (int64_t {i} = 0; {i} < {M}; ++{i})")
        ctx.line(f"{fn}((uint16_t*)({pa} + {i} * {K2}), {base} + {i} * {ld}, {K}, {2 * K2});")
        ctx.close()

    # an in-place A with whole pairs (K even) is read straight from the tensor (run-time row
    # stride: no copy); otherwise its rows are copied (odd K: zero-padded) or packed from the tile
    direct_a = srcs[0] is not None and K % 2 == 0
    if direct_a:
        ctx.open(f"if (!{srcs[0][0]})")
        pack_a("tl_bf16_a_row", a, str(K))
        ctx.close()
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
            ctx.open(f"for (int64_t {kk} = {lo}; {kk} < {hi}; ++{kk})")
            for col0, count, vecs in groups:
                w = vecs * L
                ctx.open(f"for (int64_t {q} = {col0}; {q} < {col0 + count * w}; {q} += {w})")
                for v in range(vecs):
                    col = f"{q} + {v * L}"
                    r1 = "0" if last_k else f"{base} + (2 * {kk} + 1) * {ld} + {col}"
                    n = f"({col} + 16 <= {N} ? 16 : {N} - ({col}))" if tail else "16"
                    ctx.line(f"{fn}({pk} + {q} * {K2} + {kk} * {w} + {v * L}, "
                             f"{base} + 2 * {kk} * {ld} + {col}, {r1}, {n});")
                ctx.close()
            ctx.close()

    either(srcs[1], lambda p, ld: pack_b("tl_bf16_b_pairs_h", p, ld), lambda: pack_b("tl_bf16_b_pairs", b, str(N)))

    def fn(rows: int, vecs: int, masked: bool, direct: bool) -> str:
        return ctx.add_asm(gemm_bf16.function(rows, vecs, K2, None if direct else 4 * K2, 4 * vecs * L, 4 * N,
                                              acc is not None, tail if masked else 0))

    def call(rows: int, vecs: int, masked: bool, i_: str, j_: str) -> None:
        c0 = f"{acc} + ({i_}) * {N} + ({j_})" if acc is not None else "(const float*)0"
        rest = f"{pk} + ({j_}) * {K2}, {c0}, {out} + ({i_}) * {N} + ({j_})"
        if direct[0]:
            p, ld = srcs[0]
            ctx.line(f"{fn(rows, vecs, masked, True)}({p} + ({i_}) * ({ld}), {rest}, 2 * ({ld}));")
        else:
            ctx.line(f"{fn(rows, vecs, masked, False)}({pa} + ({i_}) * {K2}, {rest});")

    Mm, em = M // mr * mr, M % mr

    def panel_run(col0: int, count: int, vecs: int, masked: bool) -> None:
        if count == 0:
            return
        j = ctx.fresh("j")
        w = vecs * L
        if count > 1:
            ctx.open(f"for (int64_t {j} = {col0}; {j} < {col0 + count * w}; {j} += {w})")
        else:
            ctx.open("")
            ctx.line(f"const int64_t {j} = {col0};")
        if Mm:
            ctx.open(f"for (int64_t {i} = 0; {i} < {Mm}; {i} += {mr})")
            call(mr, vecs, masked, i, j)
            ctx.close()
        if em:
            call(em, vecs, masked, str(Mm), j)
        ctx.close()

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
        ctx.open(f"if ({srcs[0][0]})")
        direct[0] = True
        runs()
        direct[0] = False
        ctx.chain("} else {")
        runs()
        ctx.close()
    else:
        runs()
    return N
