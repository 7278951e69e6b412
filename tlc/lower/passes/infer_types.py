"""Pass infer_types: re-derives every op's type with :mod:`tlc.lower.typing_rules`.

It changes nothing; an op whose stored type differs from the rule's result (or that the rules
reject) raises :class:`tlc.errors.TLCompileError` at the op's source location.
"""
from __future__ import annotations

from dataclasses import dataclass

from tlc.errors import TLCompileError
from tlc.lower import ir
from tlc.lower.typing_rules import infer_type

_SKIP = ("arg", "fused", "buffer")


def derive(op: ir.Op):
    """The type the typing rules give ``op`` (None for ops typed by passes or block args)."""
    if op.opcode in _SKIP:
        return None
    operand_types = [o.type for o in op.operands]
    if op.opcode in ("for", "if"):
        rt = []
        for r in op.regions:
            last = r.ops[-1] if r.ops else None
            rt.append(tuple(o.type for o in last.operands) if last is not None and last.opcode == "yield" else ())
        return infer_type(op.opcode, operand_types, op.attrs, region_types=tuple(rt))
    return infer_type(op.opcode, operand_types, op.attrs)


@dataclass(frozen=True)
class InferTypes:
    name: str = "infer_types"

    def run(self, module: ir.Module, ctx) -> ir.Module:
        for _, op in ir.walk_module(module):
            try:
                t = derive(op)
            except (ValueError, KeyError) as e:
                raise TLCompileError(str(e), op.loc) from None
            if t is not None and t != op.type:
                raise TLCompileError(f"internal type mismatch on `{op.opcode}`: built as {op.type}, "
                                     f"rules give {t}", op.loc)
        return module


PASS = InferTypes()
