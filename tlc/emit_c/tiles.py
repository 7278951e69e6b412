"""Tile ops: elementwise loop nests (``fused`` and lone elementwise tile ops), splat,
broadcast, full, arange, reduce, reshape, trans (``dot`` lives in dot.py).

Loop nests: outer C loops over the non-vector axes, an inner vector loop over the collapsed
trailing axes with TL_L lanes; the last partial vector goes through tl_ld_*/tl_st_* (zero-filled
lane arrays) so body and tail run the same vector code and nothing past a buffer is touched.
"""
from __future__ import annotations

import itertools

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import lanes
from tlc.emit_c.kernel import KernelEmitter, RegTile, Tile, numel

ELEMENTWISE = set(ir.ELEMENTWISE_UNARY) | set(ir.ELEMENTWISE_BINARY) | {"where", "fma", "cast"}


# lane loops inside a runtime for loop prefetch their direct tensor rows this many bytes ahead
# (for writing on output rows): a row loop streams one row per program. Measured at 4096^2, one
# core: row_sum read 31 -> ~44 GB/s (AMD EPYC; 4 KB ahead: less gain, 16 KB: less); on a Xeon
# softmax +15% (write prefetch), log_softmax / layer_norm / rms_norm +25-50% (the loops that
# carry no tile). Prefetching past the tensor's end is harmless (a prefetch never faults)
PREFETCH_BYTES = 8192


def _dense_strides(shape) -> list[int]:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= s
    return out[::-1]


