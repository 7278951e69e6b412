"""IR produced by the frontend: op sequences, types, grid blocks, specializations, typing rules."""
import os

import pytest

from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.lower.ir import ScalarType, TensorType, TileType, TupleType
from tlc.lower.typing_rules import RULES, infer_type
from tlc.parse import parse_file, parse_source

HERE = os.path.dirname(__file__)
KB = os.path.join(HERE, "kernels_basic.py")
SEED = os.path.join(os.path.dirname(HERE), "fixtures", "seed_form.py")


def opcodes(block):
    return [op.opcode for op in block.ops]


def kernel(src, name=None):
    m = parse_source("import tl\n\n" + src, "t.py")
    return m.kernels[0] if name is None else next(k for k in m.kernels if k.name == name)


def test_seed_form_ir():
    (k,) = parse_file(SEED).kernels
    assert k.name == k.base_name == "matmul" and k.grid is None
    assert [(p.name, p.kind, p.dtype, p.rank) for p in k.params] == [
        ("a", "tensor", DType.float32, 2), ("b", "tensor", DType.float32, 2),
        ("c", "tensor", DType.float32, 2)]
    assert opcodes(k.body) == ["program_id", "program_id", "const", "mul", "const", "view", "load",
                               "const", "mul", "const", "view", "load", "dot", "const", "mul",
                               "const", "mul", "view", "store"]
    dot = next(op for op in k.body.ops if op.opcode == "dot")
    assert dot.type == TileType(DType.float32, (128, 128))
    assert (dot.loc.line, dot.loc.col) == (17, 14)
    assert all(op.loc is not None and op.loc.file == SEED for op in ir.walk(k.body))


def test_add_ir_and_grid():
    k = next(k for k in parse_file(KB).kernels if k.name == "add")
    assert [(p.name, p.kind, p.value) for p in k.params][3:] == [("BM", "constexpr", 4),
                                                                ("BN", "constexpr", 256)]
    assert dict(k.constexprs) == {"BM": 4, "BN": 256}
    assert [a.attr("name") for a in k.body.args] == ["x", "y", "out"]
    assert [a.attr("index") for a in k.body.args] == [0, 1, 2]
    add = next(op for op in k.body.ops if op.opcode == "add")
    assert add.type == TileType(DType.float32, (4, 256))
    g = k.grid
    assert [a.attr("name") for a in g.args] == ["x", "y", "out"]
    assert g.ops[-1].opcode == "yield" and len(g.ops[-1].operands) == 2
    assert all(o.type == ScalarType(DType.int64) for o in g.ops[-1].operands)
    assert "floordiv" in opcodes(g) and "dim" in opcodes(g)


def test_specialization_names_and_dtypes():
    ks = [k for k in parse_file(KB).kernels if k.base_name == "softmax"]
    assert [k.name for k in ks] == ["softmax__DT_float16", "softmax__DT_bfloat16", "softmax__DT_float32"]
    assert ks[0].body.args[0].type == TensorType(DType.float16, 2)
    assert dict(ks[1].constexprs) == {"DT": DType.bfloat16, "BLOCK": 64}
    assert parse_file(KB, only={"softmax__DT_bfloat16"}).kernels[0].name == "softmax__DT_bfloat16"


def test_loop_carried_ir():
    k = next(k for k in parse_file(KB).kernels if k.name == "matmul")
    loop = next(op for op in k.body.ops if op.opcode == "for")
    assert loop.type == TupleType((TileType(DType.float32, (32, 16)),))
    assert [o.type for o in loop.operands[:3]] == [ScalarType(DType.int64)] * 3
    body = loop.regions[0]
    assert [a.attr("name") for a in body.args] == ["k", "acc"]
    assert opcodes(body)[-3:] == ["dot", "add", "yield"]
    after = k.body.ops[k.body.ops.index(loop) + 1]
    assert after.opcode == "getitem" and after.attr("index") == 0


def test_runtime_if_ir():
    k = next(k for k in parse_file(KB).kernels if k.name == "runtime_if")
    op = next(op for op in k.body.ops if op.opcode == "if")
    assert op.operands[0].type == ScalarType(DType.bool)
    assert op.type == TupleType((TileType(DType.float32, (8,)),))
    assert [r.ops[-1].opcode for r in op.regions] == ["yield", "yield"]


def test_compile_time_if_and_static_range():
    k = kernel("@tl.kernel\ndef k(x: tl.tensor, N: tl.constexpr = 3):\n"
               "    acc = tl.zeros((4,), tl.float32)\n"
               "    for i in tl.static_range(N):\n"
               "        acc += tl.load(x + (i * 4,), (4,))\n"
               "    if N > 2:\n"
               "        acc = acc * 2.0\n"
               "    tl.store(x + (0,), acc)\n")
    ops = opcodes(k.body)
    assert "for" not in ops and "if" not in ops
    assert ops.count("load") == 3 and ops.count("mul") == 1  # i * 4 folds at compile time


def test_weak_literals_and_promotion():
    k = kernel("@tl.kernel\ndef k(x: tl.tensor(tl.float16, 1), y: tl.tensor(tl.int32, 1)):\n"
               "    a = tl.load(x + (0,), (8,)) * 2\n"
               "    b = tl.load(y + (0,), (8,)) + 1.5\n"
               "    c = tl.load(y + (0,), (8,)) / 2\n"
               "    tl.store(x + (0,), a)\n"
               "    tl.store(y + (0,), b)\n")
    mul = next(op for op in k.body.ops if op.opcode == "mul")
    assert mul.type == TileType(DType.float16, (8,))
    add = next(op for op in k.body.ops if op.opcode == "add")
    assert add.type == TileType(DType.float32, (8,))
    div = next(op for op in k.body.ops if op.opcode == "div")
    assert div.type == TileType(DType.float32, (8,))
    stores = [op for op in k.body.ops if op.opcode == "store"]
    assert stores[1].operands[1].opcode == "cast"   # float32 value stored into an int32 tensor


