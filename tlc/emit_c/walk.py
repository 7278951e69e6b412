"""The IR walk: one entry function and one grid function per kernel, each op dispatched on its
opcode through the rule tables of tlc/emit_c/rules/ (one rule per opcode of the closed op set,
``rule(ctx, plan, op)``). Ops the plan absorbed into a fused op are skipped at their place."""
from __future__ import annotations

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.emit_c import lanes
from tlc.emit_c.context import Context
from tlc.emit_c.plan import Plan, body_of
from tlc.emit_c.rules import control, dot, elementwise, layout, memory, reduce, scalar
from tlc.emit_c.values import STORAGE_C, TensorRef

TABLES = {"scalar": scalar.RULES, "elementwise": elementwise.RULES, "memory": memory.RULES,
          "control": control.RULES, "layout": layout.RULES, "reduce": reduce.RULES, "dot": dot.RULES}
RULES = {oc: rule for table in TABLES.values() for oc, rule in table.items()}


def block(ctx: Context, plan: Plan, block: ir.Block) -> None:
    for op in block.ops:
        if id(op) not in plan.absorbed:
            emit_op(ctx, plan, op)


def emit_op(ctx: Context, plan: Plan, op: ir.Op) -> None:
    ctx.loc(op)
    rule = RULES.get(op.opcode)
    if rule is None:
        raise KeyError(f"C emitter has no rule for op {op.opcode!r} of type {op.type}")
    rule(ctx, plan, op)


def _unpack_args(ctx: Context, args: tuple[ir.Op, ...]) -> None:
    for a in args:
        idx = a.attr("index")
        name = a.attr("name")
        if isinstance(a.type, ir.TensorType):
            p = f"a{idx}"
            r = a.type.rank
            ctx.line(f"const tl_tensor_t* const {p} = args[{idx}].tensor;  /* {name} */")
            ct = STORAGE_C[a.type.dtype]
            ctx.line(f"{ct}* const {p}_d = ({ct}*){p}->data;")
            for ax in range(r):
                ctx.line(f"const int64_t {p}_n{ax} = {p}->shape[{ax}], {p}_s{ax} = {p}->strides[{ax}];")
            ctx.bind(a, TensorRef(a.type.dtype, f"{p}_d", [f"{p}_n{ax}" for ax in range(r)],
                                  [f"{p}_s{ax}" for ax in range(r)], ["0"] * r))
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
            ctx.line(f"const {lanes.SCALAR_C[kind]} a{idx} = {expr};  /* {name} */")
            ctx.bind(a, f"a{idx}")


def _context(plan: Plan, grid: bool) -> Context:
    return Context(plan.kernel.workspace, plan.shown, block, emit_op, grid=grid)


def entry(plan: Plan) -> Context:
    """The entry function's body (``ctx.lines``), its workspace end and microkernel functions."""
    ctx = _context(plan, grid=False)
    ctx.line("char* const ws = (char*)workspace;")
    ctx.line("(void)ws;")
    _unpack_args(ctx, plan.kernel.body.args)
    ctx.line("const int64_t g0 = grid->size[0], g1 = grid->size[1], g2 = grid->size[2];")
    ctx.line("(void)g2;")
    ctx.open("for (int64_t pid = first; pid < last; ++pid)")
    ctx.line("const int64_t pid0 = pid % g0, pid12 = pid / g0;")
    ctx.line("const int64_t pid1 = g1 > 0 ? pid12 % g1 : 0, pid2 = g1 > 0 ? pid12 / g1 : 0;")
    ctx.line("(void)pid0; (void)pid1; (void)pid2;")
    block(ctx, plan, plan.kernel.body)
    ctx.close()
    ctx.line("return 0;")
    return ctx


def grid(plan: Plan) -> Context:
    """The grid function's body (``ctx.lines``)."""
    ctx = _context(plan, grid=True)
    ctx.line("char* const ws = (char*)0;")
    ctx.line("(void)ws;")
    g = plan.kernel.grid
    _unpack_args(ctx, g.args)
    block(ctx, plan, body_of(g))
    y = g.ops[-1]
    assert y.opcode == "yield" and 1 <= len(y.operands) <= 3, "grid block yields 1..3 scalars"
    for i in range(3):   # a negative size is reported by the runtime, never clamped to 0
        v = f"(int64_t)({ctx.val(y.operands[i])})" if i < len(y.operands) else "1"
        ctx.line(f"out_grid->size[{i}] = {v};")
    ctx.line("return 0;")
    return ctx
