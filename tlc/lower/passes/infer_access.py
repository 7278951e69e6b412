"""Pass infer_access: fills ``Param.access`` of tensor params from the loads and stores that
reach them through (chains of) views: "read", "write", "readwrite" or "none"."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tlc.lower import ir


def root(op: ir.Op) -> ir.Op:
    """The tensor a view chain starts from (a kernel argument after canonicalize)."""
    while op.opcode == "view":
        op = op.operands[0]
    return op


def _kernel(k: ir.Kernel) -> ir.Kernel:
    reads: set[int] = set()
    writes: set[int] = set()
    for op in ir.walk(k.body):
        if op.opcode == "load":
            reads.add(id(root(op.operands[0])))
        elif op.opcode == "store":
            writes.add(id(root(op.operands[0])))
    runtime = iter(k.body.args)
    params = []
    for p in k.params:
        if p.kind == "constexpr":
            params.append(p)
            continue
        a = next(runtime)
        if p.kind == "tensor":
            r, w = id(a) in reads, id(a) in writes
            p = dataclasses.replace(p, access="readwrite" if r and w else "read" if r else
                                    "write" if w else "none")
        params.append(p)
    return dataclasses.replace(k, params=tuple(params))


@dataclass(frozen=True)
class InferAccess:
    name: str = "infer_access"

    def run(self, module: ir.Module, ctx) -> ir.Module:
        return dataclasses.replace(module, kernels=tuple(_kernel(k) for k in module.kernels))


PASS = InferAccess()