def test_broadcast_insertion():
    k = kernel("@tl.kernel\ndef k(x: tl.tensor(tl.float32, 2)):\n"
               "    a = tl.zeros((4, 3), tl.float32)\n"
               "    r = tl.arange(0, 3)\n"
               "    c = a + r\n"
               "    d = a + r[None, :].to(tl.float32) + tl.program_id(0)\n"
               "    tl.store(x + (0, 0), c + d)\n")
    ops = opcodes(k.body)
    assert "reshape" in ops and "broadcast" in ops and "splat" in ops and "cast" in ops
    for op in ir.walk(k.body):
        if op.opcode in ir.ELEMENTWISE_BINARY:
            assert op.operands[0].type == op.operands[1].type


def test_reductions_and_shapes():
    k = kernel("@tl.kernel\ndef k(x: tl.tensor(tl.float32, 2), o: tl.tensor(tl.int32, 1)):\n"
               "    t = tl.load(x + (0, 0), (4, 6))\n"
               "    s = tl.sum(t, axis=-1, keepdims=True)\n"
               "    m = t.max(0)\n"
               "    a = tl.argmax(t, axis=1)\n"
               "    tt = tl.trans(t)\n"
               "    f = tl.sum(t)\n"
               "    tl.static_assert(tt.shape == (6, 4), 'trans')\n"
               "    tl.static_assert(s.shape == (4, 1) and m.shape == (6,) and f.shape == ())\n"
               "    tl.store(o + (0,), a)\n")
    red = [op for op in k.body.ops if op.opcode == "reduce"]
    assert [op.attr("axis") for op in red] == [1, 0, 1, 0]
    assert red[2].type == TileType(DType.int32, (4,))


def test_grid_lambda_subset_and_cdiv():
    k = kernel("@tl.kernel(grid=lambda n, x: (tl.cdiv(n, 8), x.shape[1], 2))\n"
               "def k(x: tl.tensor(tl.float32, 2), n: tl.int64):\n"
               "    pass\n")
    assert len(k.grid.args) == 2 and len(k.grid.ops[-1].operands) == 3


def test_typing_rules_cover_opcodes():
    missing = set(ir.OPCODES) - set(RULES) - {"fused", "buffer", "arg"}
    assert not missing
    f32 = TileType(DType.float32, (4, 3))
    assert infer_type("add", [f32, f32], {}) == f32
    assert infer_type("lt", [f32, f32], {}) == TileType(DType.bool, (4, 3))
    assert infer_type("reduce", [f32], {"op": "argmax", "axis": 0, "keepdims": False}) == \
        TileType(DType.int32, (3,))
    assert infer_type("arg", [], {}, result_type=f32) == f32
    with pytest.raises(ValueError, match="one type"):
        infer_type("add", [f32, TileType(DType.float32, (3,))], {})
    with pytest.raises(ValueError, match="rank 2 but 1 offset"):
        infer_type("view", [TensorType(DType.float32, 2), ScalarType(DType.int64)], {})
    with pytest.raises(ValueError, match="changes type"):
        infer_type("for", [ScalarType(DType.int64)] * 3 + [f32], {},
                   region_types=[(TileType(DType.float16, (4, 3)),)])
    with pytest.raises(ValueError, match="no typing rule"):
        infer_type("bogus", [], {})


def test_retyped_temporary_in_loop_is_not_carried():
    # `t` is redefined at the start of the body with another shape: not a carried value.
    k = kernel("@tl.kernel\ndef k(x: tl.tensor(tl.float32, 1), n: tl.int64):\n"
               "    t = tl.zeros((2,), tl.float32)\n"
               "    s = tl.zeros((4,), tl.float32)\n"
               "    for i in range(0, n, 4):\n"
               "        t = tl.load(x + (i,), (4,))\n"
               "        s += t\n"
               "    tl.store(x + (0,), s)\n")
    loop = next(op for op in k.body.ops if op.opcode == "for")
    assert [a.attr("name") for a in loop.regions[0].args] == ["i", "s"]


_PRODUCT = '''
import tl

SPECS = dict(OP=["a", "b", "c"], DT=[tl.float32, tl.float16])


@tl.kernel(grid=lambda x: (1,), specializations=SPECS)
def k(x: tl.tensor(DT, 1), OP: tl.constexpr = "a", DT: tl.constexpr = tl.float32):
    tl.store(x + (0,), tl.load(x + (0,), (4,)))
'''


def test_specializations_dict_of_lists_is_every_combination():
    """specializations=dict(K=[...], K2=[...]): one instance per combination, first key outermost,
    the same instances as the equivalent list of dicts; an empty list is a located error."""
    ks = parse_source(_PRODUCT, "p.py").kernels
    assert [k.name for k in ks] == [f"k__DT_{d}__OP_{o}" for o in "abc" for d in ("float32", "float16")]
    listed = _PRODUCT.replace('dict(OP=["a", "b", "c"], DT=[tl.float32, tl.float16])', "[" + ", ".join(
        f'dict(OP="{o}", DT=tl.{d})' for o in "abc" for d in ("float32", "float16")) + "]")
    assert [str(k) for k in parse_source(listed, "p.py").kernels] == [str(k) for k in ks]
    with pytest.raises(Exception, match=r"p.py:7:\d+: error: specializations must be a list of dicts"):
        parse_source(_PRODUCT.replace('DT=[tl.float32, tl.float16]', "DT=[]"), "p.py")
