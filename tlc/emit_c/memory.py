"""``load`` and ``store``: tiles <-> strided tensors.

Without a mask each emits one runtime test "is the whole tile inside the tensor on every checked
axis"; when true a fast path copies rows (stride-1 rows with vector loads), else the in-bounds
sub-box is copied by the same rows after loads fill the tile with ``other`` (0 when absent). With
a mask, tlc/emit_c/masked.py moves stride-1 rows of float32/int32/int64/float16/bfloat16 by
vectors (masked instructions where the ISA has them); otherwise (another stride at run time, int8
or bool data) a per-element path tests each checked axis and the mask lane and reads ``other`` or
drops the lane. Element addresses are formed only for valid lanes; all index math is int64 (docs/semantics.md#c-01).
Conversions: float16/bfloat16 -> float32 exact; float32 -> float16/bfloat16 round to nearest
even (NaN stays NaN); int32 -> int8 wraps; bool stores 1 for any nonzero lane.
"""
from __future__ import annotations

import math

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c.kernel import KernelEmitter, TensorRef, Tile

_LOAD = {DType.float32: "{}", DType.float16: "tl_h2f({})", DType.bfloat16: "tl_bf2f({})",
         DType.int8: "(int32_t)({})", DType.int32: "{}", DType.int64: "{}",
         DType.bool: "(int32_t)(({}) != 0)"}
_STORE = {DType.float32: "(float)({})", DType.float16: "tl_f2h({})", DType.bfloat16: "tl_f2bf({})",
          DType.int8: "(int8_t)({})", DType.int32: "(int32_t)({})", DType.int64: "(int64_t)({})",
          DType.bool: "(uint8_t)(({}) != 0)"}


# contiguous rows moved TL_L lanes at a time: (load expr of a row pointer, store stmt)
_VEC_ROW = {
    DType.float32: ("tl_ld_f({}, n)", "tl_st_f({}, {}, n)"),
    DType.int32: ("tl_ld_i({}, n)", "tl_st_i({}, {}, n)"),
    DType.int64: ("tl_ld_l({}, n)", "tl_st_l({}, {}, n)"),
    DType.float16: ("tl_v_h2f(tl_ld_h({}, n))", "tl_st_h({}, tl_v_f2h({}), n)"),
    DType.bfloat16: ("tl_v_bf2f(tl_ld_h({}, n))", "tl_st_h({}, tl_v_f2bf({}), n)"),
}


def _checked(op: ir.Op, rank: int) -> tuple[bool, ...]:
    c = op.attr("checked", None)
    return tuple(c) if c is not None else (True,) * rank


def _loops(e: KernelEmitter, shape) -> tuple[list[str], str]:
    idx = []
    for s in shape:
        i = e.fresh("i")
        e.open(f"for (int64_t {i} = 0; {i} < {s}; ++{i})")
        idx.append(i)
    lin, acc = [], 1
    for i, s in reversed(list(zip(idx, shape))):
        lin.append(f"{i} * {acc}")
        acc *= s
    return idx, " + ".join(reversed(lin)) or "0"


def _addr(t: TensorRef, idx: list[str]) -> str:
    return " + ".join(f"({t.off[a]} + {i}) * {t.stride[a]}" for a, i in enumerate(idx)) or "0"


def _in_bounds(t: TensorRef, shape, checked) -> str:
    terms = [f"{t.off[a]} >= 0 && {t.off[a]} <= {t.shape[a]} - {shape[a]}"
             for a in range(len(shape)) if checked[a]]
    return " && ".join(f"({x})" for x in terms) or "1"


def _lane_valid(t: TensorRef, idx, checked, mask: Tile | None, lin: str) -> str:
    terms = [f"(uint64_t)({t.off[a]} + {i}) < (uint64_t){t.shape[a]}"
             for a, i in enumerate(idx) if checked[a]]
    if mask is not None:
        terms.append(f"{mask.name}[{lin}]")
    return " && ".join(f"({x})" for x in terms) or "1"


