"""Direct tensor access for ``fused`` loops (an emitter fast path, no IR change).

A ``load`` whose only use is one ``fused`` op of the same block (same shape, no mask, from a
tensor parameter the kernel never writes, or from a written one when no store or region op
lies between the load and the fused op and every store the fused op absorbs into that tensor
has the load's own view: ``e = tl.load(out + (r, c)); tl.store(out + (r, c), e * k)`` reads and
writes each vector in place) is *absorbed*: it is not emitted at its own place.
So is a lower-rank load of a read-only tensor that reaches the fused op only through a
``reshape`` adding leading axes of size 1 (``tl.load(w + (c,), (BLOCK,))[None, :]`` in a
(1, BLOCK) loop: a weight row); the reshape is absorbed with it and the lane loop reads the
tensor's row directly.
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
not change what any load observes (a load of a written tensor moves only past ops that write
no tensor, and each lane vector of it is read before the same vector is stored; a store never
moves past a load, store or region op). Aliasing inputs and outputs are refused by the
runtime.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import lanes

# tensor dtype -> lane kind of the tile it loads/stores (the access.py vector row table's keys)
_KIND = {DType.float32: "f", DType.float16: "f", DType.bfloat16: "f", DType.int32: "i", DType.int64: "l"}


@dataclass(frozen=True)
class Direct:
    """The absorbed loads and stores of one fused op."""

    loads: tuple[ir.Op, ...]                # absorbed loads (operands of the fused op)
    # absorbed reshapes (operands of the fused op) -> the lower-rank absorbed load each one lifts
    lifted: Mapping[int, ir.Op]
    stores: Mapping[int, ir.Op]             # output index -> absorbed store


@dataclass
class _Draft:
    loads: list[ir.Op] = field(default_factory=list)
    lifted: dict[int, ir.Op] = field(default_factory=dict)
    stores: dict[int, ir.Op] = field(default_factory=dict)


def _root_param(kernel: ir.Kernel, view: ir.Op):
    v = view.operands[0] if view.opcode == "view" else view
    if v.opcode != "arg":
        return None
    i = v.attr("index")
    params = getattr(kernel, "params", None) or ()
    return params[i] if i < len(params) else None


def _tensor_ok(tensor_op: ir.Op, tile_dtype: DType) -> bool:
    tt = tensor_op.type
    if not isinstance(tt, ir.TensorType) or tt.dtype not in _KIND:
        return False
    return lanes.KIND.get(tile_dtype) == _KIND[tt.dtype]


def _memory_op(op: ir.Op) -> bool:
    return op.opcode in ("load", "store") or bool(op.regions)


def _writes(op: ir.Op) -> bool:
    """Whether ``op`` may write a tensor (a store, or a region op that may hold one)."""
    return op.opcode == "store" or bool(op.regions)


def _root(view: ir.Op) -> ir.Op:
    return view.operands[0] if view.opcode == "view" else view


def _same_view(a: ir.Op, b: ir.Op) -> bool:
    """Whether views ``a`` and ``b`` are the same tensor at the same offsets (SSA operands)."""
    return a is b or (a.opcode == b.opcode == "view" and len(a.operands) == len(b.operands)
                      and all(x is y for x, y in zip(a.operands, b.operands)) and a.attrs == b.attrs)


def plan_block(kernel: ir.Kernel, block: ir.Block, uses: Mapping[int, int], getitems: Mapping,
               inplace_fused: Mapping) -> dict[int, Direct]:
    """{id(fused op): Direct} of ``block``'s fused ops that absorb loads or stores (``uses``:
    operand use counts of the kernel body; ``getitems``: (tuple op id, index) -> getitem;
    ``inplace_fused``: the (fused id, output) pairs written over a carried tile)."""
    ops = block.ops
    pos = {id(op): p for p, op in enumerate(ops)}
    found: dict[int, Direct] = {}
    for p, f in enumerate(ops):
        if f.opcode != "fused":
            continue
        shape = tuple(f.attr("shape"))
        if not shape:
            continue
        plan = _Draft()
        seen = set()
        for o in f.operands:
            if id(o) in seen:
                continue
            seen.add(id(o))
            ld = o
            if (o.opcode == "reshape" and id(o) in pos and pos[id(o)] < p and uses.get(id(o), 0) == 1
                    and tuple(o.type.shape) == shape and o.operands[0].opcode == "load"):
                ld = o.operands[0]
                lshape = tuple(ld.attr("shape"))
                if not lshape or shape != (1,) * (len(shape) - len(lshape)) + lshape:
                    continue
            else:
                lshape = shape
            if (ld.opcode == "load" and id(ld) in pos and pos[id(ld)] < p
                    and not ld.attr("has_mask", False) and uses.get(id(ld), 0) == 1
                    and tuple(ld.attr("shape")) == lshape and ld.operands[0].type.rank == len(lshape)
                    and _tensor_ok(ld.operands[0], ld.type.dtype)):
                prm = _root_param(kernel, ld.operands[0])
                if prm is not None and (getattr(prm, "access", "") == "read" or (
                        ld is o and not any(_writes(q) for q in ops[pos[id(ld)] + 1:p]))):
                    plan.loads.append(ld)
                    if ld is not o:
                        plan.lifted[id(o)] = o
        outputs = {id(g): g for (fid, _), g in getitems.items() if fid == id(f)}
        for q in range(p + 1, len(ops)):
            s = ops[q]
            if s.opcode == "store":
                g = s.operands[1]
                view = s.operands[0]
                if (id(g) in outputs and not s.attr("has_mask", False) and uses.get(id(g), 0) == 1
                        and isinstance(g.type, ir.TileType) and tuple(g.type.shape) == shape
                        and isinstance(view.type, ir.TensorType) and view.type.rank == len(shape) and _tensor_ok(view, g.type.dtype)
                        and not (id(view) in pos and pos[id(view)] > p)
                        and (id(f), g.attr("index")) not in inplace_fused):
                    plan.stores[g.attr("index")] = s
                    continue
                break
            if _memory_op(s):
                break
        # a load of a tensor the kernel writes is read in the lane loop only when the absorbed
        # stores to that tensor write exactly the elements it reads (the same view)
        plan.loads = [o for o in plan.loads
                      if getattr(_root_param(kernel, o.operands[0]), "access", "") == "read"
                      or all(_same_view(o.operands[0], s.operands[0]) for s in plan.stores.values()
                             if _root(s.operands[0]) is _root(o.operands[0]))]
        if plan.loads or plan.stores:
            found[id(f)] = Direct(tuple(plan.loads), MappingProxyType(dict(plan.lifted)),
                                  MappingProxyType(dict(plan.stores)))
    return found


def absorbed(direct: Mapping[int, Direct]) -> set[int]:
    """ids of the loads, reshapes and stores that their fused ops emit instead."""
    out: set[int] = set()
    for plan in direct.values():
        out.update(id(o) for o in plan.loads)
        out.update(id(o) for o in plan.lifted.values())
        out.update(id(s) for s in plan.stores.values())
    return out
