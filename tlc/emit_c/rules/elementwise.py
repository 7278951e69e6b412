"""Rules of the elementwise ops, scalar or tile (a scalar op is one C expression,
rules/scalar.py; a tile op a lane loop, tlc/emit_c/loops.py), of ``fused`` (one lane loop over a
region of elementwise ops, reading and writing tensors directly where the plan absorbed its
loads and stores: tlc/emit_c/direct.py) and of the tile constructors splat, broadcast, full
and arange."""
from __future__ import annotations

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import access, lanes
from tlc.emit_c.context import Context
from tlc.emit_c.loops import lane_loop
from tlc.emit_c.operands import bind_results, inplace_out, scalar
from tlc.emit_c.plan import ELEMENTWISE, Plan
from tlc.emit_c.rules.memory import emit_load, emit_store
from tlc.emit_c.rules.scalar import scalar_op
from tlc.emit_c.storage import result_tile, tuple_result
from tlc.emit_c.values import numel


def _lane_stmt(ctx: Context, op: ir.Op, operands: list[tuple[str, DType]]) -> str:
    dt = op.type.dtype if not isinstance(op.type, ir.TupleType) else None
    if op.opcode == "const":
        kind = lanes.KIND[op.type.dtype]
        expr = lanes.SPLAT[kind].format(lanes.c_const(op.attr("value"), op.type.dtype))
    elif op.opcode == "cast":
        expr = lanes.lane_expr("cast", operands, op.attr("dtype"))
    else:
        expr = lanes.lane_expr(op.opcode, operands, dt)
    name = ctx.fresh("l")
    ctx.line(f"const {lanes.VEC[lanes.KIND[op.type.dtype]]} {name} = {expr};")
    return name


def emit_fused(ctx: Context, plan: Plan, op: ir.Op) -> None:
    body = op.regions[0]
    shape = tuple(op.attr("shape"))
    absorb = plan.direct.get(id(op))
    if absorb is not None:
        return _emit_fused_direct(ctx, plan, op, absorb)
    inputs = [(ctx.val(o), o.type.dtype) for o in op.operands]
    outs = [inplace_out(ctx, plan, op, i) or tuple_result(ctx, plan, op, i, t) for i, t in enumerate(op.type.types)]
    lane_loop(ctx, plan, shape, inputs, outs, _fused_gen(ctx, plan, body))
    bind_results(ctx, plan, op, outs)


def _emit_fused_direct(ctx: Context, plan: Plan, op: ir.Op, absorb) -> None:
    """See tlc.emit_c.direct: a runtime test picks direct tensor access or the buffered path."""
    body = op.regions[0]
    shape = tuple(op.attr("shape"))
    absorbed_out = set(absorb.stores)
    outs = [None if i in absorbed_out else (inplace_out(ctx, plan, op, i) or tuple_result(ctx, plan, op, i, t))
            for i, t in enumerate(op.type.types)]
    conds = []
    for ld in absorb.loads:
        t = ctx.val(ld.operands[0])
        lshape = tuple(ld.attr("shape"))
        conds.append(access.in_bounds(t, lshape, access.checked_axes(ld, len(lshape))))
        conds.append(f"{t.stride[-1]} == 1")
    for st in absorb.stores.values():
        t = ctx.val(st.operands[0])
        conds.append(access.in_bounds(t, shape, access.checked_axes(st, len(shape))))
        conds.append(f"{t.stride[-1]} == 1")
    ctx.open(f"if ({' && '.join(f'({c})' for c in conds)})")
    ld_ids = {id(ld) for ld in absorb.loads}
    inputs, din = [], {}
    for n, o in enumerate(op.operands):
        if id(o) in ld_ids or id(o) in absorb.lifted:
            din[n] = ctx.val((o.operands[0] if id(o) in absorb.lifted else o).operands[0])
            inputs.append((None, o.type.dtype))
        else:
            inputs.append((ctx.val(o), o.type.dtype))
    dout = {i: ctx.val(st.operands[0]) for i, st in absorb.stores.items()}
    lane_loop(ctx, plan, shape, inputs, [o for o in outs], _fused_gen(ctx, plan, body), direct_in=din, direct_out=dout)
    ctx.chain("} else {")
    for ld in absorb.loads:
        emit_load(ctx, plan, ld)
    for rs in absorb.lifted.values():
        ctx.op(plan, rs)
    inputs = [(ctx.val(o), o.type.dtype) for o in op.operands]
    buffered = [o if o is not None else tuple_result(ctx, plan, op, i, t) for i, (o, t) in enumerate(zip(outs, op.type.types))]
    lane_loop(ctx, plan, shape, inputs, buffered, _fused_gen(ctx, plan, body))
    bind_results(ctx, plan, op, buffered)
    for st in absorb.stores.values():
        emit_store(ctx, plan, st)
    ctx.close()
    bind_results(ctx, plan, op, outs)


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


