"""The ``reduce`` rule (sum, max, min, argmax, argmin along one axis of a dense tile)."""
from __future__ import annotations

from tlc.lower import ir
from tlc.emit_c import lanes
from tlc.emit_c.context import Context
from tlc.emit_c.operands import tile
from tlc.emit_c.plan import Plan
from tlc.emit_c.storage import result_tile
from tlc.emit_c.values import Tile, numel


_COMBINE = {
    "sum": {"f": "({a}) + ({x})", "i": "(tl_vi)((tl_vu)({a}) + (tl_vu)({x}))",
            "l": "(tl_vl)((tl_vul)({a}) + (tl_vul)({x}))"},
    "max": {"f": "tl_v_max({a}, {x})", "i": "tl_sel_i(({x}) > ({a}), {x}, {a})",
            "l": "tl_sel_l(__builtin_convertvector(({x}) > ({a}), tl_vi), {x}, {a})"},
    "min": {"f": "tl_v_min({a}, {x})", "i": "tl_sel_i(({x}) < ({a}), {x}, {a})",
            "l": "tl_sel_l(__builtin_convertvector(({x}) < ({a}), tl_vi), {x}, {a})"},
}


# argmax/argmin: does x replace the best so far (first index wins ties, first NaN wins)
_TAKE = {
    "argmax": {"f": "(({x}) > ({a})) | ((({x}) != ({x})) & (({a}) == ({a})))", "i": "(({x}) > ({a}))",
               "l": "__builtin_convertvector(({x}) > ({a}), tl_vi)"},
    "argmin": {"f": "(({x}) < ({a})) | ((({x}) != ({x})) & (({a}) == ({a})))", "i": "(({x}) < ({a}))",
               "l": "__builtin_convertvector(({x}) < ({a}), tl_vi)"},
}


def emit_reduce(ctx: Context, plan: Plan, op: ir.Op) -> None:
    """Reduces axis a of a dense tile: lanes run over the trailing (inner) axes, the reduced
    axis is walked in ascending order, so sums add in index order per output element."""
    src = tile(ctx, op.operands[0])
    out = result_tile(ctx, op)
    rop, axis = op.attr("op"), op.attr("axis")
    shape = src.type.shape
    outer, n, inner = numel(shape[:axis]), shape[axis], numel(shape[axis + 1:])
    kind = lanes.KIND[src.type.dtype]
    k = "i" if kind == "m" else kind
    sfx, vt = lanes.SUFFIX[k], lanes.VEC[k]
    if inner == 1 and n >= 2 * plan.lanes:
        return _reduce_row(ctx, plan, src, out, rop, outer, n, k)
    o, j, r = ctx.fresh("i"), ctx.fresh("j"), ctx.fresh("r")
    ctx.open(f"for (int64_t {o} = 0; {o} < {outer}; ++{o})")
    ctx.open(f"for (int64_t {j} = 0; {j} < {inner}; {j} += TL_L)")
    ctx.line(f"const int64_t n = tl_lanes({inner} - {j});")
    ctx.line(f"const {src.ctype}* const p = {src.name} + {o} * {n * inner} + {j};")
    ctx.line(f"{vt} acc = tl_ld_{sfx}(p, n);")
    arg = rop in _TAKE
    if arg:
        ctx.line("tl_vi best = tl_splat_i(0);")
    ctx.open(f"for (int64_t {r} = 1; {r} < {n}; ++{r})")
    ctx.line(f"const {vt} x = tl_ld_{sfx}(p + {r} * {inner}, n);")
    if arg:
        ctx.line(f"const tl_vi take = {_TAKE[rop][k].format(a='acc', x='x')};")
        ctx.line(f"acc = {lanes.select(k, 'take', 'x', 'acc')};")
        ctx.line(f"best = tl_sel_i(take, tl_splat_i((int32_t){r}), best);")
    else:
        ctx.line(f"acc = {_COMBINE[rop][k].format(a='acc', x='x')};")
    ctx.close()
    if arg:
        ctx.line(f"tl_st_i({out.name} + {o} * {inner} + {j}, best, n);")
    else:
        ctx.line(f"tl_st_{sfx}({out.name} + {o} * {inner} + {j}, acc, n);")
    ctx.close()
    ctx.close()


