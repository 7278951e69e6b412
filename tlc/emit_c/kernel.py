"""Emits the C body of one kernel (entry function and grid function) from post-pipeline IR.

Value representation in C:
  scalar        a local ``v<N>`` of the compute C type (float / int32_t / int64_t; bool 0/1)
  tile          ``T* v<N>`` into the per-call workspace, dense row-major, compute dtype lanes;
                placed at ``attrs buf=(offset, nbytes)`` when memory planning set it, else at a
                fallback offset after ``Kernel.workspace`` (bump allocation, no reuse); a small
                loop-carried tile of a runtime ``for`` lives in vector locals instead
                (:class:`RegTile`) and is stored to its buffer after the loop
  tensor/view   :class:`TensorRef`: base data pointer, shape, strides and per-axis offsets
Ops are emitted in program order; each op's statements start with ``/* file:line */``.
"""
from __future__ import annotations

from dataclasses import dataclass

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import lanes

STORAGE_C = {DType.bool: "uint8_t", DType.int8: "int8_t", DType.int32: "int32_t",
             DType.int64: "int64_t", DType.float16: "uint16_t", DType.bfloat16: "uint16_t",
             DType.float32: "float"}
ALIGN = 64


@dataclass
class TensorRef:
    """A tensor parameter or a view: element i of axis a is at data + (off[a] + i) * stride[a]
    and is in bounds when 0 <= off[a] + i < shape[a]."""

    dtype: DType
    data: str
    shape: list[str]
    stride: list[str]
    off: list[str]


@dataclass
class Tile:
    name: str            # C pointer name
    offset: int          # byte offset in the workspace
    type: ir.TileType

    @property
    def kind(self) -> str:
        return lanes.KIND[self.type.dtype]

    @property
    def ctype(self) -> str:
        return lanes.MEM_C[self.kind]


@dataclass
class RegTile:
    """A loop-carried tile kept in vector locals for the whole runtime ``for`` (see
    :meth:`KernelEmitter.reg_carried`): row r (of the leading axes, row-major), vector v (TL_L
    lanes of the last axis) is the C local ``<name>_<r * vpr + v>`` in memory form (bools 0/1);
    lanes past the row end are don't-care. Lane loops touching one are unrolled at emit time, so
    every local is named by a constant and gcc keeps them in registers: no workspace loads and
    stores per chunk step, and no stores that block later loads."""

    name: str
    type: ir.TileType
    rows: int
    vpr: int             # vectors per row: ceil(shape[-1] / lanes)

    @property
    def kind(self) -> str:
        return lanes.KIND[self.type.dtype]

    def reg(self, row: int, v: int) -> str:
        return f"{self.name}_{row * self.vpr + v}"


# most vectors (an int64 vector counts 2) the carried tiles of one loop may keep in locals
REG_VECTORS = 24


def numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def elem_bytes(dtype: DType) -> int:
    return 8 if dtype.compute is DType.int64 else 4


