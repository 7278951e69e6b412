"""The C emitter: post-pipeline tile IR -> one freestanding C11 translation unit per variant.

Public API:
  emit_bundle(kernels, variant, source_file, display_file=None) -> str    the bundle's C source

The flags the generated C is compiled with (and relies on: -fno-strict-aliasing, -ffp-contract=off,
freestanding) are tlc.backends.cpu.build.BASE_CFLAGS, the one list the package build and the emitter
tests (tests/emit_c/harness.py) both use.

The TU includes "tl/bundle_abi.h", defines each kernel's entry ``k_<name>``, its grid function
``grid_<name>`` (kernels with a grid block), the parameter/kernel descriptor tables and the one
exported symbol ``tl_bundle_query``. The emitter's layout is in docs/design.md, "Emitter
structure": per kernel a frozen plan (plan.py), then the walk (walk.py) through per-opcode rule
tables (rules/) writing into an emission context (context.py). Per-ISA differences come from :mod:`tlc.emit_c.isa`
(KeyError for a missing entry); vector math from templates/vmath.j2. Deterministic: identical
input gives byte-identical output. ``display_file`` (e.g. "ops/softmax.py", relative to the build
root) replaces ``source_file`` in the descriptors' ``source`` and in the C's comments, so the
output does not depend on where the sources lie.
"""
from __future__ import annotations

import json
import re

from tlc import templating
from tlc.lower import ir
from tlc.backends.cpu.targets import Variant
from tlc.emit_c import isa as isa_tables
from tlc.emit_c import walk
from tlc.emit_c.plan import analyse

_ACCESS = {"none": "TL_ACCESS_NONE", "read": "TL_ACCESS_READ", "write": "TL_ACCESS_WRITE",
           "readwrite": "TL_ACCESS_READWRITE"}


def _lit(s: str) -> str:
    return json.dumps(s, ensure_ascii=True)


def _cname(name: str) -> str:
    return re.sub(r"[^0-9A-Za-z_]", "_", name)


def _kernel_ctx(k: ir.Kernel, source_file: str, lanes: int, shown) -> dict:
    plan = analyse(k, source_file, lanes, shown)
    em = walk.entry(plan)
    entry = em.lines
    grid = walk.grid(plan).lines if k.grid is not None else None
    params = [dict(name=_lit(p.name), kind="TL_PARAM_TENSOR" if p.kind == "tensor" else "TL_PARAM_SCALAR",
                   dtype=p.dtype.value if p.dtype is not None else 0, rank=p.rank if p.kind == "tensor" else 0,
                   access=_ACCESS[p.access] if p.kind == "tensor" else "TL_ACCESS_NONE")
              for p in k.runtime_params]
    contract = shape_contract(k)
    constexprs = json.dumps({n: (str(v) if not isinstance(v, (int, float, bool, str)) else v)
                             for n, v in k.constexprs}, sort_keys=True)
    src = f"{shown(k.loc.file)}:{k.loc.line}" if k.loc is not None else shown(source_file)
    return dict(name=k.name, cname=_cname(k.name), name_lit=_lit(k.name), entry=entry, grid=grid,
                params=params, workspace=em.ws_end, constexprs=_lit(constexprs), source=comment_safe(src),
                source_lit=_lit(src), asm=em.asm, contract=contract)


def shape_contract(k: ir.Kernel) -> dict | None:
    """The descriptor's shape contract (tl_kernel_desc_t.dims / dim_names in tl/bundle_abi.h), or None
    when no tensor parameter names its axes: dims (C int32 literals, per axis of each tensor
    parameter in call order) and names (C string literals, symbol id order = first appearance)."""
    tensors = [p for p in k.runtime_params if p.kind == "tensor"]
    if all(p.dims is None for p in tensors):
        return None
    names: list[str] = []
    dims: list[str] = []
    for p in tensors:
        for d in (p.dims if p.dims is not None else (None,) * p.rank):
            if d is None:
                dims.append("TL_DIM_NONE")
            elif isinstance(d, str):
                if d not in names:
                    names.append(d)
                dims.append(str(names.index(d)))
            else:
                dims.append(f"TL_DIM_FIXED({d})")
    if len(names) > 64:    # TL_MAX_DIM_SYMBOLS
        raise ValueError(f"kernel {k.name}: its shape contract names {len(names)} symbols, more than 64")
    return dict(dims=dims, names=[_lit(n) for n in names])


def comment_safe(text: str) -> str:
    """``text`` made safe inside a C block comment: no ``*/`` (nor a ``/*`` that -Wcomment flags)."""
    return text.replace("*/", "* /").replace("/*", "/ *")


def emit_bundle(kernels: list[ir.Kernel], variant: Variant, source_file: str, display_file: str | None = None) -> str:
    """One C translation unit holding ``kernels`` for ``variant``.

    Raises KeyError when the variant's ISA table lacks an entry the code needs or an op has no
    emission rule.
    """
    tab = isa_tables.table(variant.isa)
    for key in isa_tables.REQUIRED:
        isa_tables.entry(variant.isa, key, a="a", b="b", c="c")
    ctx = dict(isa=variant.isa, lanes=tab["lanes"], includes=tab["includes"],
               **{k: isa_tables.entry(variant.isa, k, a="a", b="b", c="c")
                  for k in ("splat_f", "splat_i", "fma", "sqrt")},
               h2f=isa_tables.entry(variant.isa, "h2f", a="h"),
               f2h=isa_tables.entry(variant.isa, "f2h", a="f"),
               f2i=isa_tables.entry(variant.isa, "f2i", a="a"),
               f2l=isa_tables.entry(variant.isa, "f2l", a="a"),
               masked={k: isa_tables.entry(variant.isa, k, a="p", b="m", c="v") for k in isa_tables.MASKED})
    prelude = templating.render("emit_c/prelude.j2",**ctx)
    vmath = templating.render("emit_c/vmath.j2",**ctx)
    def shown(f: str) -> str:
        return display_file if display_file and f == source_file else f
    kctx = [_kernel_ctx(k, source_file, tab["lanes"], shown) for k in kernels]
    asm = {}
    for kc in kctx:
        asm.update(kc.pop("asm"))
    return templating.render("emit_c/bundle.j2",
        source_file=comment_safe(shown(source_file)), variant=variant.name, isa=variant.isa, prelude=prelude, vmath=vmath,
        asm=[asm[n] for n in sorted(asm)], kernels=kctx, variant_lit=_lit(variant.name),
        features_lit=_lit(",".join(variant.features)))