def _fused_gen(ctx: Context, plan: Plan, body: ir.Block):
    """The lane-body generator of a fused op's region (shared by both emission paths)."""

    def gen(lane_names):
        local = {id(a): (n, a.type.dtype) for a, n in zip(body.args, lane_names)}
        body_ops: dict[int, ir.Op] = {}
        for b in body.ops:
            if b.opcode == "yield":
                return [local[id(v)][0] if id(v) in local else
                        lanes.SPLAT[lanes.KIND[v.type.dtype]].format(scalar(ctx, v)) for v in b.operands]
            ops = []
            for o in b.operands:
                if id(o) in local:
                    ops.append(local[id(o)])
                else:   # a scalar defined outside the region
                    ops.append((lanes.SPLAT[lanes.KIND[o.type.dtype]].format(scalar(ctx, o)), o.type.dtype))
            dt = b.type.dtype
            body_ops[id(b)] = b
            mm = _min_max(b, body_ops)
            if mm is not None:   # where(a > b, a, b) and kin: one maxps/minps on x86
                name = ctx.fresh("l")
                ctx.line(f"const tl_vf {name} = {mm[0]}({ops[mm[1]][0]}, {ops[mm[2]][0]});")
                local[id(b)] = (name, dt)
                continue
            local[id(b)] = (_lane_stmt(ctx, b, ops), dt)
        raise AssertionError("fused body without yield")

    return gen


def _elementwise(ctx: Context, plan: Plan, op: ir.Op) -> None:
    if isinstance(op.type, ir.ScalarType):
        return scalar_op(ctx, plan, op)
    inputs = [(ctx.val(o), o.type.dtype) for o in op.operands]
    out = result_tile(ctx, op)
    lane_loop(ctx, plan, op.type.shape, inputs, [out],
              lambda ln: [_lane_stmt(ctx, op, list(zip(ln, [d for _, d in inputs])))])
    return None


def emit_splat(ctx: Context, plan: Plan, op: ir.Op) -> None:
    """splat and broadcast."""
    src = op.operands[0]
    out = result_tile(ctx, op)
    lane_loop(ctx, plan, op.type.shape, [(ctx.val(src), src.type.dtype)], [out], lambda ln: [ln[0]])


def emit_full(ctx: Context, plan: Plan, op: ir.Op) -> None:
    out = result_tile(ctx, op)
    dt = op.type.dtype
    c = lanes.c_const(op.attr("value"), dt)
    if lanes.KIND[dt] == "f" and dt is not DType.float32:   # the value rounded to the dtype
        c = f"(tl_v_round_{'f16' if dt is DType.float16 else 'bf16'}(tl_splat_f({c})))[0]"
    lane_loop(ctx, plan, op.type.shape, [(c, dt)], [out], lambda ln: [ln[0]])


def emit_arange(ctx: Context, plan: Plan, op: ir.Op) -> None:
    out = result_tile(ctx, op)
    i = ctx.fresh("i")
    ctx.line(f"for (int64_t {i} = 0; {i} < {numel(op.type.shape)}; ++{i}) "
             f"{out.name}[{i}] = (int32_t)({op.attr('start')} + {i});")


RULES = {**{oc: _elementwise for oc in sorted(ELEMENTWISE)}, "fused": emit_fused, "splat": emit_splat,
         "broadcast": emit_splat, "full": emit_full, "arange": emit_arange}
