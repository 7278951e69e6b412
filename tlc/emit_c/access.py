"""Tile <-> tensor access: the row copies of ``load``/``store`` (rules/memory.py), their bounds
tests and edge boxes, and masked accesses by vectors.

Without a mask a load or store emits one runtime test "is the whole tile inside the tensor on
every checked axis"; when true a fast path copies rows (stride-1 rows with vector loads), else the
in-bounds sub-box is copied by the same rows after loads fill the tile with ``other``.

Masked ``load``/``store`` (``mask=``) by vectors of TL_L lanes instead of one test per element
(:func:`open_vector`):
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
(a non-unit stride, int8/bool data, a 0-d tile) keeps the per-element path of :func:`masked_access`.
The base address of a row is formed as an integer (it may lie outside the tensor when the row is;
only lanes inside are ever dereferenced).
"""
from __future__ import annotations

import math

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import lanes
from tlc.emit_c.context import Context
from tlc.emit_c.plan import Plan
from tlc.emit_c.values import STORAGE_C, TensorRef, Tile



LOAD = {DType.float32: "{}", DType.float16: "tl_h2f({})", DType.bfloat16: "tl_bf2f({})",
         DType.int8: "(int32_t)({})", DType.int32: "{}", DType.int64: "{}",
         DType.bool: "(int32_t)(({}) != 0)"}


STORE = {DType.float32: "(float)({})", DType.float16: "tl_f2h({})", DType.bfloat16: "tl_f2bf({})",
          DType.int8: "(int8_t)({})", DType.int32: "(int32_t)({})", DType.int64: "(int64_t)({})",
          DType.bool: "(uint8_t)(({}) != 0)"}


# contiguous rows moved TL_L lanes at a time: (load expr of a row pointer, store stmt)
VEC_ROW = {
    DType.float32: ("tl_ld_f({}, n)", "tl_st_f({}, {}, n)"),
    DType.int32: ("tl_ld_i({}, n)", "tl_st_i({}, {}, n)"),
    DType.int64: ("tl_ld_l({}, n)", "tl_st_l({}, {}, n)"),
    DType.float16: ("tl_v_h2f(tl_ld_h({}, n))", "tl_st_h({}, tl_v_f2h({}), n)"),
    DType.bfloat16: ("tl_v_bf2f(tl_ld_h({}, n))", "tl_st_h({}, tl_v_f2bf({}), n)"),
}


def checked_axes(op: ir.Op, rank: int) -> tuple[bool, ...]:
    c = op.attr("checked", None)
    return tuple(c) if c is not None else (True,) * rank


def index_loops(ctx: Context, shape) -> tuple[list[str], str]:
    idx = []
    for s in shape:
        i = ctx.fresh("i")
        ctx.open(f"for (int64_t {i} = 0; {i} < {s}; ++{i})")
        idx.append(i)
    lin, acc = [], 1
    for i, s in reversed(list(zip(idx, shape))):
        lin.append(f"{i} * {acc}")
        acc *= s
    return idx, " + ".join(reversed(lin)) or "0"


def addr(t: TensorRef, idx: list[str]) -> str:
    return " + ".join(f"({t.off[a]} + {i}) * {t.stride[a]}" for a, i in enumerate(idx)) or "0"


def in_bounds(t: TensorRef, shape, checked) -> str:
    terms = [f"{t.off[a]} >= 0 && {t.off[a]} <= {t.shape[a]} - {shape[a]}"
             for a in range(len(shape)) if checked[a]]
    return " && ".join(f"({x})" for x in terms) or "1"


def lane_valid(t: TensorRef, idx, checked, mask: Tile | None, lin: str) -> str:
    terms = [f"(uint64_t)({t.off[a]} + {i}) < (uint64_t){t.shape[a]}"
             for a, i in enumerate(idx) if checked[a]]
    if mask is not None:
        terms.append(f"{mask.name}[{lin}]")
    return " && ".join(f"({x})" for x in terms) or "1"


