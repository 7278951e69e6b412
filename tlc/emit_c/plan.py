"""The emission plan: everything the C emitter decides about a kernel before it writes a line,
computed once by :func:`analyse` and frozen (the rules read it, never change it).

  uses          operand use counts of the kernel body
  getitems      (id(tuple op), index) -> its first getitem
  direct        id(fused op) -> the loads/stores it absorbs (tlc/emit_c/direct.py)
  absorbed      ids of those loads/stores/reshapes (not emitted at their own place)
  inplace_dots  dots that accumulate in their carried accumulator's buffer
  inplace_fused (id(fused op), output) -> the carried block argument whose buffer it writes
  reg_carried   id(for op) -> positions of carried tiles kept in vector locals
  dot_direct    float32 loads a microkernel dot reads in place (B packed / A copied from the tensor)
  bf16_direct   the same for the bf16 microkernel's operands
  gather_b      id(load) -> j: multi-axis B windows packed through offset tables (rows = prod(shape[:j]))
  lanes         float32 lanes of the variant (tlc/simd.py)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Callable, Mapping

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.lower.rewrite import use_counts
from tlc.emit_asm import gemm, gemm_bf16
from tlc.emit_c import direct as direct_access
from tlc.emit_c import lanes as lane_tables
from tlc.emit_c.direct import Direct
from tlc.emit_c.values import numel

ELEMENTWISE = frozenset(ir.ELEMENTWISE_UNARY) | frozenset(ir.ELEMENTWISE_BINARY) | {"where", "fma", "cast"}

# most vectors (an int64 vector counts 2) the carried tiles of one loop may keep in locals
REG_VECTORS = 24


@dataclass(frozen=True)
class Plan:
    kernel: ir.Kernel
    source_file: str
    lanes: int
    shown: Callable[[str], str]
    uses: Mapping[int, int]
    getitems: Mapping[tuple[int, int], ir.Op]
    direct: Mapping[int, Direct]
    absorbed: frozenset[int]
    inplace_dots: frozenset[int]
    inplace_fused: Mapping[tuple[int, int], ir.Op]
    reg_carried: Mapping[int, frozenset[int]]
    dot_direct: frozenset[int]
    bf16_direct: frozenset[int]
    gather_b: Mapping[int, int]


def body_of(block: ir.Block) -> ir.Block:
    """The block without its terminating yield."""
    if block.ops and block.ops[-1].opcode == "yield":
        return ir.Block(block.args, block.ops[:-1])
    return block


def _blocks(block: ir.Block):
    """``block`` and every for/if region below it, without their yields, in program order."""
    yield block
    for op in block.ops:
        if op.opcode in ("for", "if"):
            for region in op.regions:
                yield from _blocks(body_of(region))


def analyse(kernel: ir.Kernel, source_file: str, lanes: int, shown=None) -> Plan:
    uses = use_counts(kernel.body)
    getitems: dict[tuple[int, int], ir.Op] = {}
    for block in ([kernel.grid] if kernel.grid is not None else []) + [kernel.body]:
        for op in ir.walk(block):
            if op.opcode == "getitem":
                getitems.setdefault((id(op.operands[0]), op.attr("index")), op)
    inplace_dots: set[int] = set()
    inplace_fused: dict[tuple[int, int], ir.Op] = {}
    reg: dict[int, frozenset[int]] = {}
    for block in ([kernel.grid] if kernel.grid is not None else []) + [kernel.body]:
        for op in ir.walk(block):
            if op.opcode == "for":
                body = op.regions[0]
                reg[id(op)] = frozenset(reg_carried(body, body.args[1:], lanes))
                _inplace(body, body.args[1:], inplace_dots, inplace_fused)
    direct: dict[int, Direct] = {}
    roots = ([body_of(kernel.grid)] if kernel.grid is not None else []) + [kernel.body]
    for root in roots:
        for block in _blocks(root):
            direct.update(direct_access.plan_block(kernel, block, uses, getitems, inplace_fused))
    dot_direct = _dot_direct(kernel, uses)
    return Plan(kernel=kernel, source_file=source_file, lanes=lanes, shown=shown or (lambda f: f),
                uses=MappingProxyType(uses), getitems=MappingProxyType(getitems),
                direct=MappingProxyType(direct), absorbed=frozenset(direct_access.absorbed(direct)),
                inplace_dots=frozenset(inplace_dots), inplace_fused=MappingProxyType(inplace_fused),
                reg_carried=MappingProxyType(reg), dot_direct=dot_direct,
                bf16_direct=_collect_direct_loads(
                    kernel, uses, lambda op, uk: op.operands[:2] if uk[0] == gemm_bf16.FAMILY else [],
                    DType.bfloat16),
                gather_b=MappingProxyType(_gather_b(kernel, uses, lanes, dot_direct)))


# ------------------------------------------------------------------ runtime for loops
def reg_carried(body: ir.Block, carried_args, lanes: int) -> set[int]:
    """Positions of carried tiles kept in vector locals: every use in the loop is a top-level
    fused or elementwise op iterating over exactly the tile's shape, or the yield at the
    tile's own position; at most REG_VECTORS vectors in all (else workspace tiles)."""
    y = body.ops[-1] if body.ops and body.ops[-1].opcode == "yield" else None
    top = {id(op) for op in body.ops}
    picked, total = set(), 0
    for p, arg in enumerate(carried_args):
        if not isinstance(arg.type, ir.TileType) or not arg.type.shape or numel(arg.type.shape) == 0:
            continue
        shape = tuple(arg.type.shape)
        ok = True
        for op in ir.walk(body):
            for q, o in enumerate(op.operands):
                if o is not arg:
                    continue
                if op is y:
                    ok = ok and q == p
                elif id(op) in top and op.opcode == "fused":
                    ok = ok and tuple(op.attr("shape")) == shape
                elif id(op) in top and op.opcode in ELEMENTWISE:
                    ok = ok and tuple(op.type.shape) == shape
                else:
                    ok = False
        if y is not None:   # no other carried tile yielded into this slot (swaps)
            ok = ok and not any(v is a for q, v in enumerate(y.operands)
                                for a in carried_args if q == p and a is not arg)
        nvec = numel(shape[:-1]) * -(-shape[-1] // lanes)
        nvec *= 2 if lane_tables.KIND[arg.type.dtype] == "l" else 1
        if ok and total + nvec <= REG_VECTORS:
            picked.add(p)
            total += nvec
    return picked


def _inplace(body: ir.Block, carried_args, dots: set, fused: dict) -> None:
    """``acc = dot(a, b, acc)`` yielded back into its own carried slot, with the dot and the
    carried value used nowhere else: the dot writes its result over the accumulator (each
    element is read before it is written, by the same lane), so the yield copies nothing."""
    y = body.ops[-1] if body.ops else None
    if y is None or y.opcode != "yield":
        return
    counts = use_counts(body)
    for p, v in enumerate(y.operands):
        if (v.opcode == "dot" and v.attr("has_acc", False) and p < len(carried_args)
                and v.operands[2] is carried_args[p] and counts.get(id(v), 0) == 1
                and counts.get(id(carried_args[p]), 0) == 1 and v.type == carried_args[p].type):
            dots.add(id(v))
        # acc = fused(acc, ...)[k]: lane j of the output is written after lane j of the
        # full-shape input acc is read, so the output may live in acc's buffer
        if (v.opcode == "getitem" and v.operands[0].opcode == "fused" and p < len(carried_args)
                and isinstance(v.type, ir.TileType) and v.type == carried_args[p].type
                and counts.get(id(v), 0) == 1 and counts.get(id(carried_args[p]), 0) == 1
                and any(o is carried_args[p] for o in v.operands[0].operands)
                and tuple(v.operands[0].attr("shape")) == tuple(v.type.shape)):
            fused[(id(v.operands[0]), v.attr("index"))] = carried_args[p]


# ------------------------------------------------------------------ dot operands read in place
def _dot_direct(kernel: ir.Kernel, uses) -> frozenset[int]:
    """ids of the loads that are the B operand (directly or through one alias ``reshape``) of a
    microkernel ``dot`` that packs B (M > mr, N a multiple of the lanes), have no other use,
    no mask, float32 data and size-1 leading axes: when such a load is in bounds with unit
    inner stride it copies nothing, and the dot packs B straight from the tensor. The same for
    the A operand where ``gemm.a_from_source`` says so (the dot copies A with prefetching)."""

    def operands(op, uk):
        if uk[0] not in gemm.LANES:
            return []
        (M, _), N = op.operands[0].type.shape, op.operands[1].type.shape[1]
        # B, and (gemm.a_from_source) A, which the dot then copies itself with prefetching
        return (([op.operands[1]] if gemm.b_from_source(uk[0], M, uk[1], N) else [])
                + ([op.operands[0]] if gemm.a_from_source(uk[0], M, uk[1]) else []))
    return _collect_direct_loads(kernel, uses, operands, DType.float32)


def _gather_b(kernel: ir.Kernel, uses, lanes: int, direct: frozenset[int]) -> dict[int, int]:
    """{id: j} of the float32 loads that are the B operand (through one alias ``reshape``) of an
    x86 microkernel ``dot`` that packs B (M > mr) and are not 2-D (see :func:`_dot_direct`), but
    whose shape splits as rows = prod(shape[:j]), columns = prod(shape[j:]) with the innermost
    extent a multiple of the lanes (say a conv window (1, C, KH, KW, 1, BH, BW) read as
    (C*KH*KW, BH*BW)). Unmasked and single-use like the 2-D case: in bounds with unit inner
    stride such a load copies nothing, and the dot packs B straight from the tensor through a
    table of row offsets and one of column-chunk offsets (one run of lanes each)."""
    found = {}
    for op in ir.walk(kernel.body):
        uk = op.attr("ukernel", None) if op.opcode == "dot" else None
        if uk is None or uk[0] not in gemm.ROW_CAP:
            continue
        (M, _), (R, N) = op.operands[0].type.shape, op.operands[1].type.shape
        rs = op.operands[1]
        if not (M > uk[1] and gemm.b_from_source(uk[0], M, uk[1], N)) or rs.opcode != "reshape":
            continue
        ld = rs.operands[0]
        rb, lb = rs.attr("buf", None), ld.attr("buf", None)
        if (ld.opcode != "load" or id(ld) in direct or uses.get(id(rs), 0) != 1
                or uses.get(id(ld), 0) != 1 or ld.attr("has_mask", False)
                or ld.operands[0].type.dtype is not DType.float32
                or (rb is not None and (lb is None or rb[0] != lb[0]))):
            continue
        shape = tuple(ld.attr("shape", ()))
        if not shape or shape[-1] % lanes:
            continue
        j = next((j for j in range(1, len(shape)) if math.prod(shape[:j]) == R), None)
        if j is not None:
            found[id(ld)] = j
    return found


def _collect_direct_loads(kernel: ir.Kernel, uses, operands, dtype) -> frozenset[int]:
    """ids of the loads behind the operands that ``operands(dot_op, ukernel)`` lists for each
    microkernel ``dot`` and that the dot may read in place (:func:`_direct_operand`)."""
    found = set()
    for op in ir.walk(kernel.body):
        uk = op.attr("ukernel", None) if op.opcode == "dot" else None
        if uk is None:
            continue
        for ld in operands(op, uk):
            hit = _direct_operand(uses, ld, dtype)
            if hit is not None:
                found.add(hit)
    return frozenset(found)


def _direct_operand(uses, ld: ir.Op, dtype) -> int | None:
    """id of the load behind the dot operand ``ld`` (looking through a single-use reshape of the
    same buffer) when the dot may read the tensor in place: an unmasked, single-use load of
    ``dtype`` with shape (1, ..., 1, R, C); else None."""
    if ld.opcode == "reshape":
        rs, ld = ld, ld.operands[0]
        if uses.get(id(rs), 0) != 1 or ld.opcode != "load":
            return None
        rb, lb = rs.attr("buf", None), ld.attr("buf", None)
        if rb is not None and (lb is None or rb[0] != lb[0]):
            return None
    shape = tuple(ld.attr("shape", ())) if ld.opcode == "load" else ()
    if (ld.opcode == "load" and uses.get(id(ld), 0) == 1 and not ld.attr("has_mask", False)
            and ld.operands[0].type.dtype is dtype and len(shape) >= 2 and all(s == 1 for s in shape[:-2])):
        return id(ld)
    return None