def _fast_rows(e: KernelEmitter, t: TensorRef, shape, tile: Tile, load: bool,
               box: tuple[list[str], list[str]] | None = None) -> None:
    """Row loops over the tile (or over the sub-box ``box`` = (lo, hi) C expressions per axis,
    tile coordinates); contiguous rows of vector dtypes move TL_L lanes at a time."""
    r = len(shape)
    if r == 0:
        if load:
            e.line(f"{tile.name}[0] = {_LOAD[t.dtype].format(f'{t.data}[0]')};")
        else:
            e.line(f"{t.data}[0] = {_STORE[t.dtype].format(f'{tile.name}[0]')};")
        return
    if box is None:
        outer_idx, _ = _loops(e, shape[:-1])
        first, last = "0", shape[-1]
    else:
        lo, hi = box
        outer_idx = []
        for a in range(r - 1):
            i = e.fresh("i")
            e.open(f"for (int64_t {i} = {lo[a]}; {i} < {hi[a]}; ++{i})")
            outer_idx.append(i)
        first, last = lo[-1], f"({hi[-1]} - {lo[-1]})"
    row = _addr(t, outer_idx + [first])
    lin = " + ".join(f"{i} * {int(__import__('math').prod(shape[a + 1:]))}" for a, i in enumerate(outer_idx)) or "0"
    if first != "0":
        lin = f"{lin} + {first}"
    e.line(f"{'const ' if load else ''}{_ctype(t.dtype)}* const row = {t.data} + {row};")
    e.line(f"{'' if load else 'const '}{tile.ctype}* const tr = {tile.name} + {lin};")
    sl = t.stride[-1]
    j = e.fresh("j")
    vec = t.dtype in _VEC_ROW
    if vec:
        ld, st = _VEC_ROW[t.dtype]
        e.open(f"if ({sl} == 1)")
        e.open(f"for (int64_t {j} = 0; {j} < {last}; {j} += TL_L)")
        e.line(f"const int64_t n = tl_lanes({last} - {j});")
        if load:
            e.line(f"tl_st_{tile.kind}(tr + {j}, {ld.format(f'row + {j}')}, n);")
        else:
            e.line(f"{st.format(f'row + {j}', f'tl_ld_{tile.kind}(tr + {j}, n)')};")
        e.close()
        e.close("} else {")
        e.depth += 1
    e.open(f"for (int64_t {j} = 0; {j} < {last}; ++{j})")
    if load:
        e.line(f"tr[{j}] = {_LOAD[t.dtype].format(f'row[{j} * {sl}]')};")
    else:
        e.line(f"row[{j} * {sl}] = {_STORE[t.dtype].format(f'tr[{j}]')};")
    e.close()
    if vec:
        e.close()
    for _ in outer_idx:
        e.close()


def _ctype(dt: DType) -> str:
    from tlc.emit_c.kernel import STORAGE_C
    return STORAGE_C[dt]


def dot_b_loads(e: KernelEmitter) -> set[int]:
    """ids of the loads that are the B operand (directly or through one alias ``reshape``) of a
    microkernel ``dot`` that packs B (M > mr, N a multiple of the lanes), have no other use,
    no mask, float32 data and size-1 leading axes: when such a load is in bounds with unit
    inner stride it copies nothing, and the dot packs B straight from the tensor. The same for
    the A operand where ``gemm.a_from_source`` says so (the dot copies A with prefetching)."""
    from tlc.emit_asm import gemm

    def operands(op, uk):
        if uk[0] not in gemm.LANES:
            return []
        (M, _), N = op.operands[0].type.shape, op.operands[1].type.shape[1]
        # B, and (gemm.a_from_source) A, which the dot then copies itself with prefetching
        return (([op.operands[1]] if gemm.b_from_source(uk[0], M, uk[1], N) else [])
                + ([op.operands[0]] if gemm.a_from_source(uk[0], M, uk[1]) else []))
    return collect_direct_loads(e, "_dot_b_loads", operands, DType.float32)


