"""Rules of the layout ops: reshape (an alias of its source's buffer unless planned elsewhere) and trans."""
from __future__ import annotations

from tlc.lower import ir
from tlc.emit_c import lanes
from tlc.emit_c.context import Context
from tlc.emit_c.operands import tile
from tlc.emit_c.plan import Plan
from tlc.emit_c.storage import copy_tile, result_tile
from tlc.emit_c.values import Tile, numel
from tlc.emit_c.loops import dense_strides


def emit_reshape(ctx: Context, plan: Plan, op: ir.Op) -> None:
    src = tile(ctx, op.operands[0])
    if op.attr("buf", None) is None:
        ctx.bind(op, Tile(src.name, src.offset, op.type))
    else:
        copy_tile(ctx, result_tile(ctx, op), src)


def emit_trans(ctx: Context, plan: Plan, op: ir.Op) -> None:
    src = tile(ctx, op.operands[0])
    out = result_tile(ctx, op)
    perm = op.attr("perm")
    oshape = op.type.shape
    sst = dense_strides(src.type.shape)
    idx = []
    for s in oshape:
        i = ctx.fresh("i")
        ctx.open(f"for (int64_t {i} = 0; {i} < {s}; ++{i})")
        idx.append(i)
    ost = dense_strides(oshape)
    o = " + ".join(f"{i} * {st}" for i, st in zip(idx, ost)) or "0"
    s_ = " + ".join(f"{idx[a]} * {sst[perm[a]]}" for a in range(len(oshape))) or "0"
    ctx.line(f"{out.name}[{o}] = {src.name}[{s_}];")
    for _ in idx:
        ctx.close()


RULES = {"reshape": emit_reshape, "trans": emit_trans}
