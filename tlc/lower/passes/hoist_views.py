"""Pass hoist_views: moves each ``view`` op up to just after its last operand (no semantic change).

``tl.store(out + (r, c), y)`` after ``y = ...`` lowers to ``fused ...; view out, r, c; store``:
Python evaluates the view after the value. A view is a pure int64 offset computation on values
that are usually defined long before, so it may be placed anywhere after its operands. Placing
it early lets the C emitter absorb the store into the fused lane loop (tlc/emit_c/direct.py
requires the store's view to be computed before the fused op), so the tile is written straight
to the tensor instead of through a workspace buffer and a second copy loop: one memory pass
instead of three for every kernel that names its output after computing the value.

Rule, per block (recursively into ``for``/``if`` regions, not ``fused`` bodies): every view, and
every pure scalar op (const, index arithmetic, dim, program_id) a view reads in the block, goes
right after the latest of its operands defined in the block, or to the block's start when none is.
Other ops keep their relative order.
"""
from __future__ import annotations

from tlc.lower import ir
from tlc.lower.rewrite import BodyPass, Env, rebuild

_SCALAR = frozenset(ir.ELEMENTWISE_UNARY + ir.ELEMENTWISE_BINARY
                    + ("const", "where", "fma", "cast", "dim", "program_id", "num_programs"))


def _movable(op: ir.Op) -> bool:
    """A view, or a pure scalar op (index math a view may need; e.g. a second ``const 0``)."""
    return op.opcode == "view" or (op.opcode in _SCALAR and isinstance(op.type, ir.ScalarType)
                                   and not op.regions)


def _order(ops: tuple[ir.Op, ...]) -> list[ir.Op]:
    """``ops`` with every view (and the scalar ops it depends on) moved to just after its latest
    operand in ``ops``, or to the start; taken in program order, so dependencies come first and
    ops moved to one place keep their order."""
    moved = set()
    need = set()
    for op in reversed(ops):          # views and the in-block scalar ops they read
        if op.opcode == "view" or (id(op) in need and _movable(op)):
            moved.add(id(op))
            need.update(id(o) for o in op.operands)
    out = [op for op in ops if id(op) not in moved]
    placed = set()
    for v in (op for op in ops if id(op) in moved):
        deps = {id(o) for o in v.operands}
        at = 1 + max((i for i, op in enumerate(out) if id(op) in deps), default=-1)
        while at < len(out) and id(out[at]) in placed:   # after ops placed there before
            at += 1
        out.insert(at, v)
        placed.add(id(v))
    return out


def _hoist(block: ir.Block, env: Env) -> ir.Block:
    new_ops = []
    for old in _order(block.ops):
        regions = old.regions if old.opcode == "fused" else tuple(_hoist(r, env) for r in old.regions)
        new_ops.append(rebuild(old, env, regions))
    if all(a is b for a, b in zip(new_ops, block.ops)):
        return block
    return ir.Block(block.args, tuple(new_ops))


PASS = BodyPass("hoist_views", _hoist)