def gather_b_loads(e: KernelEmitter) -> dict[int, int]:
    """{id: j} of the float32 loads that are the B operand (through one alias ``reshape``) of an
    x86 microkernel ``dot`` that packs B (M > mr) and are not 2-D (see :func:`dot_b_loads`), but
    whose shape splits as rows = prod(shape[:j]), columns = prod(shape[j:]) with the innermost
    extent a multiple of the lanes (say a conv window (1, C, KH, KW, 1, BH, BW) read as
    (C*KH*KW, BH*BW)). Unmasked and single-use like the 2-D case: in bounds with unit inner
    stride such a load copies nothing, and the dot packs B straight from the tensor through a
    table of row offsets and one of column-chunk offsets (one run of lanes each)."""
    found = e.__dict__.get("_gather_b_loads")
    if found is not None:
        return found
    from tlc.emit_asm import gemm
    found = {}
    direct = dot_b_loads(e)
    for op in ir.walk(e.k.body):
        uk = op.attr("ukernel", None) if op.opcode == "dot" else None
        if uk is None or uk[0] not in gemm.ROW_CAP:
            continue
        (M, _), (R, N) = op.operands[0].type.shape, op.operands[1].type.shape
        rs = op.operands[1]
        if not (M > uk[1] and gemm.b_from_source(uk[0], M, uk[1], N)) or rs.opcode != "reshape":
            continue
        ld = rs.operands[0]
        rb, lb = rs.attr("buf", None), ld.attr("buf", None)
        if (ld.opcode != "load" or id(ld) in direct or e.uses.get(id(rs), 0) != 1
                or e.uses.get(id(ld), 0) != 1 or ld.attr("has_mask", False)
                or ld.operands[0].type.dtype is not DType.float32
                or (rb is not None and (lb is None or rb[0] != lb[0]))):
            continue
        shape = tuple(ld.attr("shape", ()))
        if not shape or shape[-1] % e.lanes:
            continue
        j = next((j for j in range(1, len(shape)) if math.prod(shape[:j]) == R), None)
        if j is not None:
            found[id(ld)] = j
    e.__dict__["_gather_b_loads"] = found
    e.__dict__.setdefault("dot_b_src", {})
    return found


def collect_direct_loads(e: KernelEmitter, key: str, operands, dtype) -> set[int]:
    """ids (cached in ``e`` under ``key``) of the loads behind the operands that
    ``operands(dot_op, ukernel)`` lists for each microkernel ``dot`` and that the dot may read
    in place (:func:`direct_operand` with ``dtype``)."""
    found = e.__dict__.get(key)
    if found is not None:
        return found
    found = set()
    for op in ir.walk(e.k.body):
        uk = op.attr("ukernel", None) if op.opcode == "dot" else None
        if uk is None:
            continue
        for ld in operands(op, uk):
            hit = direct_operand(e, ld, dtype)
            if hit is not None:
                found.add(hit)
    e.__dict__[key] = found
    e.__dict__.setdefault("dot_b_src", {})
    return found


def direct_operand(e: KernelEmitter, ld: ir.Op, dtype) -> int | None:
    """id of the load behind the dot operand ``ld`` (looking through a single-use reshape of the
    same buffer) when the dot may read the tensor in place: an unmasked, single-use load of
    ``dtype`` with shape (1, ..., 1, R, C); else None."""
    if ld.opcode == "reshape":
        rs, ld = ld, ld.operands[0]
        if e.uses.get(id(rs), 0) != 1 or ld.opcode != "load":
            return None
        rb, lb = rs.attr("buf", None), ld.attr("buf", None)
        if rb is not None and (lb is None or rb[0] != lb[0]):
            return None
    shape = tuple(ld.attr("shape", ())) if ld.opcode == "load" else ()
    if (ld.opcode == "load" and e.uses.get(id(ld), 0) == 1 and not ld.attr("has_mask", False)
            and ld.operands[0].type.dtype is dtype and len(shape) >= 2 and all(s == 1 for s in shape[:-2])):
        return id(ld)
    return None


