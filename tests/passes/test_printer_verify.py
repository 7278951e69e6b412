"""Printer round trip and verifier negative tests."""
import dataclasses

import pytest

import builders as B
from tlc.lower import ir
from tlc.driver import run_pipeline
from tlc.lower.printer import IRParseError, parse_module, print_module
from tlc.lower.verify import IRVerifyError, verify


@pytest.mark.parametrize("mk", [B.chain_module, B.loop_module, B.bounds_module])
def test_round_trip_hand_built_and_lowered(mk):
    for m in (mk(), run_pipeline(mk(), None)):
        text = print_module(m)
        m2 = parse_module(text)
        verify(m2)
        assert print_module(m2) == text
        assert print_module(parse_module(print_module(m2))) == text


def test_round_trip_special_attr_values():
    def build(b, x):
        b.const(float("nan"), B.F32)
        b.const(-0.0, B.F32)
        b.const(float("-inf"), B.F32)
        b.const(True, B.BOOL)
        b.const(-(2 ** 63), B.I64)
    m = B.kernel("k", [("x", ir.TensorType(B.F32, 1))], build)
    k = dataclasses.replace(m.kernels[0], constexprs=(("DT", B.F32), ("S", 'a "q" // x')))
    m = dataclasses.replace(m, kernels=(k,))
    text = print_module(m)
    assert "value=nan" in text and "value=-0.0" in text and "value=-inf" in text
    m2 = parse_module(text)
    assert print_module(m2) == text
    assert m2.kernels[0].constexprs == (("DT", B.F32), ("S", 'a "q" // x'))
    v = [op.attr("value") for op in m2.kernels[0].body.ops]
    assert str(v[1]) == "-0.0" and v[3] is True and v[4] == -(2 ** 63)


def test_printed_op_line_form():
    text = print_module(B.chain_module())
    assert ("load %6 {checked=(True, True), has_mask=False, has_other=False, shape=(4, 64)} "
            ": tile<4x64xf32>  // k.py:3:5") in text


def test_parse_rejects_undefined_value():
    text = print_module(B.chain_module()).replace("exp %7", "exp %99")
    with pytest.raises(IRParseError, match="undefined value %99"):
        parse_module(text)


def test_verify_use_before_def():
    m = B.chain_module()
    k = m.kernels[0]
    ops = list(k.body.ops)
    i = next(i for i, o in enumerate(ops) if o.opcode == "exp")
    j = next(i for i, o in enumerate(ops) if o.opcode == "load")
    ops[i], ops[j] = ops[j], ops[i]          # exp before the load it reads
    bad = dataclasses.replace(m, kernels=(dataclasses.replace(k, body=ir.Block(k.body.args, tuple(ops))),))
    with pytest.raises(IRVerifyError, match="used before it is defined") as e:
        verify(bad)
    assert "exp" in str(e.value) and "k.py:3:5" in str(e.value)


def test_verify_wrong_type():
    m = B.chain_module()
    k = m.kernels[0]
    from tlc.lower.rewrite import rewrite_block
    blk = rewrite_block(k.body, lambda op, emit: op.with_(type=ir.TileType(B.F32, (4, 32)))
                        if op.opcode == "exp" else op)
    bad = dataclasses.replace(m, kernels=(dataclasses.replace(k, body=blk),))
    with pytest.raises(IRVerifyError, match="`exp` has type tile<4x32xf32>"):
        verify(bad)


def test_verify_yield_arity():
    m = B.loop_module()
    k = m.kernels[0]
    from tlc.lower.rewrite import rewrite_block
    blk = rewrite_block(k.body, lambda op, emit: op.with_(operands=()) if op.opcode == "yield" else op)
    bad = dataclasses.replace(m, kernels=(dataclasses.replace(k, body=blk),))
    with pytest.raises(IRVerifyError, match="for"):
        verify(bad)


def test_verify_rejects_unknown_opcode_and_bad_fused():
    m = run_pipeline(B.chain_module(), None)
    k = m.kernels[0]
    from tlc.lower.rewrite import rewrite_block
    blk = rewrite_block(k.body, lambda op, emit: op.with_(opcode="frobnicate") if op.opcode == "program_id" else op)
    with pytest.raises(IRVerifyError, match="unknown opcode"):
        verify(dataclasses.replace(m, kernels=(dataclasses.replace(k, body=blk),)))

    def drop_arg(op, emit):
        if op.opcode != "fused":
            return op
        r = op.regions[0]
        return op.with_(regions=(ir.Block(r.args[:1], r.ops),))
    blk = rewrite_block(k.body, drop_arg)
    with pytest.raises(IRVerifyError, match="fused"):
        verify(dataclasses.replace(m, kernels=(dataclasses.replace(k, body=blk),)))
