"""Pass canonicalize: local simplifications that keep semantics exactly.

- ``view(view(t, a...), b...)`` -> ``view(t, a+b...)`` (int64 adds; views end up rooted at a
  kernel argument);
- ``cast`` to the operand's own dtype, ``broadcast`` to the operand's shape, ``reshape`` to
  the operand's shape, ``trans`` by the identity permutation: dropped (uses rewired);
- attrs normalised: ``shape``/``perm``/``checked`` are tuples, ``has_*`` are bools;
- dead pure ops are removed.
"""
from __future__ import annotations

from dataclasses import dataclass

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.lower.rewrite import dce_kernel, map_kernels, rewrite_kernel

_TUPLE_ATTRS = ("shape", "perm", "checked")
_BOOL_ATTRS = ("has_mask", "has_other", "has_acc", "keepdims")


def _normalise(op: ir.Op) -> ir.Op:
    attrs = dict(op.attrs)
    new = dict(attrs)
    for k in _TUPLE_ATTRS:
        if k in new and not isinstance(new[k], tuple):
            new[k] = tuple(new[k])
    if "checked" in new:
        new["checked"] = tuple(bool(c) for c in new["checked"])
    for k in _BOOL_ATTRS:
        if k in new:
            new[k] = bool(new[k])
    return op if new == attrs else op.with_(attrs=new)


def _rule(op: ir.Op, emit) -> ir.Op:
    op = _normalise(op)
    oc = op.opcode
    if oc == "cast" and op.operands[0].type == op.type:
        return op.operands[0]
    if oc in ("broadcast", "reshape") and op.operands[0].type == op.type:
        return op.operands[0]
    if oc == "trans" and tuple(op.attr("perm")) == tuple(range(len(op.attr("perm")))):
        return op.operands[0]
    if oc == "view" and op.operands[0].opcode == "view":
        inner = op.operands[0]
        offs = []
        for a, b in zip(inner.operands[1:], op.operands[1:]):
            offs.append(emit(ir.make("add", (a, b), ir.ScalarType(DType.int64), op.loc)))
        return op.with_(operands=(inner.operands[0], *offs))
    return op


@dataclass(frozen=True)
class Canonicalize:
    name: str = "canonicalize"

    def run(self, module: ir.Module, ctx) -> ir.Module:
        return map_kernels(module, lambda k: dce_kernel(rewrite_kernel(k, _rule)))


PASS = Canonicalize()
