"""Masked ``load``/``store`` (``mask=``) by vectors of TL_L lanes instead of one test per element.

For tensors of float32, int32, int64, float16 and bfloat16 whose last axis has stride 1 at run
time, each row of the tile (the last axis) is moved TL_L lanes at a time. Per vector of lanes
[j, j + n) the mask lanes are read from the mask tile (int32 0/1 -> -1/0) and the vector is one of

* inside the tensor (the row's checked leading axes are in bounds and the lanes lie in the
  last axis' in-bounds range [lo, hi)): a load reads the whole vector (every lane is inside the
  tensor) and selects ``other`` where the mask is off; a store writes only the lanes whose mask is
  on (``tl_mst_<s>``: a masked instruction, or a lane loop that stores the whole vector when every
  lane is on). Memory that a masked-off lane covers is never written (no read-modify-write).
* partly inside: the mask is narrowed to the in-bounds lanes and ``tl_mldz_<s>``/``tl_mst_<s>``
  touch only the lanes left on (AVX-512 mask registers and AVX2 ``vmaskmov`` suppress faults on
  the others; other ISAs test each lane of this vector);
* outside: a load gives ``other`` in every lane, a store does nothing.

The primitives are per ISA (tlc/emit_c/isa.py, ``MASKED``). Data moves bit for bit (NaN payloads,
-0.0) as the unmasked row copy does; ``other`` goes through a bitwise select. Any other case
(a non-unit stride, int8/bool data, a 0-d tile) keeps the per-element path of tlc/emit_c/memory.py.
The base address of a row is formed as an integer (it may lie outside the tensor when the row is;
only lanes inside are ever dereferenced).
"""
from __future__ import annotations

import math

from tlc.lower.dtypes import DType
from tlc.emit_c import lanes
from tlc.emit_c.kernel import KernelEmitter, TensorRef, Tile

# dtype -> (primitive suffix, storage lanes -> compute lanes, compute lanes -> storage lanes)
VECTOR = {
    DType.float32: ("f", "{}", "{}"),
    DType.int32: ("i", "{}", "{}"),
    DType.int64: ("l", "{}", "{}"),
    DType.float16: ("h", "tl_v_h2f({})", "tl_v_f2h({})"),
    DType.bfloat16: ("h", "tl_v_bf2f({})", "tl_v_f2bf({})"),
}


def applies(t: TensorRef, tile: Tile, mask: Tile, shape) -> bool:
    """Whether the vector form covers this access (it still tests the stride at run time)."""
    return (bool(shape) and t.dtype in VECTOR and mask.kind == "m"
            and lanes.KIND[t.dtype] == tile.kind and tuple(mask.type.shape) == tuple(shape))


def open_vector(e: KernelEmitter, t: TensorRef, shape, tile: Tile, mask: Tile, checked, other: str | None,
                load: bool) -> None:
    """Emits ``if (<unit inner stride>) { <vector rows> } else {`` and leaves the else block open
    for the caller's per-element path (which closes it)."""
    from tlc.emit_c.memory import _addr, _ctype
    sfx, to_c, to_s = VECTOR[t.dtype]
    k, T, r = tile.kind, _ctype(t.dtype), len(shape)
    vec = lanes.VEC[k]
    e.open(f"if ({t.stride[-1]} == 1)")
    if load:
        e.line(f"const {vec} oth = {lanes.SPLAT[k].format(f'({tile.ctype})({other})')};")
    outer = []
    for a, s in enumerate(shape[:-1]):
        i = e.fresh("i")
        e.open(f"for (int64_t {i} = 0; {i} < {s}; ++{i})")
        outer.append(i)
    ok = " && ".join(f"(uint64_t)({t.off[a]} + {i}) < (uint64_t){t.shape[a]}"
                     for a, i in enumerate(outer) if checked[a]) or "1"
    S, off = shape[-1], t.off[-1]
    lo, hi = e.fresh("lo"), e.fresh("hi")
    if checked[-1]:
        e.line(f"const int64_t {lo} = {off} < 0 ? (-{off} < {S} ? -{off} : {S}) : 0;")
        e.line(f"int64_t {hi} = {t.shape[-1]} - {off}; {hi} = {hi} < {lo} ? {lo} : ({hi} > {S} ? {S} : {hi});")
    else:
        e.line(f"const int64_t {lo} = 0; int64_t {hi} = {S};")
    e.line(f"if (!({ok})) {hi} = {lo};   /* the row is outside the tensor */")
    lin = " + ".join(f"{i} * {math.prod(shape[a + 1:])}" for a, i in enumerate(outer)) or "0"
    e.line(f"const uintptr_t base = (uintptr_t){t.data} + (uintptr_t)(({_addr(t, outer + ['0'])}) "
           f"* (int64_t)sizeof({T}));")
    e.line(f"{'' if load else 'const '}{tile.ctype}* const tr = {tile.name} + {lin};")
    e.line(f"const int32_t* const mr = {mask.name} + {lin};")
    j = e.fresh("j")
    e.open(f"for (int64_t {j} = 0; {j} < {S}; {j} += TL_L)")
    # whole vectors when the row is a multiple of the lanes: n is then a constant for the compiler
    e.line("const int64_t n = TL_L;" if S % e.lanes == 0 else f"const int64_t n = tl_lanes({S} - {j});")
    e.line(f"{'const ' if load else ''}{T}* const p = ({'const ' if load else ''}{T}*)"
           f"(base + (uintptr_t)({j} * (int64_t)sizeof({T})));")
    e.line(f"tl_vi m = tl_ld_i(mr + {j}, n) != 0;")
    e.open(f"if ({lo} <= {j} && {j} + n <= {hi})")
    if load:
        e.line(f"tl_st_{k}(tr + {j}, {lanes.select(k, 'm', to_c.format(f'tl_ld_{sfx}(p, n)'), 'oth')}, n);")
    else:
        e.line(f"tl_mst_{sfx}(p, {to_s.format(f'tl_ld_{k}(tr + {j}, n)')}, m);")
    e.close(f"}} else if ({j} < {hi} && {j} + n > {lo}) {{")
    e.depth += 1
    e.line(f"const tl_vi c = tl_iota_i() + (int32_t){j};")
    e.line(f"m &= (c >= (int32_t){lo}) & (c < (int32_t){hi});")
    if load:
        e.line(f"tl_st_{k}(tr + {j}, {lanes.select(k, 'm', to_c.format(f'tl_mldz_{sfx}(p, m)'), 'oth')}, n);")
        e.close("} else {")
        e.depth += 1
        e.line(f"tl_st_{k}(tr + {j}, oth, n);")
    else:
        e.line(f"tl_mst_{sfx}(p, {to_s.format(f'tl_ld_{k}(tr + {j}, n)')}, m);")
    e.close()
    e.close()
    for _ in outer:
        e.close()
    e.close("} else {")
    e.depth += 1
