"""Pass vectorize: records the loop structure the C emitter follows (no semantic change).

``fused`` ops get ``lanes`` (ctx.lanes: float32 lanes of the variant) and ``inner``: the
largest k such that for every tile input the last k axes are all equal to the iteration
shape's or all 1 (that input is then constant over the flat inner loop); k == rank when every
input has the full shape; ``dot`` and ``reduce`` get ``lanes``.
"""
from __future__ import annotations

from dataclasses import dataclass

from tlc.lower import ir
from tlc.lower.rewrite import map_kernels, rewrite_kernel


def inner_axes(shape: tuple[int, ...], inputs) -> int:
    rank = len(shape)
    k = 0
    for k in range(rank, 0, -1):
        ok = True
        for x in inputs:
            if not isinstance(x.type, ir.TileType):
                continue
            tail, want = x.type.shape[rank - k:], shape[rank - k:]
            if not (all(a == b for a, b in zip(tail, want)) or all(a == 1 for a in tail)):
                ok = False
                break
        if ok:
            return k
    return 0


@dataclass(frozen=True)
class Vectorize:
    name: str = "vectorize"

    def run(self, module: ir.Module, ctx) -> ir.Module:
        lanes = ctx.lanes

        def rule(op: ir.Op, emit) -> ir.Op:
            if op.opcode == "fused":
                inner = inner_axes(tuple(op.attr("shape")), op.operands)
                return op.with_(attrs={**dict(op.attrs), "lanes": lanes, "inner": inner})
            if op.opcode in ("dot", "reduce"):
                return op.with_(attrs={**dict(op.attrs), "lanes": lanes})
            return op

        return map_kernels(module, lambda k: rewrite_kernel(k, rule, grid=False))


PASS = Vectorize()