def fast_rows(ctx: Context, plan: Plan, t: TensorRef, shape, tile: Tile, load: bool,
               box: tuple[list[str], list[str]] | None = None) -> None:
    """Row loops over the tile (or over the sub-box ``box`` = (lo, hi) C expressions per axis,
    tile coordinates); contiguous rows of vector dtypes move TL_L lanes at a time."""
    r = len(shape)
    if r == 0:
        if load:
            ctx.line(f"{tile.name}[0] = {LOAD[t.dtype].format(f'{t.data}[0]')};")
        else:
            ctx.line(f"{t.data}[0] = {STORE[t.dtype].format(f'{tile.name}[0]')};")
        return
    if box is None:
        outer_idx, _ = index_loops(ctx, shape[:-1])
        first, last = "0", shape[-1]
    else:
        lo, hi = box
        outer_idx = []
        for a in range(r - 1):
            i = ctx.fresh("i")
            ctx.open(f"for (int64_t {i} = {lo[a]}; {i} < {hi[a]}; ++{i})")
            outer_idx.append(i)
        first, last = lo[-1], f"({hi[-1]} - {lo[-1]})"
    row = addr(t, outer_idx + [first])
    lin = " + ".join(f"{i} * {math.prod(shape[a + 1:])}" for a, i in enumerate(outer_idx)) or "0"
    if first != "0":
        lin = f"{lin} + {first}"
    ctx.line(f"{'const ' if load else ''}{STORAGE_C[t.dtype]}* const row = {t.data} + {row};")
    ctx.line(f"{'' if load else 'const '}{tile.ctype}* const tr = {tile.name} + {lin};")
    sl = t.stride[-1]
    j = ctx.fresh("j")
    vec = t.dtype in VEC_ROW
    if vec:
        ld, st = VEC_ROW[t.dtype]
        ctx.open(f"if ({sl} == 1)")
        ctx.open(f"for (int64_t {j} = 0; {j} < {last}; {j} += TL_L)")
        ctx.line(f"const int64_t n = tl_lanes({last} - {j});")
        if load:
            ctx.line(f"tl_st_{tile.kind}(tr + {j}, {ld.format(f'row + {j}')}, n);")
        else:
            ctx.line(f"{st.format(f'row + {j}', f'tl_ld_{tile.kind}(tr + {j}, n)')};")
        ctx.close()
        ctx.chain("} else {")
    ctx.open(f"for (int64_t {j} = 0; {j} < {last}; ++{j})")
    if load:
        ctx.line(f"tr[{j}] = {LOAD[t.dtype].format(f'row[{j} * {sl}]')};")
    else:
        ctx.line(f"row[{j} * {sl}] = {STORE[t.dtype].format(f'tr[{j}]')};")
    ctx.close()
    if vec:
        ctx.close()
    for _ in outer_idx:
        ctx.close()


def masked_access(ctx: Context, plan: Plan, t: TensorRef, shape, tile: Tile, checked, mask: Tile, other: str | None,
            load: bool, stmt) -> None:
    """A masked access: by vectors where :func:`open_vector` applies (unit inner stride at run
    time), else (and for a non-unit stride) one element at a time, whose statement
    ``stmt(idx, lin, valid)`` returns (``valid`` is the lane's bounds-and-mask condition)."""
    vec = applies(t, tile, mask, shape)
    if vec:
        open_vector(ctx, plan, t, shape, tile, mask, checked, other, load)
    idx, lin = index_loops(ctx, shape)
    ctx.line(stmt(idx, lin, lane_valid(t, idx, checked, mask, lin)))
    for _ in idx:
        ctx.close()
    if vec:
        ctx.close()


def edge_box(ctx: Context, t: TensorRef, shape, checked) -> tuple[list[str], list[str]]:
    """Per axis, the tile coordinates [lo, hi) that lie inside the tensor (an empty range when
    none does): lo = clamp(-off, 0, S), hi = clamp(extent - off, lo, S); unchecked axes: [0, S)."""
    lo, hi = [], []
    for a, s in enumerate(shape):
        if not checked[a]:
            lo.append("0")
            hi.append(str(s))
            continue
        l, h = ctx.fresh("lo"), ctx.fresh("hi")
        off = t.off[a]
        ctx.line(f"const int64_t {l} = {off} < 0 ? (-{off} < {s} ? -{off} : {s}) : 0;")
        ctx.line(f"int64_t {h} = {t.shape[a]} - {off}; {h} = {h} < {l} ? {l} : ({h} > {s} ? {s} : {h});")
        lo.append(l)
        hi.append(h)
    return lo, hi


def fill_tile(ctx: Context, buf: Tile, n: int, value: str) -> None:
    """buf[0:n] = value, TL_L lanes at a time."""
    q = ctx.fresh("q")
    splat = lanes.SPLAT["i"].format(value) if buf.kind == "m" else lanes.SPLAT[buf.kind].format(value)
    ctx.line(f"const {lanes.VEC[buf.kind]} fill = {splat};")
    ctx.open(f"for (int64_t {q} = 0; {q} < {n}; {q} += TL_L)")
    ctx.line(f"tl_st_{lanes.SUFFIX[buf.kind]}({buf.name} + {q}, fill, tl_lanes({n} - {q}));")
    ctx.close()