def emit_load(e: KernelEmitter, op: ir.Op) -> None:
    t: TensorRef = e.val(op.operands[0])
    shape = tuple(op.attr("shape"))
    rest = list(op.operands[1:])
    mask = e.tile(rest.pop(0)) if op.attr("has_mask", False) else None
    other = e.scalar(rest.pop(0)) if op.attr("has_other", False) else "0"
    out = e.result_tile(op)
    checked = _checked(op, len(shape))
    if mask is not None:
        _masked(e, t, shape, out, checked, mask, other, True, lambda idx, lin, valid: (
            f"{out.name}[{lin}] = ({valid}) ? "
            f"{_LOAD[t.dtype].format(f'{t.data}[{_addr(t, idx)}]')} : ({out.ctype})({other});"))
        return
    fast = _in_bounds(t, shape, checked)
    from tlc.emit_asm import gemm_bf16
    gather = gather_b_loads(e).get(id(op))
    # a dot's B (or a bf16 microkernel dot's A or B): in bounds with unit inner stride -> no copy
    if gather is not None:   # a multi-axis B window: row and column-chunk offset tables
        src, rt, ct = (f"{out.name}_{s}" for s in ("src", "rt", "ct"))
        e.line(f"const float* {src} = 0; int64_t {rt}[{math.prod(shape[:gather])}]; "
               f"int64_t {ct}[{math.prod(shape[gather:]) // e.lanes}];")
        e.open(f"if (({fast}) && {t.stride[-1]} == 1)")
        e.line(f"{src} = {t.data} + {_addr(t, ['0'] * len(shape))};")
        for tab, dims, step in ((rt, range(gather), None), (ct, range(gather, len(shape)), e.lanes)):
            n = e.fresh("n")
            e.line(f"int64_t {n} = 0;")
            idx = []
            for a in dims:
                i = e.fresh("i")
                inc = step if a == len(shape) - 1 else 1
                e.open(f"for (int64_t {i} = 0; {i} < {shape[a]}; {i} += {inc})")
                idx.append(f"{i} * {t.stride[a]}")
            e.line(f"{tab}[{n}++] = {' + '.join(idx)};")
            for _ in dims:
                e.close()
        e.close(f"}} else if ({fast}) {{")
        e.depth += 1
        e.__dict__["dot_b_src"][id(op)] = (src, "0", rt, ct)
    elif id(op) in dot_b_loads(e) or id(op) in gemm_bf16.direct_loads(e):
        src, ld = f"{out.name}_src", f"{out.name}_ld"
        e.line(f"const {'uint16_t' if t.dtype is DType.bfloat16 else 'float'}* {src} = 0; int64_t {ld} = 0;")
        e.open(f"if (({fast}) && {t.stride[-1]} == 1)")
        e.line(f"{src} = {t.data} + {_addr(t, ['0'] * len(shape))}; {ld} = {t.stride[-2]};")
        e.close(f"}} else if ({fast}) {{")
        e.depth += 1
        e.__dict__["dot_b_src"][id(op)] = (src, ld)
    else:
        e.open(f"if ({fast})")
    _fast_then_edges(e, t, shape, out, checked, load=True, fill=f"({out.ctype})({other})")


