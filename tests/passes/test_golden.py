"""Golden IR per pass: `tlc opt -p <pass>` on tests/passes/golden/<pass>/<case>.in.ir prints
exactly <case>.out.ir (regenerate with tools/update_goldens.py; see golden/README.md)."""
import difflib

import pytest
from click.testing import CliRunner

from golden_cases import GOLDEN, cases
from tlc.cli import cli
from tlc.backends import pipeline, registry

PIPELINE, REGISTRY = tuple(pipeline()), registry()

CASES = cases()
# passes that only check their input: their cases are identities
CHECK_ONLY = {"infer_types"}


def _opt(case) -> str:
    r = CliRunner().invoke(cli, ["opt", *case.opt_args()])
    assert r.exit_code == 0, r.output
    return r.output


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_pass_output_matches_golden(case):
    assert case.expected.exists(), f"{case.expected} is missing: run tools/update_goldens.py {case.pass_name}"
    got, want = _opt(case), case.expected.read_text()
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                            f"{case.id}.out.ir (golden)", f"tlc opt -p {case.pass_name}"))
        pytest.fail(f"{case.id}: output differs from the golden (if intended: "
                    f"tools/update_goldens.py {case.pass_name}, then review the diff)\n{diff}")


def test_every_pipeline_pass_has_a_case_that_changes_the_ir():
    by_pass = {}
    for c in CASES:
        by_pass.setdefault(c.pass_name, []).append(c)
    assert set(by_pass) <= set(REGISTRY), f"golden dirs naming no pass: {set(by_pass) - set(REGISTRY)}"
    missing = [p.name for p in PIPELINE if p.name not in by_pass]
    assert not missing, f"passes without a golden case under {GOLDEN}: {missing}"
    for name, cs in by_pass.items():
        changed = [c.id for c in cs if _strip_comments(c.input.read_text()) != c.expected.read_text()]
        if name in CHECK_ONLY:
            assert not changed, f"{name} only checks types, yet changed {changed}"
        else:
            assert changed, f"no case of {name} changes its input: add one where the pass does something"


def test_golden_files_are_well_formed():
    orphans = sorted(str(p.relative_to(GOLDEN)) for p in GOLDEN.glob("*/*.out.ir")
                     if not p.with_name(p.name[:-len(".out.ir")] + ".in.ir").exists())
    assert not orphans, f"expected outputs without an input: {orphans}"
    assert len(CASES) >= len(PIPELINE)


def _strip_comments(text: str) -> str:
    return "".join(ln for ln in text.splitlines(True) if not ln.startswith("//"))
