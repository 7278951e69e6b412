"""Where tiles live: workspace offsets (memory planning's ``buf`` attrs, else a fallback bump
allocation past the planned workspace), tile declarations, copies, and the vector locals of
register-carried tiles."""
from __future__ import annotations

from tlc.lower import ir
from tlc.emit_c import lanes
from tlc.emit_c.context import Context
from tlc.emit_c.plan import Plan
from tlc.emit_c.values import RegTile, Tile, elem_bytes, numel


def buf_offset(ctx: Context, op: ir.Op, ttype: ir.TileType, index: int | None = None) -> int:
    """The workspace offset of a tile result: its ``buf`` attr (or the getitem's, or the
    ``index``-th pair of a tuple op's ``buf``), else a fallback allocation."""
    buf = op.attr("buf", None)
    if buf is not None and index is not None:
        buf = buf[index] if isinstance(buf[0], (tuple, list)) else (buf if index == 0 else None)
    if buf is not None:
        return int(buf[0])
    return ctx.alloc(numel(ttype.shape) * elem_bytes(ttype.dtype))


def new_tile(ctx: Context, ttype: ir.TileType, offset: int) -> Tile:
    t = Tile(ctx.fresh("t"), offset, ttype)
    ctx.line(f"{t.ctype}* const {t.name} = ({t.ctype}*)(ws + {offset});")
    return t


def result_tile(ctx: Context, op: ir.Op) -> Tile:
    """Declares and binds the buffer of a tile-typed op."""
    t = new_tile(ctx, op.type, buf_offset(ctx, op, op.type))
    ctx.bind(op, t)
    return t


def tuple_result(ctx: Context, plan: Plan, op: ir.Op, index: int, ttype) -> object:
    """Storage for result ``index`` of a tuple op (for/if/fused)."""
    g = plan.getitems.get((id(op), index))
    if isinstance(ttype, ir.TileType):
        src = g if g is not None and g.attr("buf", None) is not None else op
        return new_tile(ctx, ttype, buf_offset(ctx, src, ttype, None if src is g else index))
    name = ctx.fresh()
    ctx.line(f"{lanes.SCALAR_C[lanes.KIND[ttype.dtype]]} {name};")
    return name


def copy_tile(ctx: Context, dst: Tile, src: Tile) -> None:
    """dst = src (memmove semantics); disjoint buffers (the static offsets tell) copy TL_L
    float-sized words at a time (a bit copy: plain vector loads and stores)."""
    if dst.offset == src.offset:
        return
    nbytes = numel(dst.type.shape) * elem_bytes(dst.type.dtype)
    if dst.offset + nbytes <= src.offset or src.offset + nbytes <= dst.offset:
        q, w = ctx.fresh("q"), nbytes // 4
        ctx.line(f"for (int64_t {q} = 0; {q} < {w}; {q} += TL_L) "
                 f"tl_st_f((float*){dst.name} + {q}, tl_ld_f((const float*){src.name} + {q}, tl_lanes({w} - {q})), "
                 f"tl_lanes({w} - {q}));")
    else:
        ctx.line(f"memmove({dst.name}, {src.name}, {nbytes});")


def reg_transfer(ctx: Context, plan: Plan, r: RegTile, t: Tile, load: bool) -> None:
    """r = t (load) or t = r: one vector of TL_L lanes per local, the partial last vector of
    a row through tl_ld_*/tl_st_* with its constant lane count."""
    sfx, w = lanes.SUFFIX[r.kind], r.type.shape[-1]
    for row in range(r.rows):
        for v in range(r.vpr):
            n = min(plan.lanes, w - v * plan.lanes)
            ptr = f"{t.name} + {row * w + v * plan.lanes}"
            if load:
                ctx.line(f"{r.reg(row, v)} = tl_ld_{sfx}({ptr}, {n});")
            else:
                ctx.line(f"tl_st_{sfx}({ptr}, {r.reg(row, v)}, {n});")


def assign(ctx: Context, plan: Plan, dst, src) -> None:
    if isinstance(dst, RegTile):
        if src is not dst:
            reg_transfer(ctx, plan, dst, src, load=True)
    elif isinstance(dst, Tile):
        copy_tile(ctx, dst, src)
    else:
        ctx.line(f"{dst} = {src};")
