"""The IR verifier: run between passes; raises :class:`IRVerifyError` naming the op.

Checks: the op set is closed (``ir.OPCODES``); ``arg`` ops appear only as block arguments;
SSA dominance (every operand is defined earlier in its block or in an enclosing block, and
``fused`` bodies see only their own args); types agree with
:func:`tlc.lower.typing_rules.infer_type` (which also checks operand counts); ``for``/``if``
regions end in ``yield`` whose arity and types match the op (``for`` region args are
``(iv: i64, *carried)`` typed like the inits); ``fused`` ops are well formed (lane-value
bodies of scalar elementwise ops, args typed by the inputs, outputs of the iteration shape);
a kernel grid block yields 1..3 int64 scalars.
"""
from __future__ import annotations

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.lower.typing_rules import infer_type

I64 = ir.ScalarType(DType.int64)
FUSED_BODY_OPS = set(ir.ELEMENTWISE_UNARY) | set(ir.ELEMENTWISE_BINARY) | {"where", "fma", "cast", "const", "yield"}
_UNTYPED = ("fused", "buffer", "arg")


class IRVerifyError(AssertionError):
    """An IR invariant does not hold; the message shows the op (and its source location)."""

    def __init__(self, message: str, op: ir.Op | None = None, kernel: str = ""):
        from tlc.lower.printer import print_op
        text = f"IR verification failed{' in kernel ' + kernel if kernel else ''}: {message}"
        if op is not None:
            text += "\n  at: " + print_op(op).split("\n")[0]
            if op.loc is not None:
                text += f"\n  source: {op.loc}"
        self.op = op
        super().__init__(text)


def _fail(msg: str, op: ir.Op | None = None):
    raise IRVerifyError(msg, op)


def _yield_types(block: ir.Block, owner: ir.Op) -> tuple:
    if not block.ops or block.ops[-1].opcode != "yield":
        _fail(f"a region of `{owner.opcode}` must end in yield", owner)
    return tuple(o.type for o in block.ops[-1].operands)


def _check_fused(op: ir.Op) -> None:
    shape = op.attr("shape", None)
    if shape is None or not isinstance(op.type, ir.TupleType) or len(op.regions) != 1:
        _fail("fused needs attr shape, a TupleType and one region", op)
    body = op.regions[0]
    if len(body.args) != len(op.operands):
        _fail(f"fused has {len(op.operands)} inputs but {len(body.args)} body args", op)
    for x, a in zip(op.operands, body.args):
        if isinstance(x.type, ir.TileType):
            if len(x.type.shape) != len(shape) or any(s not in (d, 1) for s, d in zip(x.type.shape, shape)):
                _fail(f"fused input {x.type} does not broadcast to {shape}", op)
        elif not isinstance(x.type, ir.ScalarType):
            _fail(f"fused input must be a tile or scalar, got {x.type}", op)
        if a.type != ir.ScalarType(x.type.dtype):
            _fail(f"fused body arg {a.type} does not match input {x.type}", op)
    for b in body.ops:
        if b.opcode not in FUSED_BODY_OPS:
            _fail(f"`{b.opcode}` cannot appear in a fused body", b)
        if b.opcode != "yield" and not isinstance(b.type, ir.ScalarType):
            _fail(f"fused body values are lane scalars, got {b.type}", b)
    outs = _yield_types(body, op)
    want = tuple(ir.ScalarType(t.dtype) for t in op.type.types)
    if outs != want or any(t.shape != tuple(shape) for t in op.type.types):
        _fail(f"fused yields {tuple(map(str, outs))} but its type is {op.type}", op)


def _check_op(op: ir.Op) -> None:
    if op.opcode not in ir.OPCODES:
        _fail(f"unknown opcode {op.opcode!r}", op)
    if op.opcode == "arg":
        _fail("`arg` may only be a block argument", op)
    if op.opcode == "fused":
        _check_fused(op)
        return
    if op.opcode in _UNTYPED:
        return
    region_types = None
    if op.opcode == "for":
        if len(op.regions) != 1:
            _fail("for has one region", op)
        body = op.regions[0]
        want_args = (I64,) + tuple(o.type for o in op.operands[3:])
        if tuple(a.type for a in body.args) != want_args:
            _fail(f"for region args {tuple(map(str, (a.type for a in body.args)))} should be "
                  f"{tuple(map(str, want_args))}", op)
        region_types = (_yield_types(body, op),)
    elif op.opcode == "if":
        if len(op.regions) != 2:
            _fail("if has two regions (then, else)", op)
        region_types = tuple(_yield_types(r, op) for r in op.regions)
    elif op.regions:
        _fail(f"`{op.opcode}` has no regions", op)
    try:
        t = infer_type(op.opcode, [o.type for o in op.operands], op.attrs, region_types=region_types) \
            if region_types is not None else infer_type(op.opcode, [o.type for o in op.operands], op.attrs)
    except (ValueError, KeyError, TypeError) as e:
        _fail(f"ill-typed `{op.opcode}`: {e}", op)
    if t != op.type:
        _fail(f"`{op.opcode}` has type {op.type} but its operands give {t}", op)


def _check_block(block: ir.Block, defined: set[int], top: bool = False) -> None:
    scope = set(defined)
    for a in block.args:
        if a.opcode != "arg":
            _fail("block arguments must be `arg` ops", a)
        scope.add(id(a))
    for i, op in enumerate(block.ops):
        for o in op.operands:
            if id(o) not in scope:
                _fail(f"operand `{o.opcode}` of `{op.opcode}` is used before it is defined "
                      "(or outside its scope)", op)
        if op.opcode == "yield" and (top or i != len(block.ops) - 1):
            _fail("yield must be the last op of a for/if/fused region or grid", op)
        _check_op(op)
        for r in op.regions:
            _check_block(r, set() if op.opcode == "fused" else scope)
        if id(op) in scope:
            _fail("op appears twice", op)
        scope.add(id(op))


def verify_kernel(k: ir.Kernel) -> None:
    try:
        _check_block(k.body, set(), top=True)
        if k.grid is not None:
            _check_block(k.grid, set())
            ys = _yield_types(k.grid, k.grid.ops[-1] if k.grid.ops else ir.make("yield"))
            if not 1 <= len(ys) <= 3 or any(t != I64 for t in ys):
                _fail(f"grid must yield 1..3 int64 scalars, got {tuple(map(str, ys))}")
        runtime = [p for p in k.params if p.kind != "constexpr"]
        if len(runtime) != len(k.body.args):
            _fail(f"{len(runtime)} runtime params but {len(k.body.args)} body args")
    except IRVerifyError as e:
        e.args = (e.args[0].replace("IR verification failed:", f"IR verification failed in kernel {k.name}:", 1),)
        raise


def verify(module: ir.Module) -> None:
    """Raises IRVerifyError on the first broken invariant."""
    for k in module.kernels:
        verify_kernel(k)
