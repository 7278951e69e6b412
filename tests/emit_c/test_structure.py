"""The emitter's structure (docs/design.md, "Emitter structure"): analysis before emission into a
frozen plan, one rule per opcode, the context as the only mutable state, no imports inside
function bodies, one jinja Environment, one lane table."""
from __future__ import annotations

import ast
import dataclasses
import inspect
import re
from pathlib import Path
from types import MappingProxyType

import pytest

from tlc import simd
from tlc.emit_asm import gemm, gemm_bf16
from tlc.emit_c import isa, walk
from tlc.emit_c.plan import Plan, analyse
from tlc.lower import ir
from tlc.lower.pass_manager import run_pipeline
from tlc.parse import parse_source
from tlc.backends.cpu.targets import TARGETS, X86_64

ROOT = Path(__file__).resolve().parents[2]
TLC = ROOT / "tlc"
EMITTERS = [p for d in ("emit_c", "emit_asm") for p in sorted((TLC / d).rglob("*.py"))]

SRC = '''
import tl

@tl.kernel(grid=lambda x, out: (out.shape[0],))
def rows(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
    r = tl.program_id(0)
    acc = tl.zeros((1, 32), tl.float32)
    for c in range(0, x.shape[1], 32):
        acc = acc + tl.load(x + (r, c), (1, 32))
    tl.store(out + (r, 0), acc)
'''


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), str(path))


def _plan() -> Plan:
    v = X86_64.variants[0]
    m = run_pipeline(parse_source(SRC, "structure.py"), v)
    return analyse(m.kernels[0], m.source_file, v.lanes)


def test_plan_is_frozen():
    plan = _plan()
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.lanes = 8
    for f in dataclasses.fields(Plan):
        value = getattr(plan, f.name)
        if isinstance(value, (dict, list, set)):
            pytest.fail(f"Plan.{f.name} is a mutable {type(value).__name__}")
    assert isinstance(plan.direct, MappingProxyType) and isinstance(plan.absorbed, frozenset)
    assert plan.reg_carried, "the loop's carried tile is planned before emission"


def test_every_opcode_has_exactly_one_rule():
    owners: dict[str, list[str]] = {}
    for table, rules in walk.TABLES.items():
        for oc in rules:
            owners.setdefault(oc, []).append(table)
    assert set(owners) == set(ir.OPCODES), sorted(set(ir.OPCODES) ^ set(owners))
    assert {oc: t for oc, t in owners.items() if len(t) != 1} == {}


def test_rules_take_ctx_plan_op():
    for oc, rule in walk.RULES.items():
        assert list(inspect.signature(rule).parameters)[:3] == ["ctx", "plan", "op"], (oc, rule)


def test_context_is_mutated_only_by_its_methods():
    """Outside context.py no module assigns to an attribute of the context (or into one)."""
    bad = []
    for path in sorted((TLC / "emit_c").rglob("*.py")):
        if path.name == "context.py":
            continue
        for node in ast.walk(_tree(path)):
            targets = (node.targets if isinstance(node, ast.Assign) else
                       [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else [])
            for t in targets:
                while isinstance(t, ast.Subscript):
                    t = t.value
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "ctx":
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Attribute) and node.attr == "__dict__":
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno} (__dict__)")
    assert bad == []


def test_no_imports_inside_functions():
    bad = []
    for path in EMITTERS:
        for fn in ast.walk(_tree(path)):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                bad += [f"{path.relative_to(ROOT)}:{n.lineno}" for n in ast.walk(fn)
                        if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert bad == []


def test_emit_asm_does_not_import_emit_c():
    for path in sorted((TLC / "emit_asm").rglob("*.py")):
        for n in ast.walk(_tree(path)):
            if isinstance(n, ast.ImportFrom):
                assert not (n.module or "").startswith("tlc.emit_c"), path
            elif isinstance(n, ast.Import):
                assert not any(a.name.startswith("tlc.emit_c") for a in n.names), path


def test_one_jinja_environment():
    hits = [f"{p.relative_to(ROOT)}" for p in sorted(TLC.rglob("*.py")) if "Environment(" in p.read_text()]
    assert hits == ["tlc/templating.py"]


def test_lanes_come_from_the_lane_table():
    for key in isa.ISA:
        assert isa.table(key)["lanes"] == simd.lanes(key)
    assert all(gemm.LANES[f] == simd.UKERNEL_LANES[f] for f in gemm.LANES)
    assert gemm_bf16.LANES == simd.UKERNEL_LANES[gemm_bf16.FAMILY]
    for t in TARGETS.values():
        for v in t.variants:
            assert v.lanes == simd.lanes(v.isa), v.name
            for fam in (v.ukernel, v.ukernel_bf16):
                assert not fam or simd.UKERNEL_LANES[fam] == v.lanes, (v.name, fam)
    # no lane literal in the emitters' tables
    for path in EMITTERS:
        text = path.read_text()
        assert not re.search(r'"lanes":\s*\d', text), path
        assert not re.search(r"^LANES\s*=\s*\d", text, re.M) and not re.search(r"^LANES\s*=\s*\{\s*\"", text, re.M), path


def test_microkernel_templates_are_pure():
    a = gemm.function("avx512", 8, 3, 32, 128, 192, 192, True)
    b = gemm.function("avx512", 8, 3, 32, 128, 192, 192, True)
    assert a == b and a.name in a.source
    assert all(h.name in h.source or h.name == "tl_bf16_0ilv" for h in gemm_bf16.HELPERS)
