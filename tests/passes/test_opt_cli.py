"""`tlc opt` (passes on printed IR) and `tlc compile --emit ir --after PASS` (the IR at a stage):
results, and the errors for an unknown pass, unparsable or unverifiable IR and misuse."""
import re

import pytest
from click.testing import CliRunner

from golden_cases import GOLDEN
from tlc.cli import cli
from tlc.backends import pipeline
from tlc.lower.printer import IRParseError, parse_module, print_module

PIPELINE = tuple(pipeline())

KERNELS = GOLDEN / "kernels.py"
SCALE_IN = GOLDEN / "fuse_elementwise" / "scale_rows.in.ir"


def tlc(*args, input=None):
    return CliRunner().invoke(cli, [str(a) for a in args], input=input)


def test_list_passes_is_the_pipeline_in_order():
    r = tlc("opt", "--list-passes")
    assert r.exit_code == 0, r.output
    names = [ln.split()[0] for ln in r.output.splitlines()]
    assert names == [p.name for p in PIPELINE]
    assert "groups chains of tile elementwise ops" in r.output       # the pass's own summary


def test_several_passes_run_in_order_and_write_o(tmp_path):
    out = tmp_path / "out.ir"
    r = tlc("opt", "-p", "fuse_elementwise", "-p", "hoist_views", SCALE_IN, "-o", out)
    assert r.exit_code == 0 and r.output == "", r.output
    text = out.read_text()
    assert "= fused " in text and "= mul " not in text.split("fused")[0]
    one = tlc("opt", "-p", "fuse_elementwise", SCALE_IN).output
    two = tlc("opt", "-p", "hoist_views", "-", input=one).output       # stdin
    assert two == text


def test_no_pass_round_trips_and_comments_are_skipped():
    text = SCALE_IN.read_text()
    assert text.startswith("//")
    r = tlc("opt", SCALE_IN)
    assert r.exit_code == 0, r.output
    assert r.output == "".join(ln for ln in text.splitlines(True) if not ln.startswith("//"))


def test_unknown_pass_names_the_known_ones():
    r = tlc("opt", "-p", "fuse_elementwise", "-p", "frobnicate", SCALE_IN)
    assert r.exit_code == 1
    assert "unknown pass 'frobnicate' (-p); known passes: infer_types, canonicalize" in r.output
    assert "Traceback" not in r.output


def test_unparsable_ir_names_file_and_line(tmp_path):
    lines = SCALE_IN.read_text().splitlines(True)
    n = next(i for i, ln in enumerate(lines) if " = exp " in ln)
    lines[n] = lines[n].replace(" = exp %", " = exp %999")
    bad = tmp_path / "bad.ir"
    bad.write_text("".join(lines))
    r = tlc("opt", "-p", "canonicalize", bad)
    assert r.exit_code == 1
    assert re.fullmatch(rf"{re.escape(str(bad))}:{n + 1}: error: use of undefined value %999\d*\n", r.output), r.output


@pytest.mark.parametrize("old,new,msg", [
    ("tile<1x16xf32>", "tile<1x16xq7>", "bad type 'tile<1x16xq7>'"),
    ("base_name=", "basename=", "missing attr base_name"),
    ("{checked=", "{checked==", "expected name=value pairs"),
    ("= exp ", "= frob ", "unknown opcode 'frob'"),
])
def test_parser_errors_are_located(old, new, msg):
    text = SCALE_IN.read_text()
    bad = text.replace(old, new, 1)
    line = text[:text.index(old)].count("\n") + 1
    with pytest.raises(IRParseError, match=re.escape(msg)) as e:
        parse_module(bad)
    assert e.value.line == line and str(e.value).startswith(f"line {line}: ")


