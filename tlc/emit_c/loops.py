"""Lane loop nests: outer C loops over the non-vector axes, an inner vector loop over the
collapsed trailing axes with TL_L lanes; the last partial vector goes through tl_ld_*/tl_st_*
(zero-filled lane arrays) so body and tail run the same vector code and nothing past a buffer is
touched. Used by the elementwise rules (fused ops, lone elementwise tile ops, splat, broadcast,
full)."""
from __future__ import annotations

import itertools

from tlc.lower.dtypes import DType
from tlc.emit_c import lanes
from tlc.emit_c.access import VEC_ROW
from tlc.emit_c.context import Context
from tlc.emit_c.plan import Plan
from tlc.emit_c.values import STORAGE_C, RegTile, Tile, numel


# lane loops inside a runtime for loop prefetch their direct tensor rows this many bytes ahead
# (for writing on output rows): a row loop streams one row per program. Measured at 4096^2, one
# core: row_sum read 31 -> ~44 GB/s (AMD EPYC; 4 KB ahead: less gain, 16 KB: less); on a Xeon
# softmax +15% (write prefetch), log_softmax / layer_norm / rms_norm +25-50% (the loops that
# carry no tile). Prefetching past the tensor's end is harmless (a prefetch never faults)
PREFETCH_BYTES = 8192


def dense_strides(shape) -> list[int]:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return out[::-1]


