"""The ``dot`` tile op: C = A @ B (+ acc) through the target's assembly microkernel
(tlc/emit_asm) where lower_dot chose one, else register-blocked portable vector loops."""
from __future__ import annotations

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import gemm_bf16_calls, gemm_calls, lanes
from tlc.emit_c.context import Context
from tlc.emit_c.operands import tile
from tlc.emit_c.plan import Plan
from tlc.emit_c.storage import result_tile


def emit_dot(ctx: Context, plan: Plan, op: ir.Op) -> None:
    """C[i, :] = acc[i, :] (or 0), then C[i, :] += A[i, k] * B[k, :] for k ascending, TL_L
    columns per vector; float lanes use the table's fma (a true FMA on AVX2/AVX-512, a
    multiply then an add on SSE2); int lanes wrap. Rows [0, M4) x columns [0, N2) run in
    register blocks of 4 rows x 2 vectors; every element still sees the same k-ascending
    sequence of operations, so blocked and plain parts are bit-identical."""
    a, b = tile(ctx, op.operands[0]), tile(ctx, op.operands[1])
    acc = tile(ctx, op.operands[2]) if op.attr("has_acc", False) else None
    if acc is not None and id(op) in plan.inplace_dots:   # acc = dot(a, b, acc) in a loop: no copy
        out = acc
        ctx.bind(op, acc)
    else:
        out = result_tile(ctx, op)
    M, K = a.type.shape
    N = b.type.shape[1]
    kind = out.kind
    sfx, vt = lanes.SUFFIX[kind], lanes.VEC[kind]
    L = plan.lanes
    M4, N2 = M // 4 * 4, N // (2 * L) * (2 * L)

    def init(row: str, col: str, n: str) -> str:
        if acc is None:
            return lanes.SPLAT[kind].format("0")
        v = f"tl_ld_{sfx}({acc.name} + ({row}) * {N} + {col}, {n})"
        return lanes.cast(v, acc.type.dtype, out.type.dtype) if acc.kind != kind else v

    def step(c: str, av: str, bv: str) -> str:
        if kind == "f":
            return f"{c} = tl_fma({av}, {bv}, {c});"
        u = lanes.UNSIGNED[kind]
        return f"{c} = ({vt})(({u}){c} + ({u}){av} * ({u}){bv});"

    def finish(c: str) -> str:
        if out.type.dtype in (DType.float16, DType.bfloat16):
            return f"tl_v_round_{'f16' if out.type.dtype is DType.float16 else 'bf16'}({c})"
        return c

    uk = op.attr("ukernel", None)
    if uk is not None and uk[0] == "avx512bf16":   # bf16 x bf16 -> f32 (tlc/emit_asm/gemm_bf16.py)
        M4, N2 = M, gemm_bf16_calls.emit_dot(ctx, uk[1], uk[2], a.name, b.name, acc.name if acc is not None else None,
                                             out.name, M, K, N, srcs=gemm_bf16_calls.operand_srcs(ctx, plan, op))
    elif uk is not None and kind == "f" and out.type.dtype is DType.float32 and (acc is None or acc.type.dtype is DType.float32):
        family, mr, nv = uk
        bl = op.operands[1]
        bl = bl.operands[0] if bl.opcode == "reshape" else bl
        al = op.operands[0]
        al = al.operands[0] if al.opcode == "reshape" else al
        Nv = gemm_calls.emit_dot(ctx, plan, family, mr, nv, a.name, b.name, acc.name if acc is not None else None,
                                 out.name, M, K, N, b_src=ctx.dot_src_of(bl), a_src=ctx.dot_src_of(al))
        M4, N2 = M, Nv     # the generic loops below cover columns [Nv, N) only
    elif M4 and N2:
        i, j, kk = ctx.fresh("i"), ctx.fresh("j"), ctx.fresh("k")
        ctx.open(f"for (int64_t {i} = 0; {i} < {M4}; {i} += 4)")
        ctx.open(f"for (int64_t {j} = 0; {j} < {N2}; {j} += 2 * TL_L)")
        for r in range(4):
            for h in range(2):
                ctx.line(f"{vt} c{r}{h} = {init(f'{i} + {r}', f'{j} + {h} * TL_L', 'TL_L')};")
        ctx.open(f"for (int64_t {kk} = 0; {kk} < {K}; ++{kk})")
        ctx.line(f"const {vt} b0 = tl_ld_{sfx}({b.name} + {kk} * {N} + {j}, TL_L);")
        ctx.line(f"const {vt} b1 = tl_ld_{sfx}({b.name} + {kk} * {N} + {j} + TL_L, TL_L);")
        for r in range(4):
            ctx.line(f"const {vt} a{r} = {lanes.SPLAT[kind].format(f'{a.name}[({i} + {r}) * {K} + {kk}]')};")
            ctx.line(step(f"c{r}0", f"a{r}", "b0") + " " + step(f"c{r}1", f"a{r}", "b1"))
        ctx.close()
        for r in range(4):
            for h in range(2):
                ctx.line(f"tl_st_{sfx}({out.name} + ({i} + {r}) * {N} + {j} + {h} * TL_L, {finish(f'c{r}{h}')}, TL_L);")
        ctx.close()
        ctx.close()
    i, j, kk = ctx.fresh("i"), ctx.fresh("j"), ctx.fresh("k")
    ctx.open(f"for (int64_t {i} = 0; {i} < {M}; ++{i})")
    start = f"({i} < {M4} ? {N2} : 0)" if M4 and N2 else "0"
    ctx.open(f"for (int64_t {j} = {start}; {j} < {N}; {j} += TL_L)")
    ctx.line(f"const int64_t n = tl_lanes({N} - {j});")
    ctx.line(f"{vt} c = {init(i, j, 'n')};")
    ctx.open(f"for (int64_t {kk} = 0; {kk} < {K}; ++{kk})")
    av = lanes.SPLAT[kind].format(f"{a.name}[{i} * {K} + {kk}]")
    ctx.line(step("c", av, f"tl_ld_{sfx}({b.name} + {kk} * {N} + {j}, n)"))
    ctx.close()
    ctx.line(f"tl_st_{sfx}({out.name} + {i} * {N} + {j}, {finish('c')}, n);")
    ctx.close()
    ctx.close()


RULES = {"dot": emit_dot}
