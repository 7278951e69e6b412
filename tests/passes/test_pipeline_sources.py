"""The whole pipeline over real TL sources (the seed form and ops/*.py): every kernel lowers, verifies, round-trips through the printer and has only post-pipeline ops."""
import glob
import os

import pytest

from tlc import parse
from tlc.lower import ir
from tlc.driver import run_pipeline
from tlc.lower.printer import parse_module, print_module
from tlc.backends.cpu.targets import X86_64

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = os.path.join(ROOT, "tests", "fixtures", "seed_form.py")
SOURCES = [SEED] + sorted(glob.glob(os.path.join(ROOT, "ops", "*.py")))
TILE_OPS = {"load", "getitem", "dot", "reduce", "reshape", "trans", "arange"}


@pytest.mark.parametrize("path", SOURCES, ids=os.path.basename)
def test_pipeline_on_source(path):
    m = parse.parse_file(path)
    out = run_pipeline(m, X86_64.variants[0])
    text = print_module(out)
    assert print_module(parse_module(text)) == text
    for k in out.kernels:
        assert k.workspace % 64 == 0
        for op in ir.walk(k.body):
            if op.opcode == "fused":
                assert op.attr("lanes") == 16 and 0 <= op.attr("inner") <= len(op.attr("shape"))
            if isinstance(op.type, ir.TileType) and op.opcode != "arg" and not _in_fused(k, op):
                assert op.opcode in TILE_OPS, op.opcode
                off, n = op.attr("buf")
                assert off % 64 == 0 and off + n <= k.workspace


def _in_fused(k, target):
    for op in ir.walk(k.body):
        if op.opcode == "fused" and any(o is target for o in op.regions[0].ops):
            return True
    return False


def test_seed_form_lowering():
    out = run_pipeline(parse.parse_file(SEED), X86_64.variants[0])
    k = out.kernels[0]
    assert [p.access for p in k.runtime_params] == ["read", "read", "write"]
    assert k.workspace == 128 * 64 * 4 + 64 * 128 * 4 + 128 * 128 * 4
    dot = next(op for op in ir.walk(k.body) if op.opcode == "dot")
    assert dot.attr("lanes") == 16
