"""Pass bounds: marks load/store axes whose bounds check is provably unneeded
(``checked[axis] = False``). Sound by construction; it proves exactly one pattern:

  the view is ``view(T, ..., o_axis, ...)`` rooted directly at kernel argument T, the tile
  extent along ``axis`` is 1, and ``o_axis`` is the induction variable of an enclosing ``for``
  with ``lo`` a constant >= 0, ``step`` a constant > 0 and ``hi`` = ``dim(T) {axis}`` of the
  same argument T and axis.  Then 0 <= lo <= iv < hi = T.shape[axis], so the single index
  along that axis is in range (the body never runs when lo >= hi).

Nothing else is concluded: a constant offset 0 with extent 1 is NOT proven, since a tensor
axis may have extent 0 at run time; masks are kept as they are (they still apply).
"""
from __future__ import annotations

from dataclasses import dataclass

from tlc.lower import ir
from tlc.lower.rewrite import map_kernels, rewrite_kernel


def _const(op: ir.Op):
    v = op.attr("value") if op.opcode == "const" else None
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _safe_ivs(block: ir.Block, out: dict[int, tuple[int, int]]) -> dict[int, tuple[int, int]]:
    """id(iv arg) -> (id(tensor arg), axis) for every for loop whose iv is in [0, dim(T, axis))."""
    for op in ir.walk(block):
        if op.opcode != "for":
            continue
        lo, hi, step = op.operands[:3]
        lo_v, step_v = _const(lo), _const(step)
        if lo_v is None or step_v is None or lo_v < 0 or step_v <= 0:
            continue
        if hi.opcode != "dim" or hi.operands[0].opcode != "arg":
            continue
        iv = op.regions[0].args[0]
        out[id(iv)] = (id(hi.operands[0]), hi.attr("axis"))
    return out


def _kernel(k: ir.Kernel) -> ir.Kernel:
    safe = _safe_ivs(k.body, {})
    tensor_args = {id(a) for a in k.body.args}

    def rule(op: ir.Op, emit) -> ir.Op:
        if op.opcode not in ("load", "store"):
            return op
        view = op.operands[0]
        if view.opcode != "view" or id(view.operands[0]) not in tensor_args:
            return op
        shape = op.attr("shape") if op.opcode == "load" else op.operands[1].type.shape
        checked = list(op.attr("checked"))
        for axis, off in enumerate(view.operands[1:]):
            if checked[axis] and shape[axis] == 1 and safe.get(id(off)) == (id(view.operands[0]), axis):
                checked[axis] = False
        if tuple(checked) == tuple(op.attr("checked")):
            return op
        return op.with_(attrs={**dict(op.attrs), "checked": tuple(checked)})

    return rewrite_kernel(k, rule, grid=False)


@dataclass(frozen=True)
class Bounds:
    name: str = "bounds"

    def run(self, module: ir.Module, ctx) -> ir.Module:
        return map_kernels(module, _kernel)


PASS = Bounds()
