"""The golden IR cases of tests/passes/golden/<pass>/<case>.in.ir -> <case>.out.ir (see
tests/passes/golden/README.md): discovery and the `tlc opt` arguments of each case."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"
_TARGET = re.compile(r"^// target: (\S+)\s*$", re.M)


@dataclass(frozen=True)
class Case:
    """One golden case: the pass it runs, its input and expected-output files."""

    pass_name: str
    name: str
    input: Path
    expected: Path

    @property
    def id(self) -> str:
        return f"{self.pass_name}/{self.name}"

    def opt_args(self) -> list[str]:
        """`tlc opt` arguments: -p <pass>, -t <variant> when the input names one, the input file."""
        m = _TARGET.search(self.input.read_text())
        return ["-p", self.pass_name, *(["-t", m.group(1)] if m else []), str(self.input)]


def cases() -> list[Case]:
    """Every case under GOLDEN, sorted by pass directory then case name."""
    out = []
    for inp in sorted(GOLDEN.glob("*/*.in.ir")):
        name = inp.name[:-len(".in.ir")]
        out.append(Case(inp.parent.name, name, inp, inp.with_name(name + ".out.ir")))
    return out
