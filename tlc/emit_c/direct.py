"""Direct tensor access for ``fused`` loops (an emitter fast path, no IR change).

A ``load`` whose only use is one ``fused`` op of the same block (same shape, no mask, from a
tensor parameter the kernel never writes) is *absorbed*: it is not emitted at its own place.
A ``store`` of a fused output (the output's only use, no mask, same shape) that follows the
fused op with no load/store/for/if in between, and whose view is already computed, is absorbed
too. The fused op is then emitted as::

    if (every absorbed tile is inside its tensor && every absorbed tensor has inner stride 1)
        lane loop reading/writing the tensors directly (one memory pass per byte)
    else
        the absorbed loads (into their planned workspace buffers), the usual lane loop,
        the absorbed stores   -- exactly the code emitted without this fast path

Both branches compute identical lane values (same lane expressions; conversions at the memory
boundary are the same tl_ld_*/tl_st_* row conversions the load/store fast paths use), so
results are bit-identical. Moving a read-only load later and a store earlier past pure ops does
not change what any load observes (a load of a written tensor is never absorbed, and a store
never moves past a load, store or region op). Aliasing inputs and outputs are refused by the
runtime.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tlc.lower import ir
from tlc.lower.dtypes import DType

# tensor dtype -> lane kind of the tile it loads/stores (the memory.py vector row table's keys)
_KIND = {DType.float32: "f", DType.float16: "f", DType.bfloat16: "f", DType.int32: "i", DType.int64: "l"}


@dataclass
class Plan:
    loads: list[ir.Op] = field(default_factory=list)      # absorbed loads (operands of the fused op)
    stores: dict[int, ir.Op] = field(default_factory=dict)  # output index -> absorbed store


def _root_param(e, view: ir.Op):
    v = view.operands[0] if view.opcode == "view" else view
    if v.opcode != "arg":
        return None
    i = v.attr("index")
    params = getattr(e.k, "params", None) or ()
    return params[i] if i < len(params) else None


def _tensor_ok(tensor_op: ir.Op, tile_dtype: DType) -> bool:
    tt = tensor_op.type
    if not isinstance(tt, ir.TensorType) or tt.dtype not in _KIND:
        return False
    from tlc.emit_c import lanes
    return lanes.KIND.get(tile_dtype) == _KIND[tt.dtype]


def _memory_op(op: ir.Op) -> bool:
    return op.opcode in ("load", "store") or bool(op.regions)


def plan_block(e, block: ir.Block) -> None:
    """Records absorbed loads/stores of ``block``'s fused ops in ``e.direct`` / ``e.absorbed``."""
    ops = block.ops
    pos = {id(op): p for p, op in enumerate(ops)}
    uses = e.uses
    for p, f in enumerate(ops):
        if f.opcode != "fused":
            continue
        shape = tuple(f.attr("shape"))
        if not shape:
            continue
        plan = Plan()
        seen = set()
        for o in f.operands:
            if id(o) in seen:
                continue
            seen.add(id(o))
            if (o.opcode == "load" and id(o) in pos and pos[id(o)] < p
                    and not o.attr("has_mask", False) and uses.get(id(o), 0) == 1
                    and tuple(o.attr("shape")) == shape and o.operands[0].type.rank == len(shape)
                    and _tensor_ok(o.operands[0], o.type.dtype)):
                prm = _root_param(e, o.operands[0])
                if prm is not None and getattr(prm, "access", "") == "read":
                    plan.loads.append(o)
        getitems = {id(g): g for (fid, _), g in e.getitems.items() if fid == id(f)}
        for q in range(p + 1, len(ops)):
            s = ops[q]
            if s.opcode == "store":
                g = s.operands[1]
                view = s.operands[0]
                if (id(g) in getitems and not s.attr("has_mask", False) and uses.get(id(g), 0) == 1
                        and isinstance(g.type, ir.TileType) and tuple(g.type.shape) == shape
                        and isinstance(view.type, ir.TensorType) and view.type.rank == len(shape) and _tensor_ok(view, g.type.dtype)
                        and not (id(view) in pos and pos[id(view)] > p)
                        and (id(f), g.attr("index")) not in e.inplace_fused):
                    plan.stores[g.attr("index")] = s
                    continue
                break
            if _memory_op(s):
                break
        if plan.loads or plan.stores:
            e.direct[id(f)] = plan
            for o in plan.loads:
                e.absorbed.add(id(o))
            for s in plan.stores.values():
                e.absorbed.add(id(s))
