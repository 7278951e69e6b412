"""Pass plan_memory: places every materialised tile in a per-program workspace.

Every tile-typed op outside ``fused`` bodies (load, getitem, dot, reduce, reshape, trans,
arange, ...) and every tile-typed ``for`` region arg gets ``buf=(offset, nbytes)``: an offset into
the memory space its type names (``TileType.space``, tlc/lower/spaces.py), each space planned on
its own with the alignment and capacity the backend gives it (``ctx.spaces``; default one
unbounded, 64-aligned workspace); nbytes = numel * DType.compute itemsize (4 for
float*/int32/int8/bool, 8 int64). ``Kernel.workspace`` = the total bytes of the default space.
A tile that does not fit a bounded space is a TLCompileError at the tile's source line.

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

from tlc.errors import TLCompileError
from tlc.lower import ir
from tlc.lower import spaces as space_names
from tlc.lower.rewrite import map_kernels, rewrite_kernel
from tlc.lower.spaces import MemorySpace

ALIGN = space_names.ALIGN


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


def plan(body: ir.Block, spaces: dict[str, MemorySpace] | None = None) -> tuple[dict[int, tuple[int, int]], int]:
    """id(tile value) -> (offset, nbytes), and the workspace size in bytes (the default space's;
    :func:`plan_spaces` gives every space's)."""
    out, totals = plan_spaces(body, spaces)
    return out, totals.get(space_names.DEFAULT, 0)


def plan_spaces(body: ir.Block, spaces: dict[str, MemorySpace] | None = None
                ) -> tuple[dict[int, tuple[int, int]], dict[str, int]]:
    """id(tile value) -> (offset, nbytes) within its type's memory space, and the planned bytes of
    each space used. ``spaces`` (the backend's, default :data:`tlc.lower.spaces.DEFAULT_SPACES`)
    gives each space's alignment and capacity; a tile in a space it lacks, or one that does not
    fit a bounded space, raises a located TLCompileError."""
    spaces = space_names.DEFAULT_SPACES if spaces is None else spaces
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
    by_space: dict[str, list] = {}
    for it in items:
        by_space.setdefault(it[4][0].type.space, []).append(it)
    out: dict[int, tuple[int, int]] = {}
    totals: dict[str, int] = {}
    for name, its in by_space.items():
        room = spaces.get(name)
        if room is None:
            raise TLCompileError(f"tile {its[0][4][0].type} is in memory space {name!r}, which this target "
                                 f"does not have (it has: {', '.join(spaces) or 'none'})", _loc(its[0][4]))
        totals[name] = _first_fit(its, room, out)
    return out, totals


def _first_fit(items, room: MemorySpace, out: dict[int, tuple[int, int]]) -> int:
    """Places ``items`` (start, end, size, root, values) first fit in order; returns the total."""
    align = room.alignment
    placed: list[tuple[int, int, int, int]] = []     # (start, end, offset, size)
    total = 0
    for s, e, size, _, vs in items:
        busy = sorted((o, o + n) for (s2, e2, o, n) in placed if not (e2 < s or e < s2))
        off = 0
        for lo, hi in busy:
            if off + size <= lo:
                break
            off = max(off, -(-hi // align) * align)
        if room.capacity is not None and off + size > room.capacity:
            live = sum(n for (s2, e2, o, n) in placed if not (e2 < s or e < s2))
            raise TLCompileError(
                f"tile {vs[0].type} ({size} bytes) does not fit in memory space {room.name!r}: "
                f"{room.capacity} bytes per program, {live} bytes already held by tiles live here "
                f"(it would end at byte {off + size}); use smaller tiles", _loc(vs))
        placed.append((s, e, off, size))
        total = max(total, off + size)
        for v in vs:
            out[id(v)] = (off, nbytes(v.type))
    return -(-total // align) * align


def _loc(values) -> ir.Loc | None:
    """The source location of the first value that has one (region args may have none)."""
    return next((v.loc for v in values if getattr(v, "loc", None) is not None), None)


def _kernel(k: ir.Kernel, spaces=None) -> ir.Kernel:
    bufs, total = plan(k.body, spaces)

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
        spaces = getattr(ctx, "spaces", None)
        return map_kernels(module, lambda k: _kernel(k, spaces))


PASS = PlanMemory()