def fast_then_edges(ctx: Context, plan: Plan, t: TensorRef, shape, buf, checked, load: bool,
                     fill: str | None = None) -> None:
    """Finishes an ``if (<tile in bounds>) {`` opened by the caller: the row copy, then
    ``} else {`` the edge path: ``fill`` (loads) and a row copy of the in-bounds sub-box (so a
    1-element tile of a 256-lane load costs one lane, not 256 tests). Closes every block it opened."""
    fast_rows(ctx, plan, t, shape, buf, load=load)
    ctx.chain("} else {")
    if shape:
        # partly outside: `fill` everywhere (loads), then the in-bounds sub-box by rows
        box = edge_box(ctx, t, shape, checked)
        if load:
            fill_tile(ctx, buf, math.prod(shape), fill)
        fast_rows(ctx, plan, t, shape, buf, load=load, box=box)
    ctx.close()


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


def open_vector(ctx: Context, plan: Plan, t: TensorRef, shape, tile: Tile, mask: Tile, checked, other: str | None,
                load: bool) -> None:
    """Emits ``if (<unit inner stride>) { <vector rows> } else {`` and leaves the else block open
    for the caller's per-element path (which closes it)."""
    sfx, to_c, to_s = VECTOR[t.dtype]
    k, T, r = tile.kind, STORAGE_C[t.dtype], len(shape)
    vec = lanes.VEC[k]
    ctx.open(f"if ({t.stride[-1]} == 1)")
    if load:
        ctx.line(f"const {vec} oth = {lanes.SPLAT[k].format(f'({tile.ctype})({other})')};")
    outer = []
    for a, s in enumerate(shape[:-1]):
        i = ctx.fresh("i")
        ctx.open(f"for (int64_t {i} = 0; {i} < {s}; ++{i})")
        outer.append(i)
    ok = " && ".join(f"(uint64_t)({t.off[a]} + {i}) < (uint64_t){t.shape[a]}"
                     for a, i in enumerate(outer) if checked[a]) or "1"
    S, off = shape[-1], t.off[-1]
    lo, hi = ctx.fresh("lo"), ctx.fresh("hi")
    if checked[-1]:
        ctx.line(f"const int64_t {lo} = {off} < 0 ? (-{off} < {S} ? -{off} : {S}) : 0;")
        ctx.line(f"int64_t {hi} = {t.shape[-1]} - {off}; {hi} = {hi} < {lo} ? {lo} : ({hi} > {S} ? {S} : {hi});")
    else:
        ctx.line(f"const int64_t {lo} = 0; int64_t {hi} = {S};")
    ctx.line(f"if (!({ok})) {hi} = {lo};   /* the row is outside the tensor */")
    lin = " + ".join(f"{i} * {math.prod(shape[a + 1:])}" for a, i in enumerate(outer)) or "0"
    ctx.line(f"const uintptr_t base = (uintptr_t){t.data} + (uintptr_t)(({addr(t, outer + ['0'])}) "
             f"* (int64_t)sizeof({T}));")
    ctx.line(f"{'' if load else 'const '}{tile.ctype}* const tr = {tile.name} + {lin};")
    ctx.line(f"const int32_t* const mr = {mask.name} + {lin};")
    j = ctx.fresh("j")
    ctx.open(f"for (int64_t {j} = 0; {j} < {S}; {j} += TL_L)")
    # whole vectors when the row is a multiple of the lanes: n is then a constant for the compiler
    ctx.line("const int64_t n = TL_L;" if S % plan.lanes == 0 else f"const int64_t n = tl_lanes({S} - {j});")
    ctx.line(f"{'const ' if load else ''}{T}* const p = ({'const ' if load else ''}{T}*)"
             f"(base + (uintptr_t)({j} * (int64_t)sizeof({T})));")
    ctx.line(f"tl_vi m = tl_ld_i(mr + {j}, n) != 0;")
    ctx.open(f"if ({lo} <= {j} && {j} + n <= {hi})")
    if load:
        ctx.line(f"tl_st_{k}(tr + {j}, {lanes.select(k, 'm', to_c.format(f'tl_ld_{sfx}(p, n)'), 'oth')}, n);")
    else:
        ctx.line(f"tl_mst_{sfx}(p, {to_s.format(f'tl_ld_{k}(tr + {j}, n)')}, m);")
    ctx.chain(f"}} else if ({j} < {hi} && {j} + n > {lo}) {{")
    ctx.line(f"const tl_vi c = tl_iota_i() + (int32_t){j};")
    ctx.line(f"m &= (c >= (int32_t){lo}) & (c < (int32_t){hi});")
    if load:
        ctx.line(f"tl_st_{k}(tr + {j}, {lanes.select(k, 'm', to_c.format(f'tl_mldz_{sfx}(p, m)'), 'oth')}, n);")
        ctx.chain("} else {")
        ctx.line(f"tl_st_{k}(tr + {j}, oth, n);")
    else:
        ctx.line(f"tl_mst_{sfx}(p, {to_s.format(f'tl_ld_{k}(tr + {j}, n)')}, m);")
    ctx.close()
    ctx.close()
    for _ in outer:
        ctx.close()
    ctx.chain("} else {")