def test_input_that_does_not_verify(tmp_path):
    text = SCALE_IN.read_text()
    bad = tmp_path / "bad.ir"        # exp's result declared with the wrong shape
    line = next(ln for ln in text.splitlines() if " = exp " in ln)
    bad.write_text(text.replace(line, line.replace("tile<1x16xf32>", "tile<1x8xf32>")))
    r = tlc("opt", "-p", "fuse_elementwise", bad)
    assert r.exit_code == 1
    assert r.output.startswith(f"{bad}: error: the input IR does not verify: IR verification failed")
    assert "exp" in r.output and "Traceback" not in r.output


def test_a_failing_pass_is_an_error_naming_it_and_a_bad_output_is_caught(monkeypatch):
    from tlc.lower import passes
    from tlc.lower.rewrite import map_kernels

    class Boom:
        name = "boom"

        def run(self, module, ctx):
            raise KeyError("no attr 'shape'")

    class Breaks:          # drops the body's ops: the store's operands vanish, verification fails
        name = "breaks"

        def run(self, module, ctx):
            import dataclasses
            return map_kernels(module, lambda k: dataclasses.replace(
                k, body=dataclasses.replace(k.body, ops=k.body.ops[-1:])))

    monkeypatch.setitem(passes.REGISTRY, "boom", Boom())
    monkeypatch.setitem(passes.REGISTRY, "breaks", Breaks())
    r = tlc("opt", "-p", "canonicalize", "-p", "boom", SCALE_IN)
    assert r.exit_code == 1
    assert r.output.startswith(f"{SCALE_IN}: error: pass boom failed on this IR: KeyError: ")
    assert "TL_DEBUG=1" in r.output and "Traceback" not in r.output
    r = tlc("opt", "-p", "breaks", SCALE_IN)
    assert r.exit_code == 1
    assert r.output.startswith(f"{SCALE_IN}: error: after pass breaks: IR verification failed"), r.output


def test_target_selects_the_variant():
    case = GOLDEN / "lower_dot" / "small_matmul_avx512.in.ir"
    plain = tlc("opt", "-p", "lower_dot", case).output
    avx512 = tlc("opt", "-p", "lower_dot", "-t", "x86_64-avx512", case).output
    avx2 = tlc("opt", "-p", "lower_dot", "-t", "x86_64-avx2", case).output
    assert "ukernel" not in plain
    assert 'ukernel=("avx512", ' in avx512 and 'ukernel=("avx2", ' in avx2
    r = tlc("opt", "-p", "lower_dot", "-t", "x86_64-avx9", case)
    assert r.exit_code == 1 and "unknown target 'x86_64-avx9'" in r.output


def test_missing_file_argument():
    r = tlc("opt", "-p", "bounds")
    assert r.exit_code == 2 and "missing FILE" in r.output


def test_compile_after_stops_the_pipeline_where_asked(monkeypatch):
    monkeypatch.chdir(GOLDEN)
    base = ["compile", "kernels.py", "--emit", "ir", "-w", "-k", "scale_rows"]
    full = tlc(*base).output
    assert tlc(*base, "--after", PIPELINE[-1].name).output == full
    parsed = tlc(*base, "--after", "parse").output
    assert "view %7" in parsed and "fused" not in parsed         # view of view, as the frontend made it
    # the stage before a pass, run through `tlc opt`, gives the stage after it
    before = tlc(*base, "--after", "bounds").output
    after = tlc(*base, "--after", "fuse_elementwise").output
    assert tlc("opt", "-p", "fuse_elementwise", "-", input=before).output == after
    # and the pipeline's IR round-trips through the printer at every stage
    for p in PIPELINE:
        text = tlc(*base, "--after", p.name).output
        assert print_module(parse_module(text)) == text


def test_compile_after_errors():
    r = tlc("compile", KERNELS, "--after", "bounds")
    assert r.exit_code == 1 and "--after bounds needs --emit ir" in r.output
    r = tlc("compile", KERNELS, "--emit", "ir", "--after", "nope")
    assert r.exit_code == 1 and "unknown pass 'nope'" in r.output and "(or `parse`)" in r.output
