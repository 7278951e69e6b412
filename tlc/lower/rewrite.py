"""Rebuilding blocks of frozen ops: the one helper every pass uses to rewrite IR.

``rewrite_block(block, fn)`` walks ops in program order, first re-pointing each op's operands at
the new values of earlier ops and rebuilding its regions recursively, then calls
``fn(op, emit)`` with the updated op. ``fn`` returns the value the old op now stands for: the
op itself (kept), a replacement op (emitted if it is new), an earlier value (the op is dropped
and its uses rewired), or None (the op is dropped; only valid for ops without uses).
``emit(op)`` inserts extra ops before the replacement and returns them.
"""
from __future__ import annotations

import dataclasses
from typing import Callable

from tlc.lower import ir

Emit = Callable[[ir.Op], ir.Op]
OpFn = Callable[[ir.Op, Emit], "ir.Op | None"]
ArgFn = Callable[[ir.Op], ir.Op]


class Env:
    """old op (by identity) -> new op, shared across nested regions of one rewrite."""

    def __init__(self) -> None:
        self.map: dict[int, ir.Op] = {}
        self.placed: set[int] = set()
        self._keep: list[ir.Op] = []     # keeps old ops alive so ids stay unique

    def get(self, op: ir.Op) -> ir.Op:
        return self.map.get(id(op), op)

    def set(self, old: ir.Op, new: ir.Op) -> None:
        self._keep.append(old)
        self.map[id(old)] = new


def remap(op: ir.Op, env: Env, fn: OpFn | None, arg_fn: ArgFn | None,
          with_old: bool = False) -> ir.Op:
    """``op`` with operands mapped through env and regions rebuilt (same object if unchanged)."""
    operands = tuple(env.get(o) for o in op.operands)
    regions = tuple(rewrite_block(r, fn, env, arg_fn, with_old) for r in op.regions)
    if all(a is b for a, b in zip(operands, op.operands)) and all(
            a is b for a, b in zip(regions, op.regions)):
        return op
    return op.with_(operands=operands, regions=regions)


def rebuild(old: ir.Op, env: Env, regions: tuple[ir.Block, ...]) -> ir.Op:
    """``old`` with operands mapped through env and the given (already rebuilt) regions; a new op
    is recorded in env as old's replacement, an unchanged one is returned as is."""
    operands = tuple(env.get(o) for o in old.operands)
    if all(a is b for a, b in zip(operands, old.operands)) and all(
            a is b for a, b in zip(regions, old.regions)):
        return old
    new = old.with_(operands=operands, regions=regions)
    env.set(old, new)
    return new


def rewrite_block(block: ir.Block, fn: OpFn | None = None, env: Env | None = None,
                  arg_fn: ArgFn | None = None, with_old: bool = False) -> ir.Block:
    """A rebuilt block; ``fn`` as in the module docstring (None keeps every op), ``arg_fn(arg)``
    may replace block arguments (e.g. to add attrs). With ``with_old`` fn is called as
    ``fn(op, emit, old)`` where ``old`` is the op before operand remapping (for passes that
    keyed an analysis by the original ops)."""
    env = Env() if env is None else env
    args = []
    for a in block.args:
        na = arg_fn(a) if arg_fn is not None else a
        if na is not a:
            env.set(a, na)
        env.placed.add(id(na))
        args.append(na)
    out: list[ir.Op] = []

    def emit(op: ir.Op) -> ir.Op:
        if id(op) not in env.placed:
            env.placed.add(id(op))
            out.append(op)
        return op

    for old in block.ops:
        op = remap(old, env, fn, arg_fn, with_old)
        new = op if fn is None else fn(op, emit, old) if with_old else fn(op, emit)
        if new is None:
            continue
        emit(new)
        if new is not old:
            env.set(old, new)
    changed = any(a is not b for a, b in zip(args, block.args)) or len(out) != len(block.ops) or any(
        a is not b for a, b in zip(out, block.ops))
    return ir.Block(tuple(args), tuple(out)) if changed else block


def rewrite_kernel(k: ir.Kernel, fn: OpFn | None, arg_fn: ArgFn | None = None,
                   grid: bool = True, with_old: bool = False) -> ir.Kernel:
    """Applies rewrite_block to the kernel body (and its grid block when ``grid``)."""
    body = rewrite_block(k.body, fn, None, arg_fn, with_old)
    g = rewrite_block(k.grid, fn, None, arg_fn, with_old) if (grid and k.grid is not None) else k.grid
    return dataclasses.replace(k, body=body, grid=g)


def map_kernels(module: ir.Module, kfn: Callable[[ir.Kernel], ir.Kernel]) -> ir.Module:
    return dataclasses.replace(module, kernels=tuple(kfn(k) for k in module.kernels))


@dataclasses.dataclass(frozen=True)
class BodyPass:
    """A pass that rebuilds every kernel body as ``block_fn(body, Env())`` (one fresh env per
    kernel; the grid block is left alone), e.g. ``PASS = BodyPass("hoist_views", _hoist)``."""

    name: str
    block_fn: Callable[[ir.Block, Env], ir.Block]

    def run(self, module: ir.Module, ctx) -> ir.Module:
        return map_kernels(module, lambda k: dataclasses.replace(k, body=self.block_fn(k.body, Env())))


# ----------------------------------------------------------------------------- uses and DCE
SIDE_EFFECTS = ("store", "yield")


def has_side_effects(op: ir.Op) -> bool:
    if op.opcode in SIDE_EFFECTS:
        return True
    return any(has_side_effects(o) for r in op.regions for o in r.ops)


def use_counts(block: ir.Block, counts: dict[int, int] | None = None) -> dict[int, int]:
    """id(op) -> number of operand uses in block and its nested regions."""
    counts = {} if counts is None else counts
    for op in block.ops:
        for o in op.operands:
            counts[id(o)] = counts.get(id(o), 0) + 1
        for r in op.regions:
            use_counts(r, counts)
    return counts


def dce_block(block: ir.Block) -> ir.Block:
    """Drops ops without uses and without side effects, until nothing changes."""
    while True:
        counts = use_counts(block)
        dead = {id(op) for op in ir.walk(block)
                if counts.get(id(op), 0) == 0 and not has_side_effects(op)}
        if not dead:
            return block
        block = rewrite_block(block, lambda op, emit: None if id(op) in dead else op)
        # ops inside rebuilt regions are new objects: recompute dead by identity on next round
        # (rewrite_block keeps unchanged ops identical, so ids of survivors are stable)


def dce_kernel(k: ir.Kernel) -> ir.Kernel:
    g = dce_block(k.grid) if k.grid is not None else None
    return dataclasses.replace(k, body=dce_block(k.body), grid=g)