class KernelEmitter:
    """Turns one :class:`ir.Kernel` into C lines. ``lines`` is the entry body."""

    def __init__(self, kernel: ir.Kernel, source_file: str, lanes: int, shown=None):
        self.k = kernel
        self.lanes = lanes
        self.source_file = source_file
        self.shown = shown or (lambda f: f)     # loc.file -> the name the C's comments give
        self.lines: list[str] = []
        self.depth = 1
        self.names: dict[int, object] = {}
        self.counter = 0
        self.in_grid = False                  # emitting the grid function (grid_body)
        self.loops = 0                        # runtime for loops around the op being emitted
        self.ws_end = (kernel.workspace + ALIGN - 1) // ALIGN * ALIGN
        self.getitems: dict[tuple[int, int], ir.Op] = {}
        self.asm: dict[str, str] = {}      # microkernel functions this kernel calls (tlc.emit_asm)
        self.inplace: set[int] = set()      # dots that accumulate in their carried acc's buffer
        self.inplace_fused: dict[tuple[int, int], object] = {}   # (fused id, output) -> carried Tile
        self.direct: dict[int, object] = {}   # fused id -> direct.Plan (absorbed loads/stores)
        self.absorbed: set[int] = set()       # loads/stores emitted by their fused op instead
        from tlc.lower.rewrite import use_counts
        self.uses = use_counts(kernel.body)
        for block in ([kernel.grid] if kernel.grid is not None else []) + [kernel.body]:
            for op in ir.walk(block):
                if op.opcode == "getitem":
                    self.getitems.setdefault((id(op.operands[0]), op.attr("index")), op)

    # ------------------------------------------------------------------ basics
    def fresh(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def line(self, text: str) -> None:
        self.lines.append("  " * self.depth + text)

    def open(self, text: str) -> None:
        self.line(text + " {")
        self.depth += 1

    def close(self, text: str = "}") -> None:
        self.depth -= 1
        self.line(text)

    def loc(self, op: ir.Op) -> None:
        """A ``/* file:line */`` comment before the op's statements (not repeated while the
        previous emitted line already carries it)."""
        if op.loc is not None:
            where = f"{self.shown(op.loc.file)}:{op.loc.line}".replace("*/", "* /").replace("/*", "/ *")
            text = f"/* {where} */"
            if not (self.lines and self.lines[-1].strip() == text):
                self.line(text)

    def val(self, op: ir.Op):
        return self.names[id(op)]

    def scalar(self, op: ir.Op) -> str:
        v = self.names[id(op)]
        assert isinstance(v, str), (op.opcode, v)
        return v

    def tile(self, op: ir.Op) -> Tile:
        v = self.names[id(op)]
        assert isinstance(v, Tile), (op.opcode, v)
        return v

    # ------------------------------------------------------------------ workspace
    def alloc(self, nbytes: int) -> int:
        off = self.ws_end
        self.ws_end += (nbytes + ALIGN - 1) // ALIGN * ALIGN
        return off

    def buf_offset(self, op: ir.Op, ttype: ir.TileType, index: int | None = None) -> int:
        """The workspace offset of a tile result: its ``buf`` attr (or the getitem's, or the
        ``index``-th pair of a tuple op's ``buf``), else a fallback allocation."""
        buf = op.attr("buf", None)
        if buf is not None and index is not None:
            buf = buf[index] if isinstance(buf[0], (tuple, list)) else (buf if index == 0 else None)
        if buf is not None:
            return int(buf[0])
        return self.alloc(numel(ttype.shape) * elem_bytes(ttype.dtype))

    def new_tile(self, ttype: ir.TileType, offset: int) -> Tile:
        t = Tile(self.fresh("t"), offset, ttype)
        self.line(f"{t.ctype}* const {t.name} = ({t.ctype}*)(ws + {offset});")
        return t

    def result_tile(self, op: ir.Op) -> Tile:
        """Declares and binds the buffer of a tile-typed op."""
        t = self.new_tile(op.type, self.buf_offset(op, op.type))
        self.names[id(op)] = t
        return t

    def tuple_result(self, op: ir.Op, index: int, ttype) -> object:
        """Storage for result ``index`` of a tuple op (for/if/fused)."""
        g = self.getitems.get((id(op), index))
        if isinstance(ttype, ir.TileType):
            src = g if g is not None and g.attr("buf", None) is not None else op
            return self.new_tile(ttype, self.buf_offset(src, ttype, None if src is g else index))
        name = self.fresh()
        self.line(f"{lanes.SCALAR_C[lanes.KIND[ttype.dtype]]} {name};")
        return name

    def copy_tile(self, dst: Tile, src: Tile) -> None:
        """dst = src (memmove semantics); disjoint buffers (the static offsets tell) copy TL_L
        float-sized words at a time (a bit copy: plain vector loads and stores)."""
        if dst.offset == src.offset:
            return
        nbytes = numel(dst.type.shape) * elem_bytes(dst.type.dtype)
        if dst.offset + nbytes <= src.offset or src.offset + nbytes <= dst.offset:
            q, w = self.fresh("q"), nbytes // 4
            self.line(f"for (int64_t {q} = 0; {q} < {w}; {q} += TL_L) "
                      f"tl_st_f((float*){dst.name} + {q}, tl_ld_f((const float*){src.name} + {q}, tl_lanes({w} - {q})), "
                      f"tl_lanes({w} - {q}));")
        else:
            self.line(f"memmove({dst.name}, {src.name}, {nbytes});")

    def reg_transfer(self, r: RegTile, t: Tile, load: bool) -> None:
        """r = t (load) or t = r: one vector of TL_L lanes per local, the partial last vector of
        a row through tl_ld_*/tl_st_* with its constant lane count."""
        sfx, w = lanes.SUFFIX[r.kind], r.type.shape[-1]
        for row in range(r.rows):
            for v in range(r.vpr):
                n = min(self.lanes, w - v * self.lanes)
                ptr = f"{t.name} + {row * w + v * self.lanes}"
                if load:
                    self.line(f"{r.reg(row, v)} = tl_ld_{sfx}({ptr}, {n});")
                else:
                    self.line(f"tl_st_{sfx}({ptr}, {r.reg(row, v)}, {n});")

    def reg_carried(self, body: ir.Block, carried_args) -> set[int]:
        """Positions of carried tiles kept in vector locals: every use in the loop is a top-level
        fused or elementwise op iterating over exactly the tile's shape, or the yield at the
        tile's own position; at most REG_VECTORS vectors in all (else workspace tiles)."""
        from tlc.emit_c.tiles import ELEMENTWISE
        y = body.ops[-1] if body.ops and body.ops[-1].opcode == "yield" else None
        top = {id(op) for op in body.ops}
        picked, total = set(), 0
        for p, arg in enumerate(carried_args):
            if not isinstance(arg.type, ir.TileType) or not arg.type.shape or numel(arg.type.shape) == 0:
                continue
            shape = tuple(arg.type.shape)
            ok = True
            for op in ir.walk(body):
                for q, o in enumerate(op.operands):
                    if o is not arg:
                        continue
                    if op is y:
                        ok = ok and q == p
                    elif id(op) in top and op.opcode == "fused":
                        ok = ok and tuple(op.attr("shape")) == shape
                    elif id(op) in top and op.opcode in ELEMENTWISE:
                        ok = ok and tuple(op.type.shape) == shape
                    else:
                        ok = False
            if y is not None:   # no other carried tile yielded into this slot (swaps)
                ok = ok and not any(v is a for q, v in enumerate(y.operands)
                                    for a in carried_args if q == p and a is not arg)
            nvec = numel(shape[:-1]) * -(-shape[-1] // self.lanes)
            nvec *= 2 if lanes.KIND[arg.type.dtype] == "l" else 1
            if ok and total + nvec <= REG_VECTORS:
                picked.add(p)
                total += nvec
        return picked

    def assign(self, dst, src) -> None:
        if isinstance(dst, RegTile):
            if src is not dst:
                self.reg_transfer(dst, src, load=True)
        elif isinstance(dst, Tile):
            self.copy_tile(dst, src)
        else:
            self.line(f"{dst} = {src};")

    # ------------------------------------------------------------------ walking
    def block(self, block: ir.Block) -> None:
        from tlc.emit_c import direct
        direct.plan_block(self, block)
        for op in block.ops:
            if id(op) not in self.absorbed:
                self.op(op)

    def op(self, op: ir.Op) -> None:
        from tlc.emit_c import memory, tiles
        oc = op.opcode
        if oc == "yield":
            raise AssertionError("yield handled by its parent")
        self.loc(op)
        if oc == "const":
            name = self.fresh()
            kind = lanes.KIND[op.type.dtype]
            self.line(f"const {lanes.SCALAR_C[kind]} {name} = {lanes.c_const(op.attr('value'), op.type.dtype)};")
            self.names[id(op)] = name
        elif oc == "program_id":
            self.names[id(op)] = f"pid{op.attr('axis')}"
        elif oc == "num_programs":
            self.names[id(op)] = f"g{op.attr('axis')}"
        elif oc == "dim":
            t = self.val(op.operands[0])
            a = op.attr("axis")
            name = self.fresh()
            self.line(f"const int64_t {name} = {t.shape[a]} - {t.off[a]};")
            self.names[id(op)] = name
        elif oc == "view":
            self.view(op)
        elif oc == "getitem":
            if id(op) not in self.names:
                self.names[id(op)] = self.val(op.operands[0])[op.attr("index")]
        elif oc == "load":
            memory.emit_load(self, op)
        elif oc == "store":
            memory.emit_store(self, op)
        elif oc == "for":
            self.for_(op)
        elif oc == "if":
            self.if_(op)
        elif oc == "buffer":
            pass
        elif oc == "item":
            src = self.tile(op.operands[0])
            kind = lanes.KIND[op.type.dtype]
            name = self.fresh()
            v = f"({src.name}[0] != 0)" if kind == "m" else f"{src.name}[0]"
            self.line(f"const {lanes.SCALAR_C[kind]} {name} = {v};")
            self.names[id(op)] = name
        elif isinstance(op.type, ir.ScalarType):
            self.scalar_op(op)
        else:
            tiles.emit_tile_op(self, op)

    def scalar_op(self, op: ir.Op) -> None:
        operands = [(self.scalar(o), o.type.dtype) for o in op.operands]
        if (self.in_grid and op.opcode in ("floordiv", "mod", "truncdiv")
                and lanes.KIND[operands[1][1]] in ("i", "l")):
            # a grid rule dividing by zero is an error of the launch (the grid function's status
            # 2, see tl/bundle_abi.h), not an empty grid: kernels define x // 0 as 0
            self.line(f"if (({operands[1][0]}) == 0) return 2;")
        if op.opcode == "cast":
            expr = lanes.scalar_expr("cast", operands, op.attr("dtype"))
        else:
            expr = lanes.scalar_expr(op.opcode, operands, op.type.dtype)
        name = self.fresh()
        self.line(f"const {lanes.SCALAR_C[lanes.KIND[op.type.dtype]]} {name} = {expr};")
        self.names[id(op)] = name

    def view(self, op: ir.Op) -> None:
        base = self.val(op.operands[0])
        offs = []
        for a, o in enumerate(op.operands[1:]):
            name = self.fresh("o")
            self.line(f"const int64_t {name} = {base.off[a]} + (int64_t)({self.scalar(o)});")
            offs.append(name)
        self.names[id(op)] = TensorRef(base.dtype, base.data, base.shape, base.stride, offs)

    # ------------------------------------------------------------------ control flow
    def _bind_results(self, op: ir.Op, results: list) -> None:
        self.names[id(op)] = results
        for i, r in enumerate(results):
            g = self.getitems.get((id(op), i))
            if g is not None:
                self.names[id(g)] = r

    @staticmethod
    def _body(block: ir.Block) -> ir.Block:
        """The block without its terminating yield."""
        if block.ops and block.ops[-1].opcode == "yield":
            return ir.Block(block.args, block.ops[:-1])
        return block

    def _yield_into(self, block: ir.Block, targets: list) -> None:
        if not targets:
            return
        y = block.ops[-1]
        assert y.opcode == "yield", y.opcode
        vals = [self.val(v) for v in y.operands]
        # two-phase when a yielded value is another target (swaps): stage through temps
        staged = []
        for i, v in enumerate(vals):
            clash = any(v is t or (isinstance(v, Tile) and isinstance(t, Tile) and v.offset == t.offset)
                        for j, t in enumerate(targets) if j != i)
            if clash:
                if isinstance(v, Tile):
                    tmp = self.new_tile(v.type, self.alloc(numel(v.type.shape) * elem_bytes(v.type.dtype)))
                    self.copy_tile(tmp, v)
                else:
                    tmp = self.fresh()
                    self.line(f"const {lanes.SCALAR_C[lanes.KIND[y.operands[i].type.dtype]]} {tmp} = {v};")
                v = tmp
            staged.append(v)
        for t, v in zip(targets, staged):
            self.assign(t, v)

    def for_(self, op: ir.Op) -> None:
        lo, hi, step, *inits = op.operands
        body = op.regions[0]
        iv_arg, *carried_args = body.args
        carried, spill = [], {}
        in_regs = self.reg_carried(body, carried_args)
        for i, (init, arg) in enumerate(zip(inits, carried_args)):
            if isinstance(arg.type, ir.TileType):
                src = arg if arg.attr("buf", None) is not None else op
                t = self.new_tile(arg.type, self.buf_offset(src, arg.type, None if src is arg else i))
                if i in in_regs:
                    shape = arg.type.shape
                    r = RegTile(self.fresh("r"), arg.type, numel(shape[:-1]), -(-shape[-1] // self.lanes))
                    self.line(f"{lanes.VEC[r.kind]} "
                              f"{', '.join(r.reg(0, v) for v in range(r.rows * r.vpr))};")
                    self.reg_transfer(r, self.tile(init), load=True)
                    spill[i] = t
                    carried.append(r)
                    continue
                self.copy_tile(t, self.tile(init))
                carried.append(t)
            else:
                name = self.fresh("c")
                self.line(f"{lanes.SCALAR_C[lanes.KIND[arg.type.dtype]]} {name} = {self.scalar(init)};")
                carried.append(name)
        iv = self.fresh("i")
        s, h = self.scalar(step), self.scalar(hi)
        st = step.attr("value", None) if step.opcode == "const" else None
        cond = f"{iv} < {h}" if st is not None and st > 0 else (
            f"{iv} > {h}" if st is not None and st < 0 else f"({s} > 0 ? {iv} < {h} : {iv} > {h})")
        self.open(f"for (int64_t {iv} = {self.scalar(lo)}; {cond}; {iv} += {s})")
        self.loops += 1
        self.names[id(iv_arg)] = iv
        for arg, c in zip(carried_args, carried):
            self.names[id(arg)] = c
        self._mark_inplace_dots(body, carried_args)
        self.block(self._body(body))
        self._yield_into(body, carried)
        self.loops -= 1
        self.close()
        for i, t in spill.items():
            self.reg_transfer(carried[i], t, load=False)
            carried[i] = t
        self._bind_results(op, carried)

    def _mark_inplace_dots(self, body: ir.Block, carried_args) -> None:
        """``acc = dot(a, b, acc)`` yielded back into its own carried slot, with the dot and the
        carried value used nowhere else: the dot writes its result over the accumulator (each
        element is read before it is written, by the same lane), so the yield copies nothing."""
        from tlc.lower.rewrite import use_counts
        y = body.ops[-1] if body.ops else None
        if y is None or y.opcode != "yield":
            return
        counts = use_counts(body)
        for p, v in enumerate(y.operands):
            if (v.opcode == "dot" and v.attr("has_acc", False) and p < len(carried_args)
                    and v.operands[2] is carried_args[p] and counts.get(id(v), 0) == 1
                    and counts.get(id(carried_args[p]), 0) == 1 and v.type == carried_args[p].type):
                self.inplace.add(id(v))
            # acc = fused(acc, ...)[k]: lane j of the output is written after lane j of the
            # full-shape input acc is read, so the output may live in acc's buffer
            if (v.opcode == "getitem" and v.operands[0].opcode == "fused" and p < len(carried_args)
                    and isinstance(v.type, ir.TileType) and v.type == carried_args[p].type
                    and counts.get(id(v), 0) == 1 and counts.get(id(carried_args[p]), 0) == 1
                    and any(o is carried_args[p] for o in v.operands[0].operands)
                    and tuple(v.operands[0].attr("shape")) == tuple(v.type.shape)):
                self.inplace_fused[(id(v.operands[0]), v.attr("index"))] = self.names[id(carried_args[p])]

    def if_(self, op: ir.Op) -> None:
        results = [self.tuple_result(op, i, t) for i, t in enumerate(op.type.types)]
        self.open(f"if ({self.scalar(op.operands[0])})")
        for n, region in enumerate(op.regions):
            if n == 1:
                self.close("} else {")
                self.depth += 1
            self.block(self._body(region))
            self._yield_into(region, results)
        self.close()
        self._bind_results(op, results)

    # ------------------------------------------------------------------ functions
    def unpack_args(self, args: tuple[ir.Op, ...]) -> None:
        for a in args:
            idx = a.attr("index")
            name = a.attr("name")
            if isinstance(a.type, ir.TensorType):
                p = f"a{idx}"
                r = a.type.rank
                self.line(f"const tl_tensor_t* const {p} = args[{idx}].tensor;  /* {name} */")
                ct = STORAGE_C[a.type.dtype]
                self.line(f"{ct}* const {p}_d = ({ct}*){p}->data;")
                for ax in range(r):
                    self.line(f"const int64_t {p}_n{ax} = {p}->shape[{ax}], {p}_s{ax} = {p}->strides[{ax}];")
                self.names[id(a)] = TensorRef(a.type.dtype, f"{p}_d", [f"{p}_n{ax}" for ax in range(r)],
                                              [f"{p}_s{ax}" for ax in range(r)], ["0"] * r)
            else:
                dt = a.type.dtype
                kind = lanes.KIND[dt]
                if kind == "f":
                    expr = f"(float)args[{idx}].f64"
                    if dt is DType.float16:
                        expr = f"tl_h2f(tl_f2h({expr}))"
                    elif dt is DType.bfloat16:
                        expr = f"tl_bf2f(tl_f2bf({expr}))"
                elif kind == "m":
                    expr = f"(int32_t)(args[{idx}].i64 != 0)"
                elif dt is DType.int8:
                    expr = f"(int32_t)(int8_t)args[{idx}].i64"
                else:
                    expr = f"({lanes.SCALAR_C[kind]})args[{idx}].i64"
                self.line(f"const {lanes.SCALAR_C[kind]} a{idx} = {expr};  /* {name} */")
                self.names[id(a)] = f"a{idx}"

    def entry_body(self) -> list[str]:
        self.lines, self.depth = [], 1
        self.line("char* const ws = (char*)workspace;")
        self.line("(void)ws;")
        self.unpack_args(self.k.body.args)
        self.line("const int64_t g0 = grid->size[0], g1 = grid->size[1], g2 = grid->size[2];")
        self.line("(void)g2;")
        self.open("for (int64_t pid = first; pid < last; ++pid)")
        self.line("const int64_t pid0 = pid % g0, pid12 = pid / g0;")
        self.line("const int64_t pid1 = g1 > 0 ? pid12 % g1 : 0, pid2 = g1 > 0 ? pid12 / g1 : 0;")
        self.line("(void)pid0; (void)pid1; (void)pid2;")
        self.block(self.k.body)
        self.close()
        self.line("return 0;")
        return self.lines

    def grid_body(self) -> list[str]:
        self.lines, self.depth = [], 1
        self.line("char* const ws = (char*)0;")
        self.line("(void)ws;")
        grid = self.k.grid
        self.unpack_args(grid.args)
        self.in_grid = True
        self.block(self._body(grid))
        self.in_grid = False
        y = grid.ops[-1]
        assert y.opcode == "yield" and 1 <= len(y.operands) <= 3, "grid block yields 1..3 scalars"
        for i in range(3):   # a negative size is reported by the runtime, never clamped to 0
            v = f"(int64_t)({self.scalar(y.operands[i])})" if i < len(y.operands) else "1"
            self.line(f"out_grid->size[{i}] = {v};")
        self.line("return 0;")
        return self.lines
