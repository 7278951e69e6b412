"""Performance warnings: kernel code that is correct but slow on a CPU (not a pass: it reads a
module and returns :class:`tlc.errors.CompileWarning` values; the IR is unchanged).

masked-access  a ``tl.load``/``tl.store`` with ``mask=``. The emitter copies an unmasked tile
               by whole vector rows, edge tiles included. A masked one of float32, int32,
               int64, float16 or bfloat16 with a unit inner stride goes by vectors too
               (tlc/emit_c/masked.py: a select, or a masked store), but its mask is a tile
               computed on every iteration (an arange, an add and a compare): a Triton-style
               ``mask=offs < n`` that only repeats the bounds check costs about what a
               ``tl.where`` does, several times the unmasked copy. A masked access of int8 or
               bool data (or of a view with a non-unit inner stride, which the lint cannot see)
               tests each lane on its own, every time.
large-tile     a tile of more than :data:`LARGE_TILE_BYTES` bytes (in its compute dtype: 4 bytes
               a lane for float16/bfloat16/int8/bool) loaded or made in a kernel without
               ``tl.dot``: it lives in the per-program workspace and each elementwise step
               streams it through L1/L2 instead of registers. Kernels with a ``tl.dot`` are
               left alone: their large A/B/accumulator tiles are cache blocks the matmul
               microkernels are built for.

Warnings are deduplicated by location and kind: one per source line and column however many
kernels, instances (``specializations=``) or variants reach it, with the lane counts of every
instance. A line holding the comment ``# tlc: nowarn`` is silenced.
"""
from __future__ import annotations

import linecache
import math

from tlc.errors import CompileWarning
from tlc.lower import ir

LARGE_TILE_BYTES = 16 * 1024    # the largest tile of a kernel without tl.dot in ops/
NOWARN = "# tlc: nowarn"
# tensor dtypes whose masked accesses tlc/emit_c/masked.py leaves to the per-element path
_ELEMENT_DTYPES = ("int8", "bool")

_MASK_ADVICE = ("TL loads and stores are already safe at the tensor's edge (lanes outside it read "
                "`other`, or 0, and stores drop them): drop the mask when it only guards the edge; "
                "otherwise use tiles of 64-256 lanes and a loop (`for c in range(0, n, BLOCK)`) "
                "instead of one large masked block")
_TILE_ADVICE = ("every elementwise step streams such a tile through memory; use tiles of 64-256 "
                "lanes (a few KB) and a loop (`for c in range(0, n, BLOCK)`) over the rest")


def _lane_text(counts: list[int]) -> str:
    counts = sorted(set(counts))
    if len(counts) == 1:
        return f"{counts[0]} lanes"
    return f"{', '.join(map(str, counts[:-1]))} or {counts[-1]} lanes (by instance)"


def _walk(block: ir.Block, loop: bool):
    for op in block.ops:
        yield op, loop
        for region in op.regions:
            yield from _walk(region, loop or op.opcode == "for")


def _silenced(loc: ir.Loc) -> bool:
    return NOWARN in (linecache.getline(loc.file, loc.line) or "")


def check(module: ir.Module) -> list[CompileWarning]:
    """The performance warnings of a parsed (or lowered) module, in source order: each masked
    load/store, and for each kernel without a masked one and without ``tl.dot`` its first tile
    over :data:`LARGE_TILE_BYTES`."""
    masked: dict[ir.Loc, tuple[str, list[int], bool, str]] = {}
    large: dict[ir.Loc, list[int]] = {}
    for k in module.kernels:
        ops = list(_walk(k.body, False))
        mine = [(op, in_loop) for op, in_loop in ops if op.loc is not None and op.opcode in ("load", "store")
                and op.attr("has_mask", False)]
        for op, in_loop in mine:
            shape = op.attr("shape") if op.opcode == "load" else op.operands[1].type.shape
            dtype = getattr(op.operands[0].type, "dtype", None)
            masked.setdefault(op.loc, (op.opcode, [], in_loop, getattr(dtype, "name", str(dtype))))[1].append(
                math.prod(shape))
        if mine or any(op.opcode == "dot" for op, _ in ops):
            continue
        for op, _ in ops:
            if (op.loc is not None and isinstance(op.type, ir.TileType)
                    and op.opcode in ("load", "reduce", "arange", "full")
                    and op.type.numel * op.type.dtype.compute.itemsize > LARGE_TILE_BYTES):
                large.setdefault(op.loc, []).append(op.type.numel * op.type.dtype.compute.itemsize)
                break
    out = []
    for loc, (what, counts, in_loop, dtype) in masked.items():
        if not _silenced(loc):
            each = "on every iteration" if in_loop else "in every program"
            if dtype in _ELEMENT_DTYPES:
                text = (f"masked tl.{what} of {dtype} tests each of its {_lane_text(counts)} one at a time "
                        f"{each} (masks on {dtype} data are not vectorised; an unmasked tile is copied by "
                        f"vector rows, edges included)")
            else:
                text = (f"masked tl.{what} computes and applies a mask of {_lane_text(counts)} {each} (as "
                        f"costly as a tl.where; an unmasked tile is a plain vector row copy, edges included)")
            out.append(CompileWarning(text, loc, notes=(f"note: {_MASK_ADVICE}",)))
    for loc, sizes in large.items():
        if not _silenced(loc):
            kb = " or ".join(f"{x} KB" for x in sorted({(s + 1023) // 1024 for s in sizes}))
            out.append(CompileWarning(f"tile of {kb}: more than {LARGE_TILE_BYTES // 1024} KB spills out of "
                                      f"registers and L1 on a CPU", loc, notes=(f"note: {_TILE_ADVICE}",)))
    out.sort(key=lambda w: (w.loc.file, w.loc.line, w.loc.col))
    return out
