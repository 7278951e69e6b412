"""Rules of structured control flow: runtime ``for`` (carried values in workspace tiles, scalar
locals, or vector locals where the plan keeps a carried tile in registers), ``if``, ``getitem``
of their tuple results; ``yield`` and block arguments are handled by their parents."""
from __future__ import annotations

from tlc.lower import ir
from tlc.emit_c import lanes
from tlc.emit_c.context import Context
from tlc.emit_c.operands import bind_results, scalar, tile
from tlc.emit_c.plan import Plan, body_of
from tlc.emit_c.storage import (assign, buf_offset, copy_tile, new_tile, reg_transfer, tuple_result)
from tlc.emit_c.values import RegTile, Tile, elem_bytes, numel


def _yield_into(ctx: Context, plan: Plan, block: ir.Block, targets: list) -> None:
    if not targets:
        return
    y = block.ops[-1]
    assert y.opcode == "yield", y.opcode
    vals = [ctx.val(v) for v in y.operands]
    # two-phase when a yielded value is another target (swaps): stage through temps
    staged = []
    for i, v in enumerate(vals):
        clash = any(v is t or (isinstance(v, Tile) and isinstance(t, Tile) and v.offset == t.offset)
                    for j, t in enumerate(targets) if j != i)
        if clash:
            if isinstance(v, Tile):
                tmp = new_tile(ctx, v.type, ctx.alloc(numel(v.type.shape) * elem_bytes(v.type.dtype)))
                copy_tile(ctx, tmp, v)
            else:
                tmp = ctx.fresh()
                ctx.line(f"const {lanes.SCALAR_C[lanes.KIND[y.operands[i].type.dtype]]} {tmp} = {v};")
            v = tmp
        staged.append(v)
    for t, v in zip(targets, staged):
        assign(ctx, plan, t, v)


def emit_for(ctx: Context, plan: Plan, op: ir.Op) -> None:
    lo, hi, step, *inits = op.operands
    body = op.regions[0]
    iv_arg, *carried_args = body.args
    carried, spill = [], {}
    in_regs = plan.reg_carried[id(op)]
    for i, (init, arg) in enumerate(zip(inits, carried_args)):
        if isinstance(arg.type, ir.TileType):
            src = arg if arg.attr("buf", None) is not None else op
            t = new_tile(ctx, arg.type, buf_offset(ctx, src, arg.type, None if src is arg else i))
            if i in in_regs:
                shape = arg.type.shape
                r = RegTile(ctx.fresh("r"), arg.type, numel(shape[:-1]), -(-shape[-1] // plan.lanes))
                ctx.line(f"{lanes.VEC[r.kind]} "
                         f"{', '.join(r.reg(0, v) for v in range(r.rows * r.vpr))};")
                reg_transfer(ctx, plan, r, tile(ctx, init), load=True)
                spill[i] = t
                carried.append(r)
                continue
            copy_tile(ctx, t, tile(ctx, init))
            carried.append(t)
        else:
            name = ctx.fresh("c")
            ctx.line(f"{lanes.SCALAR_C[lanes.KIND[arg.type.dtype]]} {name} = {scalar(ctx, init)};")
            carried.append(name)
    iv = ctx.fresh("i")
    s, h = scalar(ctx, step), scalar(ctx, hi)
    st = step.attr("value", None) if step.opcode == "const" else None
    cond = f"{iv} < {h}" if st is not None and st > 0 else (
        f"{iv} > {h}" if st is not None and st < 0 else f"({s} > 0 ? {iv} < {h} : {iv} > {h})")
    ctx.open(f"for (int64_t {iv} = {scalar(ctx, lo)}; {cond}; {iv} += {s})")
    ctx.enter_loop()
    ctx.bind(iv_arg, iv)
    for arg, c in zip(carried_args, carried):
        ctx.bind(arg, c)
    ctx.block(plan, body_of(body))
    _yield_into(ctx, plan, body, carried)
    ctx.leave_loop()
    ctx.close()
    for i, t in spill.items():
        reg_transfer(ctx, plan, carried[i], t, load=False)
        carried[i] = t
    bind_results(ctx, plan, op, carried)


def emit_if(ctx: Context, plan: Plan, op: ir.Op) -> None:
    results = [tuple_result(ctx, plan, op, i, t) for i, t in enumerate(op.type.types)]
    ctx.open(f"if ({scalar(ctx, op.operands[0])})")
    for n, region in enumerate(op.regions):
        if n == 1:
            ctx.chain("} else {")
        ctx.block(plan, body_of(region))
        _yield_into(ctx, plan, region, results)
    ctx.close()
    bind_results(ctx, plan, op, results)


def emit_getitem(ctx: Context, plan: Plan, op: ir.Op) -> None:
    if not ctx.bound(op):
        ctx.bind(op, ctx.val(op.operands[0])[op.attr("index")])


def emit_yield(ctx: Context, plan: Plan, op: ir.Op) -> None:
    raise AssertionError("yield handled by its parent")


def emit_arg(ctx: Context, plan: Plan, op: ir.Op) -> None:
    raise AssertionError("block arguments are bound by their parent op or function")


RULES = {"for": emit_for, "if": emit_if, "getitem": emit_getitem, "yield": emit_yield, "arg": emit_arg}
