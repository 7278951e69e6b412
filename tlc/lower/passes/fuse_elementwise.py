"""Pass fuse_elementwise: groups chains of tile elementwise ops into ``fused`` ops.

Fusible: tile-typed ELEMENTWISE_UNARY/BINARY ops, where, cast, splat, broadcast, full. A
group is a connected set of fusible ops of one result shape within one block (regions of
for/if are fused separately). Groups are grown in program order; an op joins the groups of
its same-shape fusible operands unless a member already has a use outside the group earlier
in the block (then the fused op could not be placed before that use). Every fusible op ends up
in a group (possibly alone).

A group becomes ``fused(*inputs) {shape}`` at the position of its last member, followed by one
``getitem`` per output (see the post-pipeline form in :mod:`tlc.lower.passes`): inputs are the
external operands (tiles of the shape or with size-1 axes, scalars of ``splat``); the body
computes lane values: ``splat``/``broadcast`` become their input's lane value, ``full`` a
``const``, other ops the same opcode on ScalarType. Outputs are members used outside the
group (by any other op, including yield, store, dot, reduce, loads' masks, nested regions).
"""
from __future__ import annotations

from tlc.lower import ir
from tlc.lower.rewrite import BodyPass, Env, rebuild

FUSIBLE = set(ir.ELEMENTWISE_UNARY) | set(ir.ELEMENTWISE_BINARY) | {"where", "fma", "cast", "splat", "broadcast", "full"}


def fusible(op: ir.Op) -> bool:
    return op.opcode in FUSIBLE and isinstance(op.type, ir.TileType)


def _users(block: ir.Block) -> dict[int, list[int]]:
    """id(value) -> positions in block.ops of the top-level ops that use it (also nested)."""
    out: dict[int, list[int]] = {}
    for q, op in enumerate(block.ops):
        for o in [op, *(x for r in op.regions for x in ir.walk(r))]:
            for v in o.operands:
                out.setdefault(id(v), []).append(q)
    return out


def _groups(block: ir.Block) -> list[list[int]]:
    ops, users = block.ops, _users(block)
    group_of: dict[int, int] = {}          # position -> group number
    groups: dict[int, list[int]] = {}      # group number -> member positions
    pos = {id(op): p for p, op in enumerate(ops)}
    for p, op in enumerate(ops):
        if not fusible(op):
            continue
        cands = {group_of[pos[id(o)]] for o in op.operands
                 if id(o) in pos and pos[id(o)] in group_of and ops[pos[id(o)]].type.shape == op.type.shape}

        def blocked(g: int) -> bool:
            members = set(groups[g])
            return any(q < p and q not in members for m in groups[g] for q in users.get(id(ops[m]), ()))

        join = sorted(g for g in cands if not blocked(g))
        g_new = join[0] if join else p
        members = [m for g in join for m in groups.pop(g)] + [p]
        groups[g_new] = sorted(members)
        for m in members:
            group_of[m] = g_new
    return sorted(groups.values(), key=lambda ms: ms[-1])


def _build(members: list[ir.Op], outputs: list[ir.Op], env: Env) -> ir.Op:
    ids = {id(m) for m in members}
    shape = members[-1].type.shape
    inputs: list[ir.Op] = []
    args: list[ir.Op] = []
    lane: dict[int, ir.Op] = {}
    body: list[ir.Op] = []

    def lane_of(o: ir.Op) -> ir.Op:
        if id(o) in lane:
            return lane[id(o)]
        assert id(o) not in ids, "fused member used before defined"
        i = len(inputs)
        inputs.append(env.get(o))
        a = ir.make("arg", (), ir.ScalarType(o.type.dtype), None, name=f"in{i}", index=i)
        args.append(a)
        lane[id(o)] = a
        return a

    for m in members:
        if m.opcode in ("splat", "broadcast"):
            lane[id(m)] = lane_of(m.operands[0])
        elif m.opcode == "full":
            d = m.attr("dtype")
            c = ir.make("const", (), ir.ScalarType(d), m.loc, value=m.attr("value"), dtype=d)
            body.append(c)
            lane[id(m)] = c
        else:
            ops = [lane_of(o) for o in m.operands]
            b = ir.Op(m.opcode, tuple(ops), ir.ScalarType(m.type.dtype), m.attrs, (), m.loc)
            body.append(b)
            lane[id(m)] = b
    body.append(ir.make("yield", [lane[id(o)] for o in outputs], ir.NONE, outputs[-1].loc))
    typ = ir.TupleType(tuple(ir.TileType(o.type.dtype, shape) for o in outputs))
    return ir.make("fused", inputs, typ, members[-1].loc, [ir.Block(tuple(args), tuple(body))],
                   shape=tuple(shape))


def fuse_block(block: ir.Block, env: Env) -> ir.Block:
    ops, users = block.ops, _users(block)
    last_of: dict[int, list[int]] = {ms[-1]: ms for ms in _groups(block)}
    in_group = {p for ms in last_of.values() for p in ms}
    out: list[ir.Op] = []
    for p, op in enumerate(ops):
        if p in last_of:
            ms = last_of[p]
            members = [ops[m] for m in ms]
            outputs = [ops[m] for m in ms if any(q not in ms for q in users.get(id(ops[m]), ()))]
            if not outputs:
                continue
            f = _build(members, outputs, env)
            out.append(f)
            for k, o in enumerate(outputs):
                g = ir.make("getitem", (f,), f.type.types[k], o.loc, index=k)
                out.append(g)
                env.set(o, g)
            continue
        if p in in_group:
            continue
        out.append(rebuild(op, env, tuple(fuse_block(r, env) for r in op.regions)))
    return ir.Block(block.args, tuple(out))


PASS = BodyPass("fuse_elementwise", fuse_block)
