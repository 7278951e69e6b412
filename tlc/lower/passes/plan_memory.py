"""Pass plan_memory: places every materialised tile in a per-program workspace.

Every tile-typed op outside ``fused`` bodies (load, getitem, dot, reduce, reshape, trans,
arange, ...) and every tile-typed ``for`` region arg gets ``buf=(offset, nbytes)``; offsets are
64-aligned; nbytes = numel * DType.compute itemsize (4 for float*/int32/int8/bool, 8 int64).
``Kernel.workspace`` = the total bytes.

Liveness: ops are numbered in program order (a region op has a start and an end time). A
value lives from its definition to its last use; a use inside a ``for`` body of a value
defined outside that loop extends to the loop's end; a carried region arg lives for the whole
loop; results of ``fused``/``for``/``if`` live from the start of that op (the emitter writes
them there: fused outputs, copies at ``if`` yields). Results never share space with the
operands of the op defining them. Aliases (same offset, one live range): a reshape and its
input; a ``for`` result getitem and its carried region arg; a ``for``'s tile init and its carried
region arg when the init dies at the loop (e.g. ``acc = tl.zeros(...)`` or a first ``dot`` then a
K loop: the init is computed straight into the loop's buffer, no copy). Allocation is first fit in
order of start time.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tlc.lower import ir
from tlc.lower.rewrite import map_kernels, rewrite_kernel

ALIGN = 64


def nbytes(t: ir.TileType) -> int:
    return t.numel * t.dtype.compute.itemsize


class _Liveness:
    def __init__(self, body: ir.Block) -> None:
        self.t = 0
        self.start: dict[int, int] = {}
        self.end: dict[int, int] = {}          # region ops: time after their last nested op
        self.loops: dict[int, tuple] = {}      # id(value) -> enclosing for ops (outer first)
        self.tiles: list[ir.Op] = []
        self.parent: dict[int, int] = {}       # alias union-find over id(value)
        self.last: dict[int, int] = {}
        self.keep: list = []
        self._number(body, ())
        self._uses(body)
        self._alias_loop_inits(body)

    def _tick(self) -> int:
        self.t += 1
        return self.t

    def _number(self, block: ir.Block, loops: tuple) -> None:
        for op in block.ops:
            t = self._tick()
            self.start[id(op)] = t
            self.loops[id(op)] = loops
            if isinstance(op.type, ir.TileType):
                self.tiles.append(op)
                if op.opcode == "getitem":      # written when the tuple op runs
                    self.start[id(op)] = self.start[id(op.operands[0])]
            if op.opcode != "fused":
                inner = loops + (op,) if op.opcode == "for" else loops
                for r in op.regions:
                    for a in r.args:
                        self.start[id(a)] = t
                        self.loops[id(a)] = inner
                        if isinstance(a.type, ir.TileType):
                            self.tiles.append(a)
                    self._number(r, inner)
            self.end[id(op)] = self._tick()
            if op.opcode == "for":
                for i, a in enumerate(op.regions[0].args[1:]):
                    if isinstance(a.type, ir.TileType):
                        self.last[id(a)] = self.end[id(op)]
            if op.opcode == "reshape":
                self.union(op, op.operands[0])

    def union(self, a: ir.Op, b: ir.Op) -> None:
        self.keep += [a, b]
        ra, rb = self.find(id(a)), self.find(id(b))
        if ra != rb:
            self.parent[ra] = rb

    def find(self, x: int) -> int:
        while self.parent.get(x, x) != x:
            x = self.parent[x]
        return x

    def _uses(self, block: ir.Block) -> None:
        for op in block.ops:
            tu = self.start[id(op)]
            for v in op.operands:
                if id(v) not in self.start:
                    continue
                t = tu
                for loop in self.loops[id(op)]:          # outer first
                    if loop not in self.loops[id(v)] and loop is not v:
                        t = max(t, self.end[id(loop)])
                        break
                self.last[id(v)] = max(self.last.get(id(v), 0), t)
            if op.opcode == "getitem" and op.operands[0].opcode == "for":
                arg = op.operands[0].regions[0].args[1 + op.attr("index")]
                self.union(op, arg)
            if op.opcode != "fused":
                for r in op.regions:
                    self._uses(r)


    def _alias_loop_inits(self, body: ir.Block) -> None:
        """A ``for``'s tile init that dies at the loop (no later use, nothing aliased to it used
        later, not passed twice) shares its carried arg's buffer, so no init copy is emitted."""
        for op in ir.walk(body):
            if op.opcode != "for":
                continue
            t = self.start[id(op)]
            inits = op.operands[3:]
            for init, arg in zip(inits, op.regions[0].args[1:]):
                if (not isinstance(arg.type, ir.TileType) or id(init) not in self.start
                        or init.type != arg.type or sum(x is init for x in inits) != 1
                        or self.find(id(init)) == self.find(id(arg))):
                    continue
                root = self.find(id(init))
                cls = [v for v in self.tiles if self.find(id(v)) == root]
                if cls and all(self.last.get(id(v), self.start[id(v)]) <= t for v in cls):
                    self.union(init, arg)


def plan(body: ir.Block) -> tuple[dict[int, tuple[int, int]], int]:
    """id(tile value) -> (offset, nbytes), and the workspace size in bytes."""
    lv = _Liveness(body)
    classes: dict[int, list[ir.Op]] = {}
    for v in lv.tiles:
        classes.setdefault(lv.find(id(v)), []).append(v)
    items = []
    for root, vs in classes.items():
        s = min(lv.start[id(v)] for v in vs)
        e = max(max(lv.last.get(id(v), lv.start[id(v)]), lv.start[id(v)]) for v in vs)
        items.append((s, e, max(nbytes(v.type) for v in vs), root, vs))
    items.sort(key=lambda it: it[0])   # stable: ties keep program order (never id() order)
    placed: list[tuple[int, int, int, int]] = []     # (start, end, offset, size)
    out: dict[int, tuple[int, int]] = {}
    total = 0
    for s, e, size, _, vs in items:
        busy = sorted((o, o + n) for (s2, e2, o, n) in placed if not (e2 < s or e < s2))
        off = 0
        for lo, hi in busy:
            if off + size <= lo:
                break
            off = max(off, -(-hi // ALIGN) * ALIGN)
        placed.append((s, e, off, size))
        total = max(total, off + size)
        for v in vs:
            out[id(v)] = (off, nbytes(v.type))
    return out, -(-total // ALIGN) * ALIGN


def _kernel(k: ir.Kernel) -> ir.Kernel:
    bufs, total = plan(k.body)

    def add(op: ir.Op, old: ir.Op) -> ir.Op:
        b = bufs.get(id(old))
        return op if b is None else op.with_(attrs={**dict(op.attrs), "buf": b})

    k2 = rewrite_kernel(k, lambda op, emit, old: add(op, old), arg_fn=lambda a: add(a, a),
                        grid=False, with_old=True)
    return dataclasses.replace(k2, workspace=total)


@dataclass(frozen=True)
class PlanMemory:
    name: str = "plan_memory"

    def run(self, module: ir.Module, ctx) -> ir.Module:
        return map_kernels(module, _kernel)


PASS = PlanMemory()
