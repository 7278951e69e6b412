"""Pass lower_dot: chooses how each ``dot`` is emitted, from the target variant's data.

A float ``dot`` whose output (and accumulator) is float32 and that has at least one full vector
of columns gets attr ``ukernel=(family, mr, nv)`` when the variant has an assembly microkernel
family (``Variant.ukernel``, e.g. "avx512"): an mr x (nv * lanes) register block chosen by
:func:`tlc.emit_asm.gemm.choose` from ``Variant.vregs`` and ``Variant.lanes``. Every other dot
keeps the portable vector loops (no attr). No semantic change: both forms compute each element
as fma steps over k ascending (bit-identical).
"""
from __future__ import annotations

from dataclasses import dataclass

from tlc.emit_asm import gemm
from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.lower.rewrite import map_kernels, rewrite_kernel

_FLOATS = (DType.float32, DType.float16, DType.bfloat16)


def choose(op: ir.Op, variant):
    """The ``ukernel`` attr value for one dot op, or None."""
    if variant is None or not getattr(variant, "ukernel", ""):
        return None
    a, b = op.operands[0].type, op.operands[1].type
    if op.type.dtype is not DType.float32 or a.dtype not in _FLOATS or b.dtype not in _FLOATS:
        return None
    if op.attr("has_acc", False) and op.operands[2].type.dtype is not DType.float32:
        return None
    (M, K), N = a.shape, b.shape[1]
    if getattr(variant, "ukernel_bf16", "") and a.dtype is DType.bfloat16 and b.dtype is DType.bfloat16:
        from tlc.emit_asm import gemm_bf16     # bf16 x bf16 -> f32 on vdpbf16ps (pairwise sums)
        blk = gemm_bf16.choose(variant.vregs, M, K, N)
        if blk is not None:
            return (variant.ukernel_bf16, *blk)
    blk = gemm.choose(variant.ukernel, variant.vregs, variant.lanes, M, K, N)
    return None if blk is None else (variant.ukernel, *blk)


@dataclass(frozen=True)
class LowerDot:
    name: str = "lower_dot"

    def run(self, module: ir.Module, ctx) -> ir.Module:
        variant = ctx.variant

        def rule(op: ir.Op, emit) -> ir.Op:
            if op.opcode == "dot":
                uk = choose(op, variant)
                if uk is not None:
                    return op.with_(attrs={**dict(op.attrs), "ukernel": uk})
            return op

        return map_kernels(module, lambda k: rewrite_kernel(k, rule, grid=False))


PASS = LowerDot()