def lane_loop(e: KernelEmitter, shape, inputs, outputs: list, body, direct_in=None,
              direct_out=None) -> None:
    """inputs: (Tile | RegTile | scalar C name, dtype); body(lane_names) -> output lane
    expressions. direct_in / direct_out: {input or output index: TensorRef} read/written straight
    from/to the tensor (full iteration shape, whole tile in bounds, inner stride 1: the caller's
    runtime test); then only the last axis is vectorised (k = 1). With a RegTile input or output
    (its shape is the iteration shape) only the last axis is vectorised too and every loop is
    unrolled here, so each vector local is named by a constant."""
    from tlc.emit_c.memory import _VEC_ROW
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
    e.open("")  # scope
    e.lines[-1] = e.lines[-1].replace(" {", "{")
    lane_names = [None] * len(inputs)
    for n, (v, dt) in enumerate(inputs):
        if not isinstance(v, (Tile, RegTile)) and n not in direct_in:
            name = e.fresh("s")
            kind = lanes.KIND[dt]
            e.line(f"const {lanes.VEC[kind]} {name} = {lanes.SPLAT[kind].format(v)};")
            lane_names[n] = name
    idx: list[str] = []
    j = ""

    def offset(p) -> str:
        st = _dense_strides(p)
        terms = [f"{idx[a]} * {st[a]}" for a in range(R - k) if p[a] != 1]
        return " + ".join(terms) if terms else "0"

    from tlc.emit_c.kernel import STORAGE_C

    def row_pointers() -> dict:
        rows = {}
        for key, t in [*((("i", n), t) for n, t in direct_in.items()),
                       *((("o", n), t) for n, t in direct_out.items())]:
            name = e.fresh("p")
            lead = R - len(t.off)   # a lower-rank row (direct.py: lifted by leading axes of size 1)
            terms = [f"({t.off[a - lead]} + {idx[a]}) * {t.stride[a - lead]}" for a in range(lead, R - 1)]
            terms.append(f"{t.off[-1]}")
            e.line(f"{'const ' if key[0] == 'i' else ''}{STORAGE_C[t.dtype]}* const {name} = {t.data} + "
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
        if (reg_v is not None and reg_v * e.lanes * esize % 64 == 0
                or reg_v is None and e.loops > 0 and e.lanes * esize >= 64):
            e.line(f"__builtin_prefetch((const char*)({pname} + {j}) + {PREFETCH_BYTES}, {write});")

    def step(rows, reg_row=None, reg_v=None) -> None:
        """One vector of lanes at j (reg_row / reg_v: the RegTile local of an unrolled step,
        whose broadcast inputs the row scope has already splatted)."""
        for n, (v, dt) in enumerate(inputs):
            if (not isinstance(v, (Tile, RegTile)) and n not in direct_in) or (reg_row is not None and broadcast(n)):
                continue
            kind = lanes.KIND[dt]
            name = e.fresh("x")
            if ("i", n) in rows:
                pname, t = rows[("i", n)]
                expr = _VEC_ROW[t.dtype][0].format(f"{pname} + {j}")
                if len(t.off) == R:   # a lifted lower-rank row is read again by every row: cached
                    prefetch(pname, t, reg_v, 0)
            elif isinstance(v, RegTile):
                expr = lanes.from_memory(v.reg(reg_row, reg_v), dt)
            elif full[n]:
                expr = lanes.from_memory(f"tl_ld_{lanes.SUFFIX[kind]}({v.name} + {offset(padded[n])} + {j}, n)", dt)
            else:
                expr = lanes.SPLAT[kind].format(f"{v.name}[{offset(padded[n])}]")
            e.line(f"const {lanes.VEC[kind]} {name} = {expr};")
            lane_names[n] = name
        results = body(lane_names)
        for on, (out, expr) in enumerate(zip(outputs, results)):
            if ("o", on) in rows:
                pname, t = rows[("o", on)]
                prefetch(pname, t, reg_v, 1)
                e.line(_VEC_ROW[t.dtype][1].format(f"{pname} + {j}", expr) + ";")
            elif isinstance(out, RegTile):
                e.line(f"{out.reg(reg_row, reg_v)} = {lanes.to_memory(expr, out.type.dtype)};")
            else:
                e.line(f"tl_st_{lanes.SUFFIX[out.kind]}({out.name} + {offset(shape)} + {j}, "
                       f"{lanes.to_memory(expr, out.type.dtype)}, n);")

    if in_regs:
        L = e.lanes
        idx, j = [e.fresh("i") for a in range(R - 1)], e.fresh("j")
        for row, tup in enumerate(itertools.product(*(range(shape[a]) for a in range(R - 1)))):
            e.open("")
            e.lines[-1] = e.lines[-1].replace(" {", "{")
            for i, c in zip(idx, tup):
                e.line(f"const int64_t {i} = {c};")
                e.line(f"(void){i};")
            rows = row_pointers()
            for n, (v, dt) in enumerate(inputs):
                if broadcast(n):
                    lane_names[n] = e.fresh("s")
                    e.line(f"const {lanes.VEC[lanes.KIND[dt]]} {lane_names[n]} = "
                           f"{lanes.SPLAT[lanes.KIND[dt]].format(f'{v.name}[{offset(padded[n])}]')};")
            for v in range(-(-inner // L)):
                e.open("")
                e.lines[-1] = e.lines[-1].replace(" {", "{")
                e.line(f"const int64_t {j} = {v * L};")
                e.line(f"const int64_t n = {min(L, inner - v * L)};")
                e.line("(void)n;")
                step(rows, row, v)
                e.close()
            e.close()
        e.close()
        return
    for a in range(R - k):
        idx.append(e.fresh("i"))
        e.open(f"for (int64_t {idx[a]} = 0; {idx[a]} < {shape[a]}; ++{idx[a]})")
    rows = row_pointers()
    j = e.fresh("j")
    e.open(f"for (int64_t {j} = 0; {j} < {inner}; {j} += TL_L)")
    # whole vectors only: a constant n lets tl_ld_*/tl_st_* fold to plain vector moves even when
    # the compiler does not unroll this loop (no partial-vector branch per step)
    e.line(f"const int64_t n = {'TL_L' if inner % e.lanes == 0 else f'tl_lanes({inner} - {j})'};")
    e.line("(void)n;")
    step(rows)
    e.close()
    for _ in idx:
        e.close()
    e.close()


def _lane_stmt(e: KernelEmitter, op: ir.Op, operands: list[tuple[str, DType]]) -> str:
    dt = op.type.dtype if not isinstance(op.type, ir.TupleType) else None
    if op.opcode == "const":
        kind = lanes.KIND[op.type.dtype]
        expr = lanes.SPLAT[kind].format(lanes.c_const(op.attr("value"), op.type.dtype))
    elif op.opcode == "cast":
        expr = lanes.lane_expr("cast", operands, op.attr("dtype"))
    else:
        expr = lanes.lane_expr(op.opcode, operands, dt)
    name = e.fresh("l")
    e.line(f"const {lanes.VEC[lanes.KIND[op.type.dtype]]} {name} = {expr};")
    return name


def emit_fused(e: KernelEmitter, op: ir.Op) -> None:
    body = op.regions[0]
    shape = tuple(op.attr("shape"))
    plan = e.direct.get(id(op))
    if plan is not None:
        return _emit_fused_direct(e, op, plan)
    inputs = [(e.val(o), o.type.dtype) for o in op.operands]
    outs = [e.inplace_fused.get((id(op), i)) or e.tuple_result(op, i, t) for i, t in enumerate(op.type.types)]
    lane_loop(e, shape, inputs, outs, _fused_gen(e, body))
    e._bind_results(op, outs)


def _emit_fused_direct(e: KernelEmitter, op: ir.Op, plan) -> None:
    """See tlc.emit_c.direct: a runtime test picks direct tensor access or the buffered path."""
    from tlc.emit_c import memory
    body = op.regions[0]
    shape = tuple(op.attr("shape"))
    absorbed_out = set(plan.stores)
    outs = [None if i in absorbed_out else (e.inplace_fused.get((id(op), i)) or e.tuple_result(op, i, t))
            for i, t in enumerate(op.type.types)]
    conds = []
    for ld in plan.loads:
        t = e.val(ld.operands[0])
        lshape = tuple(ld.attr("shape"))
        conds.append(memory._in_bounds(t, lshape, memory._checked(ld, len(lshape))))
        conds.append(f"{t.stride[-1]} == 1")
    for st in plan.stores.values():
        t = e.val(st.operands[0])
        conds.append(memory._in_bounds(t, shape, memory._checked(st, len(shape))))
        conds.append(f"{t.stride[-1]} == 1")
    e.open(f"if ({' && '.join(f'({c})' for c in conds)})")
    ld_ids = {id(ld) for ld in plan.loads}
    inputs, din = [], {}
    for n, o in enumerate(op.operands):
        if id(o) in ld_ids or id(o) in plan.lifted:
            din[n] = e.val((o.operands[0] if id(o) in plan.lifted else o).operands[0])
            inputs.append((None, o.type.dtype))
        else:
            inputs.append((e.val(o), o.type.dtype))
    dout = {i: e.val(st.operands[0]) for i, st in plan.stores.items()}
    lane_loop(e, shape, inputs, [o for o in outs], _fused_gen(e, body), direct_in=din, direct_out=dout)
    e.close("} else {")
    e.depth += 1
    for ld in plan.loads:
        memory.emit_load(e, ld)
    for rs in plan.lifted.values():
        e.op(rs)
    inputs = [(e.val(o), o.type.dtype) for o in op.operands]
    buffered = [o if o is not None else e.tuple_result(op, i, t) for i, (o, t) in enumerate(zip(outs, op.type.types))]
    lane_loop(e, shape, inputs, buffered, _fused_gen(e, body))
    e._bind_results(op, buffered)
    for st in plan.stores.values():
        memory.emit_store(e, st)
    e.close()
    e._bind_results(op, outs)


def _min_max(w: ir.Op, body_ops: dict) -> tuple[str, int, int] | None:
    """``where`` of float lanes on a gt/lt of its own two values, as (TL_VMAX | TL_VMIN, i, j):
    the macro applied to where's operands i and j. where(a > b, a, b) == TL_VMAX(a, b),
    where(a < b, a, b) == TL_VMIN(a, b), where(a > b, b, a) == TL_VMIN(b, a) and
    where(a < b, b, a) == TL_VMAX(b, a), bit for bit (TL_VMAX(p, q) is p > q ? p : q, q when
    unordered or equal: vmath.j2), NaN and signed zeros included. None for anything else."""
    if w.opcode != "where" or lanes.KIND.get(w.type.dtype) != "f":
        return None
    cond, x, y = w.operands
    c = body_ops.get(id(cond))
    if c is None or c.opcode not in ("gt", "lt") or lanes.KIND.get(c.operands[0].type.dtype) != "f":
        return None
    a, b = c.operands
    if x is a and y is b:
        return ("TL_VMAX" if c.opcode == "gt" else "TL_VMIN", 1, 2)
    if x is b and y is a:
        return ("TL_VMIN" if c.opcode == "gt" else "TL_VMAX", 1, 2)
    return None


def _fused_gen(e: KernelEmitter, body: ir.Block):
    """The lane-body generator of a fused op's region (shared by both emission paths)."""

    def gen(lane_names):
        local = {id(a): (n, a.type.dtype) for a, n in zip(body.args, lane_names)}
        body_ops: dict[int, ir.Op] = {}
        for b in body.ops:
            if b.opcode == "yield":
                return [local[id(v)][0] if id(v) in local else
                        lanes.SPLAT[lanes.KIND[v.type.dtype]].format(e.scalar(v)) for v in b.operands]
            ops = []
            for o in b.operands:
                if id(o) in local:
                    ops.append(local[id(o)])
                else:   # a scalar defined outside the region
                    ops.append((lanes.SPLAT[lanes.KIND[o.type.dtype]].format(e.scalar(o)), o.type.dtype))
            dt = b.type.dtype
            body_ops[id(b)] = b
            mm = _min_max(b, body_ops)
            if mm is not None:   # where(a > b, a, b) and kin: one maxps/minps on x86
                name = e.fresh("l")
                e.line(f"const tl_vf {name} = {mm[0]}({ops[mm[1]][0]}, {ops[mm[2]][0]});")
                local[id(b)] = (name, dt)
                continue
            local[id(b)] = (_lane_stmt(e, b, ops), dt)
        raise AssertionError("fused body without yield")

    return gen


def emit_tile_op(e: KernelEmitter, op: ir.Op) -> None:
    oc = op.opcode
    if oc == "fused":
        return emit_fused(e, op)
    if oc in ELEMENTWISE:
        inputs = [(e.val(o), o.type.dtype) for o in op.operands]
        out = e.result_tile(op)
        lane_loop(e, op.type.shape, inputs, [out],
                  lambda ln: [_lane_stmt(e, op, list(zip(ln, [d for _, d in inputs])))])
        return None
    if oc in ("splat", "broadcast"):
        src = op.operands[0]
        out = e.result_tile(op)
        lane_loop(e, op.type.shape, [(e.val(src), src.type.dtype)], [out], lambda ln: [ln[0]])
        return None
    if oc == "full":
        out = e.result_tile(op)
        dt = op.type.dtype
        c = lanes.c_const(op.attr("value"), dt)
        if lanes.KIND[dt] == "f" and dt is not DType.float32:   # the value rounded to the dtype
            c = f"(tl_v_round_{'f16' if dt is DType.float16 else 'bf16'}(tl_splat_f({c})))[0]"
        lane_loop(e, op.type.shape, [(c, dt)], [out], lambda ln: [ln[0]])
        return None
    if oc == "arange":
        out = e.result_tile(op)
        i = e.fresh("i")
        e.line(f"for (int64_t {i} = 0; {i} < {numel(op.type.shape)}; ++{i}) "
               f"{out.name}[{i}] = (int32_t)({op.attr('start')} + {i});")
        return None
    if oc == "reshape":
        src = e.tile(op.operands[0])
        if op.attr("buf", None) is None:
            e.names[id(op)] = Tile(src.name, src.offset, op.type)
        else:
            e.copy_tile(e.result_tile(op), src)
        return None
    if oc == "trans":
        return emit_trans(e, op)
    if oc == "reduce":
        return emit_reduce(e, op)
    if oc == "dot":
        from tlc.emit_c.dot import emit_dot
        return emit_dot(e, op)
    raise KeyError(f"C emitter has no rule for op {oc!r} of type {op.type}")


def emit_trans(e: KernelEmitter, op: ir.Op) -> None:
    src = e.tile(op.operands[0])
    out = e.result_tile(op)
    perm = op.attr("perm")
    oshape = op.type.shape
    sst = _dense_strides(src.type.shape)
    idx = []
    for s in oshape:
        i = e.fresh("i")
        e.open(f"for (int64_t {i} = 0; {i} < {s}; ++{i})")
        idx.append(i)
    ost = _dense_strides(oshape)
    o = " + ".join(f"{i} * {st}" for i, st in zip(idx, ost)) or "0"
    s_ = " + ".join(f"{idx[a]} * {sst[perm[a]]}" for a in range(len(oshape))) or "0"
    e.line(f"{out.name}[{o}] = {src.name}[{s_}];")
    for _ in idx:
        e.close()


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


def emit_reduce(e: KernelEmitter, op: ir.Op) -> None:
    """Reduces axis a of a dense tile: lanes run over the trailing (inner) axes, the reduced
    axis is walked in ascending order, so sums add in index order per output element."""
    src = e.tile(op.operands[0])
    out = e.result_tile(op)
    rop, axis = op.attr("op"), op.attr("axis")
    shape = src.type.shape
    outer, n, inner = numel(shape[:axis]), shape[axis], numel(shape[axis + 1:])
    kind = lanes.KIND[src.type.dtype]
    k = "i" if kind == "m" else kind
    sfx, vt = lanes.SUFFIX[k], lanes.VEC[k]
    if inner == 1 and n >= 2 * e.lanes:
        return _reduce_row(e, src, out, rop, outer, n, k)
    o, j, r = e.fresh("i"), e.fresh("j"), e.fresh("r")
    e.open(f"for (int64_t {o} = 0; {o} < {outer}; ++{o})")
    e.open(f"for (int64_t {j} = 0; {j} < {inner}; {j} += TL_L)")
    e.line(f"const int64_t n = tl_lanes({inner} - {j});")
    e.line(f"const {src.ctype}* const p = {src.name} + {o} * {n * inner} + {j};")
    e.line(f"{vt} acc = tl_ld_{sfx}(p, n);")
    arg = rop in _TAKE
    if arg:
        e.line("tl_vi best = tl_splat_i(0);")
    e.open(f"for (int64_t {r} = 1; {r} < {n}; ++{r})")
    e.line(f"const {vt} x = tl_ld_{sfx}(p + {r} * {inner}, n);")
    if arg:
        e.line(f"const tl_vi take = {_TAKE[rop][k].format(a='acc', x='x')};")
        e.line(f"acc = {lanes.select(k, 'take', 'x', 'acc')};")
        e.line(f"best = tl_sel_i(take, tl_splat_i((int32_t){r}), best);")
    else:
        e.line(f"acc = {_COMBINE[rop][k].format(a='acc', x='x')};")
    e.close()
    if arg:
        e.line(f"tl_st_i({out.name} + {o} * {inner} + {j}, best, n);")
    else:
        e.line(f"tl_st_{sfx}({out.name} + {o} * {inner} + {j}, acc, n);")
    e.close()
    e.close()


_SCOMB = {"sum": {"f": "{a} + {x}", "i": "(int32_t)((uint32_t){a} + (uint32_t){x})",
                  "l": "(int64_t)((uint64_t){a} + (uint64_t){x})"},
          "max": {"f": "tl_maxf({a}, {x})", "i": "({x} > {a} ? {x} : {a})", "l": "({x} > {a} ? {x} : {a})"},
          "min": {"f": "tl_minf({a}, {x})", "i": "({x} < {a} ? {x} : {a})", "l": "({x} < {a} ? {x} : {a})"}}


def _reduce_row(e: KernelEmitter, src: Tile, out: Tile, rop: str, outer: int, n: int, k: str) -> None:
    """Reduction along a contiguous row (inner == 1, n >= 2 lanes): TL_L lane-partial results
    over whole vectors (lane q sees elements q, q+L, ...), combined lane 0..L-1, then the
    n % L tail in order. max/min/argmax/argmin are exact, so equal on every variant; sums
    differ between variants in rounding order only."""
    sfx, vt, st = lanes.SUFFIX[k], lanes.VEC[k], lanes.SCALAR_C[k]
    L = e.lanes
    nv = n // L * L
    o, r, q = e.fresh("i"), e.fresh("r"), e.fresh("q")
    arg = rop in _TAKE
    e.open(f"for (int64_t {o} = 0; {o} < {outer}; ++{o})")
    e.line(f"const {src.ctype}* const p = {src.name} + {o} * {n};")
    e.line(f"{vt} acc = tl_ld_{sfx}(p, TL_L);")
    if arg:
        e.line("tl_vi best = tl_iota_i();")
    e.open(f"for (int64_t {r} = TL_L; {r} < {nv}; {r} += TL_L)")
    e.line(f"const {vt} x = tl_ld_{sfx}(p + {r}, TL_L);")
    if arg:
        e.line(f"const tl_vi take = {_TAKE[rop][k].format(a='acc', x='x')};")
        e.line(f"acc = {lanes.select(k, 'take', 'x', 'acc')};")
        e.line(f"best = tl_sel_i(take, tl_iota_i() + (int32_t){r}, best);")
    else:
        e.line(f"acc = {_COMBINE[rop][k].format(a='acc', x='x')};")
    e.close()
    e.line(f"{st} s = acc[0];")
    if arg:
        fn = "tl_arg_takes_f" if k == "f" else "tl_arg_takes_l"
        ismax = 1 if rop == "argmax" else 0
        e.line("int32_t si = best[0];")
        e.open(f"for (int {q} = 1; {q} < TL_L; ++{q})")
        e.line(f"if ({fn}(acc[{q}], best[{q}], s, si, {ismax})) {{ s = acc[{q}]; si = best[{q}]; }}")
        e.close()
        e.open(f"for (int64_t {r} = {nv}; {r} < {n}; ++{r})")
        e.line(f"if ({fn}(p[{r}], (int32_t){r}, s, si, {ismax})) {{ s = p[{r}]; si = (int32_t){r}; }}")
        e.close()
        e.line(f"{out.name}[{o}] = si;")
    else:
        e.line(f"for (int {q} = 1; {q} < TL_L; ++{q}) s = {_SCOMB[rop][k].format(a='s', x=f'acc[{q}]')};")
        e.line(f"for (int64_t {r} = {nv}; {r} < {n}; ++{r}) s = {_SCOMB[rop][k].format(a='s', x=f'p[{r}]')};")
        e.line(f"{out.name}[{o}] = s;")
    e.close()