def lane_loop(ctx: Context, plan: Plan, shape, inputs, outputs: list, body, direct_in=None,
              direct_out=None) -> None:
    """inputs: (Tile | RegTile | scalar C name, dtype); body(lane_names) -> output lane
    expressions. direct_in / direct_out: {input or output index: TensorRef} read/written straight
    from/to the tensor (full iteration shape, whole tile in bounds, inner stride 1: the caller's
    runtime test); then only the last axis is vectorised (k = 1). With a RegTile input or output
    (its shape is the iteration shape) only the last axis is vectorised too and every loop is
    unrolled here, so each vector local is named by a constant."""
    direct_in, direct_out = direct_in or {}, direct_out or {}
    shape = tuple(shape)
    R = len(shape)
    in_regs = any(isinstance(v, RegTile) for v, _ in inputs) or any(isinstance(o, RegTile) for o in outputs)
    padded = []
    for v, _ in inputs:
        if isinstance(v, (Tile, RegTile)):
            s = tuple(v.type.shape)
            padded.append((1,) * (R - len(s)) + s)
        else:
            padded.append(None)
    for n in direct_in:
        padded[n] = shape
    k = 0
    for cand in (range(min(R, 1), 0, -1) if direct_in or direct_out or in_regs else range(R, 0, -1)):
        ok = all(p is None or all(p[a] == shape[a] for a in range(R - cand, R))
                 or all(p[a] == 1 for a in range(R - cand, R)) for p in padded)
        if ok:
            k = cand
            break
    assert not (direct_in or direct_out or in_regs) or k == 1, "direct tensor access needs k == 1"
    inner = numel(shape[R - k:])
    full = [p is not None and all(p[a] == shape[a] for a in range(R - k, R)) and
            not (all(p[a] == 1 for a in range(R - k, R)) and inner == 1) for p in padded]
    ctx.scope()
    lane_names = [None] * len(inputs)
    for n, (v, dt) in enumerate(inputs):
        if not isinstance(v, (Tile, RegTile)) and n not in direct_in:
            name = ctx.fresh("s")
            kind = lanes.KIND[dt]
            ctx.line(f"const {lanes.VEC[kind]} {name} = {lanes.SPLAT[kind].format(v)};")
            lane_names[n] = name
    idx: list[str] = []
    j = ""

    def offset(p) -> str:
        st = dense_strides(p)
        terms = [f"{idx[a]} * {st[a]}" for a in range(R - k) if p[a] != 1]
        return " + ".join(terms) if terms else "0"

    def row_pointers() -> dict:
        rows = {}
        for key, t in [*((("i", n), t) for n, t in direct_in.items()),
                       *((("o", n), t) for n, t in direct_out.items())]:
            name = ctx.fresh("p")
            lead = R - len(t.off)   # a lower-rank row (direct.py: lifted by leading axes of size 1)
            terms = [f"({t.off[a - lead]} + {idx[a]}) * {t.stride[a - lead]}" for a in range(lead, R - 1)]
            terms.append(f"{t.off[-1]}")
            ctx.line(f"{'const ' if key[0] == 'i' else ''}{STORAGE_C[t.dtype]}* const {name} = {t.data} + "
                     f"{' + '.join(terms)};")
            rows[key] = (name, t)
        return rows

    def broadcast(n: int) -> bool:   # a tile input read as one element splat over the lanes
        return isinstance(inputs[n][0], Tile) and not full[n] and n not in direct_in

    def prefetch(pname: str, t, reg_v, write: int) -> None:
        """A prefetch PREFETCH_BYTES ahead on a direct row of a lane loop inside a runtime for:
        one per 64-byte line in unrolled steps (reg_v), one per vector of at least 64 bytes in
        C loops (narrower vectors: none, not measured)."""
        esize = {DType.float16: 2, DType.bfloat16: 2, DType.int64: 8}.get(t.dtype, 4)
        if (reg_v is not None and reg_v * plan.lanes * esize % 64 == 0
                or reg_v is None and ctx.loops > 0 and plan.lanes * esize >= 64):
            ctx.line(f"__builtin_prefetch((const char*)({pname} + {j}) + {PREFETCH_BYTES}, {write});")

    def step(rows, reg_row=None, reg_v=None) -> None:
        """One vector of lanes at j (reg_row / reg_v: the RegTile local of an unrolled step,
        whose broadcast inputs the row scope has already splatted)."""
        for n, (v, dt) in enumerate(inputs):
            if (not isinstance(v, (Tile, RegTile)) and n not in direct_in) or (reg_row is not None and broadcast(n)):
                continue
            kind = lanes.KIND[dt]
            name = ctx.fresh("x")
            if ("i", n) in rows:
                pname, t = rows[("i", n)]
                expr = VEC_ROW[t.dtype][0].format(f"{pname} + {j}")
                if len(t.off) == R:   # a lifted lower-rank row is read again by every row: cached
                    prefetch(pname, t, reg_v, 0)
            elif isinstance(v, RegTile):
                expr = lanes.from_memory(v.reg(reg_row, reg_v), dt)
            elif full[n]:
                expr = lanes.from_memory(f"tl_ld_{lanes.SUFFIX[kind]}({v.name} + {offset(padded[n])} + {j}, n)", dt)
            else:
                expr = lanes.SPLAT[kind].format(f"{v.name}[{offset(padded[n])}]")
            ctx.line(f"const {lanes.VEC[kind]} {name} = {expr};")
            lane_names[n] = name
        results = body(lane_names)
        for on, (out, expr) in enumerate(zip(outputs, results)):
            if ("o", on) in rows:
                pname, t = rows[("o", on)]
                prefetch(pname, t, reg_v, 1)
                ctx.line(VEC_ROW[t.dtype][1].format(f"{pname} + {j}", expr) + ";")
            elif isinstance(out, RegTile):
                ctx.line(f"{out.reg(reg_row, reg_v)} = {lanes.to_memory(expr, out.type.dtype)};")
            else:
                ctx.line(f"tl_st_{lanes.SUFFIX[out.kind]}({out.name} + {offset(shape)} + {j}, "
                         f"{lanes.to_memory(expr, out.type.dtype)}, n);")

    if in_regs:
        L = plan.lanes
        idx, j = [ctx.fresh("i") for a in range(R - 1)], ctx.fresh("j")
        for row, tup in enumerate(itertools.product(*(range(shape[a]) for a in range(R - 1)))):
            ctx.scope()
            for i, c in zip(idx, tup):
                ctx.line(f"const int64_t {i} = {c};")
                ctx.line(f"(void){i};")
            rows = row_pointers()
            for n, (v, dt) in enumerate(inputs):
                if broadcast(n):
                    lane_names[n] = ctx.fresh("s")
                    ctx.line(f"const {lanes.VEC[lanes.KIND[dt]]} {lane_names[n]} = "
                             f"{lanes.SPLAT[lanes.KIND[dt]].format(f'{v.name}[{offset(padded[n])}]')};")
            for v in range(-(-inner // L)):
                ctx.scope()
                ctx.line(f"const int64_t {j} = {v * L};")
                ctx.line(f"const int64_t n = {min(L, inner - v * L)};")
                ctx.line("(void)n;")
                step(rows, row, v)
                ctx.close()
            ctx.close()
        ctx.close()
        return
    for a in range(R - k):
        idx.append(ctx.fresh("i"))
        ctx.open(f"for (int64_t {idx[a]} = 0; {idx[a]} < {shape[a]}; ++{idx[a]})")
    rows = row_pointers()
    j = ctx.fresh("j")
    ctx.open(f"for (int64_t {j} = 0; {j} < {inner}; {j} += TL_L)")
    # whole vectors only: a constant n lets tl_ld_*/tl_st_* fold to plain vector moves even when
    # the compiler does not unroll this loop (no partial-vector branch per step)
    ctx.line(f"const int64_t n = {'TL_L' if inner % plan.lanes == 0 else f'tl_lanes({inner} - {j})'};")
    ctx.line("(void)n;")
    step(rows)
    ctx.close()
    for _ in idx:
        ctx.close()
    ctx.close()
