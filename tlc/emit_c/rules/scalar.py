"""Rules of the scalar ops (constants, program ids, tensor extents, item) and the scalar form of
elementwise ops (one C expression; rules/elementwise.py dispatches scalar results here)."""
from __future__ import annotations

from tlc.lower import ir
from tlc.emit_c import lanes
from tlc.emit_c.context import Context
from tlc.emit_c.operands import scalar, tile
from tlc.emit_c.plan import Plan


def emit_const(ctx: Context, plan: Plan, op: ir.Op) -> None:
    name = ctx.fresh()
    kind = lanes.KIND[op.type.dtype]
    ctx.line(f"const {lanes.SCALAR_C[kind]} {name} = {lanes.c_const(op.attr('value'), op.type.dtype)};")
    ctx.bind(op, name)


def emit_program_id(ctx: Context, plan: Plan, op: ir.Op) -> None:
    ctx.bind(op, f"pid{op.attr('axis')}")


def emit_num_programs(ctx: Context, plan: Plan, op: ir.Op) -> None:
    ctx.bind(op, f"g{op.attr('axis')}")


def emit_dim(ctx: Context, plan: Plan, op: ir.Op) -> None:
    t = ctx.val(op.operands[0])
    a = op.attr("axis")
    name = ctx.fresh()
    ctx.line(f"const int64_t {name} = {t.shape[a]} - {t.off[a]};")
    ctx.bind(op, name)


def emit_item(ctx: Context, plan: Plan, op: ir.Op) -> None:
    src = tile(ctx, op.operands[0])
    kind = lanes.KIND[op.type.dtype]
    name = ctx.fresh()
    v = f"({src.name}[0] != 0)" if kind == "m" else f"{src.name}[0]"
    ctx.line(f"const {lanes.SCALAR_C[kind]} {name} = {v};")
    ctx.bind(op, name)


def scalar_op(ctx: Context, plan: Plan, op: ir.Op) -> None:
    """An elementwise op on scalars."""
    operands = [(scalar(ctx, o), o.type.dtype) for o in op.operands]
    if (ctx.grid and op.opcode in ("floordiv", "mod", "truncdiv")
            and lanes.KIND[operands[1][1]] in ("i", "l")):
        # a grid rule dividing by zero is an error of the launch (the grid function's status
        # 2, see tl/bundle_abi.h), not an empty grid: kernels define x // 0 as 0
        ctx.line(f"if (({operands[1][0]}) == 0) return 2;")
    if op.opcode == "cast":
        expr = lanes.scalar_expr("cast", operands, op.attr("dtype"))
    else:
        expr = lanes.scalar_expr(op.opcode, operands, op.type.dtype)
    name = ctx.fresh()
    ctx.line(f"const {lanes.SCALAR_C[lanes.KIND[op.type.dtype]]} {name} = {expr};")
    ctx.bind(op, name)


RULES = {"const": emit_const, "program_id": emit_program_id, "num_programs": emit_num_programs,
         "dim": emit_dim, "item": emit_item}