_SCOMB = {"sum": {"f": "{a} + {x}", "i": "(int32_t)((uint32_t){a} + (uint32_t){x})",
                  "l": "(int64_t)((uint64_t){a} + (uint64_t){x})"},
          "max": {"f": "tl_maxf({a}, {x})", "i": "({x} > {a} ? {x} : {a})", "l": "({x} > {a} ? {x} : {a})"},
          "min": {"f": "tl_minf({a}, {x})", "i": "({x} < {a} ? {x} : {a})", "l": "({x} < {a} ? {x} : {a})"}}


def _reduce_row(ctx: Context, plan: Plan, src: Tile, out: Tile, rop: str, outer: int, n: int, k: str) -> None:
    """Reduction along a contiguous row (inner == 1, n >= 2 lanes): TL_L lane-partial results
    over whole vectors (lane q sees elements q, q+L, ...), combined lane 0..L-1, then the
    n % L tail in order. max/min/argmax/argmin are exact, so equal on every variant; sums
    differ between variants in rounding order only."""
    sfx, vt, st = lanes.SUFFIX[k], lanes.VEC[k], lanes.SCALAR_C[k]
    L = plan.lanes
    nv = n // L * L
    o, r, q = ctx.fresh("i"), ctx.fresh("r"), ctx.fresh("q")
    arg = rop in _TAKE
    ctx.open(f"for (int64_t {o} = 0; {o} < {outer}; ++{o})")
    ctx.line(f"const {src.ctype}* const p = {src.name} + {o} * {n};")
    ctx.line(f"{vt} acc = tl_ld_{sfx}(p, TL_L);")
    if arg:
        ctx.line("tl_vi best = tl_iota_i();")
    ctx.open(f"for (int64_t {r} = TL_L; {r} < {nv}; {r} += TL_L)")
    ctx.line(f"const {vt} x = tl_ld_{sfx}(p + {r}, TL_L);")
    if arg:
        ctx.line(f"const tl_vi take = {_TAKE[rop][k].format(a='acc', x='x')};")
        ctx.line(f"acc = {lanes.select(k, 'take', 'x', 'acc')};")
        ctx.line(f"best = tl_sel_i(take, tl_iota_i() + (int32_t){r}, best);")
    else:
        ctx.line(f"acc = {_COMBINE[rop][k].format(a='acc', x='x')};")
    ctx.close()
    ctx.line(f"{st} s = acc[0];")
    if arg:
        fn = "tl_arg_takes_f" if k == "f" else "tl_arg_takes_l"
        ismax = 1 if rop == "argmax" else 0
        ctx.line("int32_t si = best[0];")
        ctx.open(f"for (int {q} = 1; {q} < TL_L; ++{q})")
        ctx.line(f"if ({fn}(acc[{q}], best[{q}], s, si, {ismax})) {{ s = acc[{q}]; si = best[{q}]; }}")
        ctx.close()
        ctx.open(f"for (int64_t {r} = {nv}; {r} < {n}; ++{r})")
        ctx.line(f"if ({fn}(p[{r}], (int32_t){r}, s, si, {ismax})) {{ s = p[{r}]; si = (int32_t){r}; }}")
        ctx.close()
        ctx.line(f"{out.name}[{o}] = si;")
    else:
        ctx.line(f"for (int {q} = 1; {q} < TL_L; ++{q}) s = {_SCOMB[rop][k].format(a='s', x=f'acc[{q}]')};")
        ctx.line(f"for (int64_t {r} = {nv}; {r} < {n}; ++{r}) s = {_SCOMB[rop][k].format(a='s', x=f'p[{r}]')};")
        ctx.line(f"{out.name}[{o}] = s;")
    ctx.close()


RULES = {"reduce": emit_reduce}