def emit_store(e: KernelEmitter, op: ir.Op) -> None:
    t: TensorRef = e.val(op.operands[0])
    val = e.tile(op.operands[1]) if isinstance(op.operands[1].type, ir.TileType) else None
    if val is None:   # a scalar stored to a 0-d view
        e.line(f"{t.data}[{_addr(t, ['0'] * len(t.off))}] = "
               f"{_STORE[t.dtype].format(e.scalar(op.operands[1]))};")
        return
    shape = tuple(val.type.shape)
    mask = e.tile(op.operands[2]) if op.attr("has_mask", False) else None
    checked = _checked(op, len(shape))
    if mask is not None:
        _masked(e, t, shape, val, checked, mask, None, False, lambda idx, lin, valid: (
            f"if ({valid}) {t.data}[{_addr(t, idx)}] = {_STORE[t.dtype].format(f'{val.name}[{lin}]')};"))
        return
    e.open(f"if ({_in_bounds(t, shape, checked)})")
    _fast_then_edges(e, t, shape, val, checked, load=False)


def _masked(e: KernelEmitter, t: TensorRef, shape, tile: Tile, checked, mask: Tile, other: str | None,
            load: bool, stmt) -> None:
    """A masked access: by vectors where :mod:`tlc.emit_c.masked` applies (unit inner stride at run
    time), else (and for a non-unit stride) one element at a time, whose statement
    ``stmt(idx, lin, valid)`` returns (``valid`` is the lane's bounds-and-mask condition)."""
    from tlc.emit_c import masked
    vec = masked.applies(t, tile, mask, shape)
    if vec:
        masked.open_vector(e, t, shape, tile, mask, checked, other, load)
    idx, lin = _loops(e, shape)
    e.line(stmt(idx, lin, _lane_valid(t, idx, checked, mask, lin)))
    for _ in idx:
        e.close()
    if vec:
        e.close()


def _edge_box(e: KernelEmitter, t: TensorRef, shape, checked) -> tuple[list[str], list[str]]:
    """Per axis, the tile coordinates [lo, hi) that lie inside the tensor (an empty range when
    none does): lo = clamp(-off, 0, S), hi = clamp(extent - off, lo, S); unchecked axes: [0, S)."""
    lo, hi = [], []
    for a, s in enumerate(shape):
        if not checked[a]:
            lo.append("0")
            hi.append(str(s))
            continue
        l, h = e.fresh("lo"), e.fresh("hi")
        off = t.off[a]
        e.line(f"const int64_t {l} = {off} < 0 ? (-{off} < {s} ? -{off} : {s}) : 0;")
        e.line(f"int64_t {h} = {t.shape[a]} - {off}; {h} = {h} < {l} ? {l} : ({h} > {s} ? {s} : {h});")
        lo.append(l)
        hi.append(h)
    return lo, hi


def _fill(e: KernelEmitter, buf: Tile, n: int, value: str) -> None:
    """buf[0:n] = value, TL_L lanes at a time."""
    from tlc.emit_c import lanes
    q = e.fresh("q")
    splat = lanes.SPLAT["i"].format(value) if buf.kind == "m" else lanes.SPLAT[buf.kind].format(value)
    e.line(f"const {lanes.VEC[buf.kind]} fill = {splat};")
    e.open(f"for (int64_t {q} = 0; {q} < {n}; {q} += TL_L)")
    e.line(f"tl_st_{lanes.SUFFIX[buf.kind]}({buf.name} + {q}, fill, tl_lanes({n} - {q}));")
    e.close()


def _fast_then_edges(e: KernelEmitter, t: TensorRef, shape, buf, checked, load: bool,
                     fill: str | None = None) -> None:
    """Finishes an ``if (<tile in bounds>) {`` opened by the caller: the row copy, then
    ``} else {`` the edge path: ``fill`` (loads) and a row copy of the in-bounds sub-box (so a
    1-element tile of a 256-lane load costs one lane, not 256 tests). Closes every block it opened."""
    _fast_rows(e, t, shape, buf, load=load)
    e.close("} else {")
    e.depth += 1
    if shape:
        # partly outside: `fill` everywhere (loads), then the in-bounds sub-box by rows
        box = _edge_box(e, t, shape, checked)
        if load:
            _fill(e, buf, int(__import__("math").prod(shape)), fill)
        _fast_rows(e, t, shape, buf, load=load, box=box)
    e.close()
