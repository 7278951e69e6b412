"""Pass lower_dot: the microkernel choice comes from the variant's data (ukernel family,
vector registers, lanes); variants without a family keep the portable loops."""
from pathlib import Path

from tlc.lower import ir
from tlc.driver import run_pipeline
from tlc.lower.printer import parse_module, print_module
from tlc.backends.cpu.targets import X86_64
import tlc.parse as parse

MATMUL = Path(__file__).resolve().parents[2] / "ops" / "matmul.py"


def _dots(m):
    return [op for _, op in ir.walk_module(m) if op.opcode == "dot"]


def test_lower_dot_per_variant():
    for v in X86_64.variants:
        out = run_pipeline(parse.parse_file(str(MATMUL)), v)
        dots = _dots(out)
        assert dots
        for d in dots:
            uk = d.attr("ukernel", None)
            if v.ukernel:
                family, mr, nv = uk
                M, N = d.type.shape
                bf16 = d.operands[0].type.dtype.name == "bfloat16"
                assert family == (v.ukernel_bf16 if bf16 and v.ukernel_bf16 else v.ukernel), (v.name, family)
                assert 1 <= mr <= M and nv * v.lanes <= N
                assert mr * nv <= v.vregs - nv     # accumulators + B vectors fit the register file
            else:
                assert uk is None
        text = print_module(out)
        assert print_module(parse_module(text)) == text
