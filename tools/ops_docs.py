"""Generates docs/operators.md from the op table (tl/ops/_catalog.py): ``python tools/ops_docs.py [path]``.

Test status comes from docs/onnx_conformance.md when present (passed/total of the op's ONNX
node tests) and "tests/ops" otherwise.
"""
from __future__ import annotations

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:      # run as a script from anywhere: the checkout's tl
    sys.path.insert(0, REPO)

from tl.ops._registry import registry  # noqa: E402


def _conformance() -> dict:
    path = os.path.join(REPO, "docs", "onnx_conformance.md")
    res = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            m = re.match(r"\| (\w+) \| (\d+) \| (\d+) \| (\d+) \|", line)
            if m:
                res[m.group(1)] = tuple(int(m.group(i)) for i in (2, 3, 4))
    return res


def render() -> str:
    ops = registry()
    conf = _conformance()
    lines = ["# Operators", "", "Generated from the op table (tl/ops/_catalog.py) by "
             "`python tools/ops_docs.py`; do not edit.", "",
             f"{len(ops)} operators.", "",
             "| op | category | ONNX | ATen | dtypes | kernels | targets | test status |",
             "|---|---|---|---|---|---|---|---|"]
    for o in sorted(ops.values(), key=lambda o: (o.category, o.name)):
        onnx_op = re.match(r"\w*", o.onnx).group(0)
        st = "tests/ops"
        if onnx_op in conf:
            p, f, s = conf[onnx_op]
            st += f"; ONNX {p}/{p + f + s} pass"
        lines.append(f"| `{o.name}` | {o.category} | {o.onnx or '-'} | {o.aten or '-'} | "
                     f"{', '.join(o.dtypes)} | {', '.join(o.kernels) or 'composed'} | host | {st} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    import argparse
    ap = argparse.ArgumentParser(description="Write the operator table (docs/operators.md) from tl/ops/_catalog.py.")
    ap.add_argument("path", nargs="?", default=os.path.join(REPO, "docs", "operators.md"), help="output file")
    path = ap.parse_args().path
    with open(path, "w", encoding="utf-8") as f:
        f.write(render())
    print(f"{path}: {len(registry())} operators")
