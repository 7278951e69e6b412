"""Reading the C values of an op's operands from the context, and binding tuple results."""
from __future__ import annotations

from tlc.lower import ir
from tlc.emit_c.context import Context
from tlc.emit_c.plan import Plan
from tlc.emit_c.values import Tile


def scalar(ctx: Context, op: ir.Op) -> str:
    v = ctx.val(op)
    assert isinstance(v, str), (op.opcode, v)
    return v


def tile(ctx: Context, op: ir.Op) -> Tile:
    v = ctx.val(op)
    assert isinstance(v, Tile), (op.opcode, v)
    return v


def bind_results(ctx: Context, plan: Plan, op: ir.Op, results: list) -> None:
    """Binds a tuple op (for/if/fused) to its results, and each result's getitem to it."""
    ctx.bind(op, results)
    for i, r in enumerate(results):
        g = plan.getitems.get((id(op), i))
        if g is not None:
            ctx.bind(g, r)


def inplace_out(ctx: Context, plan: Plan, op: ir.Op, index: int):
    """The carried tile output ``index`` of fused ``op`` writes over (plan.inplace_fused), or None."""
    arg = plan.inplace_fused.get((id(op), index))
    return ctx.val(arg) if arg is not None else None
