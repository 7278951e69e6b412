"""The target-neutral passes: one explicit ordered list, :data:`COMMON_PIPELINE`, and a registry
that rejects unknown names.

Each pass is a small frozen class with ``name`` and ``run(module, ctx) -> module`` (one per file
in this package). ``ctx`` is a :class:`PassContext` carrying the target variant and the backend's
memory spaces. A target's whole pipeline is COMMON_PIPELINE followed by the passes its backend
appends (``Backend.passes(variant)``; :func:`tlc.backends.pipeline`): no file of this package
knows a backend. :func:`tlc.lower.pass_manager.run_pipeline` runs a pipeline in order and
verifies after each pass.

POST-PIPELINE IR (what the C emitter consumes after the CPU backend's passes)
=============================================
Opcodes that can appear in a kernel body after the whole pipeline:

  scalar level  arg, const, program_id, num_programs, dim, and every ELEMENTWISE_UNARY /
                ELEMENTWISE_BINARY op, where, cast on ScalarType operands only (index math).
  memory        view(tensor_arg, *int64 offsets)  -- always rooted directly at a kernel body arg
                (view-of-view is folded); load, store (attrs unchanged from the frontend, except
                ``checked`` may have False entries where bounds analysis proved the axis in range;
                a False axis needs no bounds check; masks, when present, still apply).
  tile          fused, getitem, dot, reduce, reshape, trans, arange.
  control       for, if, yield, getitem.
  NOT present   tile-typed add/mul/.../where/cast/splat/broadcast/full: every tile elementwise op
                lives inside a ``fused`` body (a lone tile op becomes a one-op fused group; a
                ``full`` used as a loop init becomes a fused op with zero inputs).

``fused`` op
  operands  external inputs, in first-use order: tiles of the iteration shape, tiles of equal
            rank with size-1 axes (broadcast along those axes), or ScalarType scalars (splat).
  attrs     shape (iteration space, tuple), lanes (int, variant.lanes), inner (int, see below;
            both set by the CPU backend's pass vectorize),
  regions   one block: args = one ``arg`` op per operand (attrs name="in<i>", index=i) of
            ScalarType(operand dtype) -- the lane value of that input at the current index;
            ops = elementwise opcodes on ScalarType values (add, exp, where, cast, ... and
            ``const`` for a former ``full``/scalar constant), ending in ``yield`` of the lane values
            of the outputs (one per output, in order).
  type      TupleType(TileType(dtype, shape) per output); each output is read by a ``getitem``
            op (attrs index=k) placed right after the fused op; the getitem carries ``buf``.
  inner     k = the number of trailing axes collapsed into one flat vector loop: the largest k
            such that, for every tile input, its last k axes are either all equal to the
            iteration shape's or all 1 (then that input is constant over the inner loop: splat it).
            k == rank when every input has the full shape; k >= 1 when rank >= 1; 0 for rank 0.
            Outer axes (rank - k of them) are plain scalar loops with per-input broadcasting.
Lane dtypes: ScalarType(float16/bfloat16) lane values are held in float32 (DType.compute);
int8/bool in int32; rounding to storage dtype happens only at store and explicit cast.

``buf=(offset, nbytes)`` attr (memory planning, bytes into the tile type's memory space, by
default the per-program workspace of Kernel.workspace bytes; offsets aligned as the backend's
space says, 64 for the workspace; element size = DType.compute itemsize: 4 for
float*/int32/int8/bool, 8 for int64; tiles dense row-major):
  set on every op whose type is a TileType and that materialises a tile: load, getitem of a fused
  or for/if result, dot, reduce, reshape, trans, arange, and tile-typed region args of ``for``
  (carried values). Not set on fused body values (registers) nor on scalars.
  Aliases: reshape has the same offset as its input. A ``getitem`` of a ``for`` result has the
  same buf as the matching carried region arg. The emitter must:
    - before a ``for``: copy each tile init into its carried arg's buf (skip if same offset);
    - at the body's ``yield``: copy each yielded tile into the carried arg's buf (memmove
      semantics; skip when offsets are equal);
    - at an ``if``'s ``yield`` (each branch): copy yielded tiles into the if-result getitem's buf.
  A value's buffer is only reused after its last use (results never share space with the
  operands of the op that defines them, except reshape's alias).

``dot`` and ``reduce`` get attr ``lanes`` (variant.lanes). A float32-output ``dot`` may get
``ukernel=(family, mr, nv)`` (the CPU backend's pass lower_dot): emit it with the tlc.emit_asm
microkernel of that family and register block. Other attrs are unchanged.
Kernel.params[i].access is filled ("read"/"write"/"readwrite"/"none").
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tlc.lower.spaces import DEFAULT_SPACES, MemorySpace


@dataclass(frozen=True, slots=True)
class PassContext:
    """What passes may consult: the target variant (a backend's frozen variant dataclass, or None)
    and the memory spaces its backend has (name -> :class:`tlc.lower.spaces.MemorySpace`)."""

    variant: Any = None
    spaces: dict[str, MemorySpace] = field(default_factory=lambda: dict(DEFAULT_SPACES))

    @property
    def lanes(self) -> int:
        """The variant's float32 lanes per vector (4 without a variant or when it has none)."""
        return getattr(self.variant, "lanes", 4) if self.variant is not None else 4


def get_pass(name: str) -> Any:
    """The registered common pass called ``name``; raises KeyError listing the known names."""
    if name not in REGISTRY:
        raise KeyError(f"unknown pass {name!r}; known passes: {', '.join(REGISTRY)}")
    return REGISTRY[name]


def summary(p: Any) -> str:
    """The first sentence of the docstring of the module (of this package or of a backend's) that
    defines ``p`` as its ``PASS`` (without the "Pass <name>: " prefix), for ``tlc opt --list-passes``."""
    import sys
    mod = next((m for n, m in sorted(sys.modules.items())
                if n.startswith("tlc.") and getattr(m, "PASS", None) is p), None)
    para = " ".join((mod.__doc__ or "").strip().split("\n\n")[0].split()) if mod is not None else ""
    prefix = f"Pass {p.name}: "
    para = para[len(prefix):] if para.startswith(prefix) else para
    end = para.find(". ")
    return para if end < 0 else para[:end + 1]


from tlc.lower.passes import (bounds, canonicalize, fold_constants, fuse_elementwise,  # noqa: E402
                              hoist_views, infer_access, infer_types, plan_memory)

# The target-neutral pipeline, in order (read top to bottom); backends append theirs.
COMMON_PIPELINE: tuple[Any, ...] = (
    infer_types.PASS,
    canonicalize.PASS,
    fold_constants.PASS,
    infer_access.PASS,
    bounds.PASS,
    fuse_elementwise.PASS,
    hoist_views.PASS,
    plan_memory.PASS,
)
REGISTRY: dict[str, Any] = {p.name: p for p in COMMON_PIPELINE}
