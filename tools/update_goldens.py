"""Regenerate the golden IR of tests/passes/golden (never run by CI or by the tests).

    .venv/bin/python tools/update_goldens.py [PASS ...]            rewrite the expected outputs
    .venv/bin/python tools/update_goldens.py --inputs [PASS ...]   also rewrite the inputs of INPUTS

Expected output (<case>.out.ir) = `tlc opt -p <pass> [-t <target>] <case>.in.ir`. With --inputs,
each input listed in INPUTS is first made again from tests/passes/golden/kernels.py: the kernel's
IR with the pipeline stopped just before the pass (`tlc compile --emit ir --after <previous pass>`).
Prints each file it changes; review the diff (`git diff tests/passes/golden`) before committing:
a changed golden is a changed compiler.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "passes")]

from click.testing import CliRunner  # noqa: E402

from golden_cases import GOLDEN, cases  # noqa: E402
from tlc.cli import cli  # noqa: E402

# (pass, case, kernel of kernels.py, variant or None): the inputs --inputs makes
INPUTS = [
    ("infer_types", "scale_rows", "scale_rows", None),
    ("infer_types", "col_max", "col_max", None),
    ("canonicalize", "scale_rows", "scale_rows", None),
    ("fold_constants", "scale_rows", "scale_rows", None),
    ("infer_access", "scale_rows", "scale_rows", None),
    ("bounds", "col_max", "col_max", None),
    ("fuse_elementwise", "scale_rows", "scale_rows", None),
    ("fuse_elementwise", "col_max", "col_max", None),
    ("hoist_views", "scale_rows", "scale_rows", None),
    ("plan_memory", "col_max", "col_max", None),
    ("plan_memory", "small_matmul", "small_matmul", None),
    ("vectorize", "scale_rows_avx2", "scale_rows", "x86_64-avx2"),
    ("lower_dot", "small_matmul_avx512", "small_matmul", "x86_64-avx512"),
    ("lower_dot", "small_matmul_no_target", "small_matmul", None),
]


def _invoke(args: list[str]) -> str:
    r = CliRunner().invoke(cli, args)
    if r.exit_code != 0:
        raise SystemExit(f"tlc {' '.join(args)} failed:\n{r.output}")
    return r.output


def _write(path: Path, text: str) -> None:
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path.relative_to(ROOT)}")


def make_inputs(only: set[str]) -> None:
    from tlc.backends import pipeline
    PIPELINE = pipeline()
    names = [p.name for p in PIPELINE]
    cwd = os.getcwd()
    os.chdir(GOLDEN)          # locations and source_file read "kernels.py:<line>:<col>"
    try:
        for pass_name, case, kernel, target in INPUTS:
            if only and pass_name not in only:
                continue
            i = names.index(pass_name)
            before = names[i - 1] if i else "parse"
            args = ["compile", "kernels.py", "--emit", "ir", "-w", "-k", kernel, "--after", before]
            text = _invoke(args + (["-t", target] if target else []))
            head = (f"// golden input of {pass_name}: kernel {kernel} of kernels.py after {before}"
                    f" (tools/update_goldens.py --inputs)\n" + (f"// target: {target}\n" if target else ""))
            _write(GOLDEN / pass_name / f"{case}.in.ir", head + text)
    finally:
        os.chdir(cwd)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("passes", nargs="*", help="only these passes' cases")
    ap.add_argument("--inputs", action="store_true", help="also make the INPUTS again from kernels.py")
    args = ap.parse_args(argv)
    only = set(args.passes)
    if args.inputs:
        make_inputs(only)
    for case in cases():
        if not only or case.pass_name in only:
            _write(case.expected, _invoke(["opt", *case.opt_args()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
