"""Rules of ``view``, ``load``, ``store`` and ``buffer``: tiles <-> strided tensors.

Without a mask each emits one runtime test "is the whole tile inside the tensor on every checked
axis"; when true a fast path copies rows (stride-1 rows with vector loads), else the in-bounds
sub-box is copied by the same rows after loads fill the tile with ``other`` (0 when absent). With
a mask, tlc/emit_c/access.py moves stride-1 rows of float32/int32/int64/float16/bfloat16 by
vectors (masked instructions where the ISA has them); otherwise (another stride at run time, int8
or bool data) a per-element path tests each checked axis and the mask lane and reads ``other`` or
drops the lane. Element addresses are formed only for valid lanes; all index math is int64 (docs/semantics.md#c-01).
Conversions: float16/bfloat16 -> float32 exact; float32 -> float16/bfloat16 round to nearest
even (NaN stays NaN); int32 -> int8 wraps; bool stores 1 for any nonzero lane.
"""
from __future__ import annotations

import math

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import access
from tlc.emit_c.context import Context
from tlc.emit_c.operands import scalar, tile
from tlc.emit_c.plan import Plan
from tlc.emit_c.storage import result_tile
from tlc.emit_c.values import TensorRef


def emit_load(ctx: Context, plan: Plan, op: ir.Op) -> None:
    t: TensorRef = ctx.val(op.operands[0])
    shape = tuple(op.attr("shape"))
    rest = list(op.operands[1:])
    mask = tile(ctx, rest.pop(0)) if op.attr("has_mask", False) else None
    other = scalar(ctx, rest.pop(0)) if op.attr("has_other", False) else "0"
    out = result_tile(ctx, op)
    checked = access.checked_axes(op, len(shape))
    if mask is not None:
        access.masked_access(ctx, plan, t, shape, out, checked, mask, other, True, lambda idx, lin, valid: (
            f"{out.name}[{lin}] = ({valid}) ? "
            f"{access.LOAD[t.dtype].format(f'{t.data}[{access.addr(t, idx)}]')} : ({out.ctype})({other});"))
        return
    fast = access.in_bounds(t, shape, checked)
    gather = plan.gather_b.get(id(op))
    # a dot's B (or a bf16 microkernel dot's A or B): in bounds with unit inner stride -> no copy
    if gather is not None:   # a multi-axis B window: row and column-chunk offset tables
        src, rt, ct = (f"{out.name}_{s}" for s in ("src", "rt", "ct"))
        ctx.line(f"const float* {src} = 0; int64_t {rt}[{math.prod(shape[:gather])}]; "
                 f"int64_t {ct}[{math.prod(shape[gather:]) // plan.lanes}];")
        ctx.open(f"if (({fast}) && {t.stride[-1]} == 1)")
        ctx.line(f"{src} = {t.data} + {access.addr(t, ['0'] * len(shape))};")
        for tab, dims, step in ((rt, range(gather), None), (ct, range(gather, len(shape)), plan.lanes)):
            n = ctx.fresh("n")
            ctx.line(f"int64_t {n} = 0;")
            idx = []
            for a in dims:
                i = ctx.fresh("i")
                inc = step if a == len(shape) - 1 else 1
                ctx.open(f"for (int64_t {i} = 0; {i} < {shape[a]}; {i} += {inc})")
                idx.append(f"{i} * {t.stride[a]}")
            ctx.line(f"{tab}[{n}++] = {' + '.join(idx)};")
            for _ in dims:
                ctx.close()
        ctx.chain(f"}} else if ({fast}) {{")
        ctx.set_dot_src(op, (src, "0", rt, ct))
    elif id(op) in plan.dot_direct or id(op) in plan.bf16_direct:
        src, ld = f"{out.name}_src", f"{out.name}_ld"
        ctx.line(f"const {'uint16_t' if t.dtype is DType.bfloat16 else 'float'}* {src} = 0; int64_t {ld} = 0;")
        ctx.open(f"if (({fast}) && {t.stride[-1]} == 1)")
        ctx.line(f"{src} = {t.data} + {access.addr(t, ['0'] * len(shape))}; {ld} = {t.stride[-2]};")
        ctx.chain(f"}} else if ({fast}) {{")
        ctx.set_dot_src(op, (src, ld))
    else:
        ctx.open(f"if ({fast})")
    access.fast_then_edges(ctx, plan, t, shape, out, checked, load=True, fill=f"({out.ctype})({other})")


def emit_store(ctx: Context, plan: Plan, op: ir.Op) -> None:
    t: TensorRef = ctx.val(op.operands[0])
    val = tile(ctx, op.operands[1]) if isinstance(op.operands[1].type, ir.TileType) else None
    if val is None:   # a scalar stored to a 0-d view
        ctx.line(f"{t.data}[{access.addr(t, ['0'] * len(t.off))}] = "
                 f"{access.STORE[t.dtype].format(scalar(ctx, op.operands[1]))};")
        return
    shape = tuple(val.type.shape)
    mask = tile(ctx, op.operands[2]) if op.attr("has_mask", False) else None
    checked = access.checked_axes(op, len(shape))
    if mask is not None:
        access.masked_access(ctx, plan, t, shape, val, checked, mask, None, False, lambda idx, lin, valid: (
            f"if ({valid}) {t.data}[{access.addr(t, idx)}] = {access.STORE[t.dtype].format(f'{val.name}[{lin}]')};"))
        return
    ctx.open(f"if ({access.in_bounds(t, shape, checked)})")
    access.fast_then_edges(ctx, plan, t, shape, val, checked, load=False)


def emit_view(ctx: Context, plan: Plan, op: ir.Op) -> None:
    base = ctx.val(op.operands[0])
    offs = []
    for a, o in enumerate(op.operands[1:]):
        name = ctx.fresh("o")
        ctx.line(f"const int64_t {name} = {base.off[a]} + (int64_t)({scalar(ctx, o)});")
        offs.append(name)
    ctx.bind(op, TensorRef(base.dtype, base.data, base.shape, base.stride, offs))


def emit_buffer(ctx: Context, plan: Plan, op: ir.Op) -> None:
    """Memory planning's record of a slot: nothing to emit."""


RULES = {"view": emit_view, "load": emit_load, "store": emit_store, "buffer": emit_buffer}
