"""ONNX node-test conformance for tl.ops.

Loads onnx==1.23.2's node tests (``load_model_tests(kind="node")``, cached as a pickle under
build/), maps each single-node model whose op type is in ``MAP`` to tl.ops (op type and
attributes), runs it and compares with ONNX's tolerance (rtol/atol of the case, NaNs equal).
Every case ends as pass, fail (with the error) or skip (with the reason); no exception
escapes. ``python tools/onnx_conformance.py [--out docs/onnx_conformance.md]`` writes the
report (``make onnx-conformance``).
"""
from __future__ import annotations

import os
import pickle
import sys
import traceback
from collections import defaultdict

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
CACHE = os.path.join(REPO, "build", "onnx_node_cases_1.23.2.pkl")


class Skip(Exception):
    """A case we do not run; the message is the reason."""


def load_cases():
    """[(name, model_bytes, [(inputs, outputs)], rtol, atol)] for every node test."""
    if os.path.exists(CACHE):
        with open(CACHE, "rb") as f:
            return pickle.load(f)
    import warnings
    from onnx.backend.test.loader import load_model_tests
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = load_model_tests(kind="node")
    out = []
    for c in cases:
        ds = [([np.asarray(a) if isinstance(a, np.ndarray) else a for a in i],
               [np.asarray(a) if isinstance(a, np.ndarray) else a for a in o]) for i, o in (c.data_sets or [])]
        out.append((c.name, c.model.SerializeToString(), ds, c.rtol, c.atol))
    os.makedirs(os.path.dirname(CACHE), exist_ok=True)
    with open(CACHE, "wb") as f:
        pickle.dump(out, f)
    return out


def _attrs(node):
    from onnx import helper
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def run_case(name, model_bytes, data_sets, rtol, atol):
    """('pass'|'fail'|'skip', op_type, reason)."""
    import onnx
    from tl_onnx_map import MAP
    model = onnx.load_from_string(model_bytes)
    g = model.graph
    if len(g.node) != 1:
        op = g.node[0].op_type if g.node else "?"
        return "skip", op, "expanded or multi-node model (function body), not a single node"
    node = g.node[0]
    op = node.op_type
    if node.domain not in ("", "ai.onnx"):
        return "skip", op, f"domain {node.domain}"
    if op not in MAP:
        return "skip", op, "op not implemented in tl.ops"
    if not data_sets:
        return "skip", op, "no data set"
    attrs = _attrs(node)
    try:
        for inputs, outputs in data_sets:
            ins = {}
            for vi, a in zip(g.input, inputs):
                ins[vi.name] = a
            args = [ins.get(n) if n else None for n in node.input]
            for a in args:
                if isinstance(a, np.ndarray) and a.dtype.kind in "USO":
                    raise Skip("string/object tensors")
                if a is not None and not isinstance(a, np.ndarray):
                    raise Skip("sequence/optional inputs")
            got = MAP[op](args, attrs, len(node.output))
            if not isinstance(got, (list, tuple)):
                got = [got]
            for k, (g_, want) in enumerate(zip(got, outputs)):
                if g_ is None:
                    continue
                g_ = np.asarray(g_)
                want = np.asarray(want)
                if g_.shape != want.shape:
                    return "fail", op, f"output {k}: shape {g_.shape} != {want.shape}"
                if want.dtype.kind in "biu":
                    if not np.array_equal(g_.astype(want.dtype), want):
                        return "fail", op, f"output {k}: values differ"
                else:
                    np.testing.assert_allclose(g_.astype(np.float64), want.astype(np.float64),
                                               rtol=rtol, atol=atol, equal_nan=True)
        return "pass", op, ""
    except Skip as e:
        return "skip", op, str(e)
    except TypeError as e:
        if "dtype" in str(e):
            return "skip", op, f"dtype not supported: {str(e)[:90]}"
        return "fail", op, f"TypeError: {str(e)[:100]}"
    except AssertionError as e:
        return "fail", op, str(e).strip().splitlines()[0][:120] + " " + " ".join(
            l.strip() for l in str(e).splitlines() if "Max abs" in l or "Mismatched" in l)
    except Exception as e:  # noqa: BLE001 - reported, never a crash
        if type(e).__name__ == "Skip":
            return "skip", op, str(e)
        if type(e).__name__ == "KernelNotFoundError" or (isinstance(e, KeyError) and "dtype(" in str(e)):
            return "skip", op, f"dtype not supported: {str(e)[:60]}"
        tb = traceback.extract_tb(e.__traceback__)[-1]
        return "fail", op, f"{type(e).__name__}: {str(e)[:100]} ({os.path.basename(tb.filename)}:{tb.lineno})"


def run_all(only_implemented=False):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from tl_onnx_map import MAP
    results = []
    for case in load_cases():
        name = case[0]
        with np.errstate(all="ignore"):
            try:
                import onnx
                op = onnx.load_from_string(case[1]).graph.node[0].op_type
            except Exception:  # noqa: BLE001
                op = "?"
            if only_implemented and op not in MAP:
                continue
            st, op2, why = run_case(*case)
        results.append((name, op2, st, why))
    return results


def report(results, path):
    per = defaultdict(lambda: [0, 0, 0, []])
    for name, op, st, why in results:
        e = per[op]
        e[{"pass": 0, "fail": 1, "skip": 2}[st]] += 1
        if st != "pass":
            e[3].append((name, st, why))
    tot = [sum(per[o][i] for o in per) for i in range(3)]
    impl = {o: v for o, v in per.items() if v[0] + v[1] > 0 or any(w[2] != "op not implemented in tl.ops" for w in v[3])}
    lines = ["# ONNX node-test conformance of tl.ops", "",
             "Generated by `make onnx-conformance` (tools/onnx_conformance.py) from onnx==1.23.2's "
             "node tests; tolerance: each case's rtol/atol (default 1e-3 / 1e-7).", "",
             f"All cases: {len(results)}; passed {tot[0]}, failed {tot[1]}, skipped {tot[2]}.", "",
             "## Implemented ops", "", "| ONNX op | passed | failed | skipped |", "|---|---|---|---|"]
    ip = [0, 0, 0]
    for o in sorted(impl):
        p, f, s, _ = impl[o]
        ip = [ip[0] + p, ip[1] + f, ip[2] + s]
        lines.append(f"| {o} | {p} | {f} | {s} |")
    lines += ["", f"Implemented ops: {len(impl)}; cases passed {ip[0]}, failed {ip[1]}, skipped {ip[2]}.", "",
              "## Failures and skips of implemented ops", ""]
    for o in sorted(impl):
        for name, st, why in impl[o][3]:
            lines.append(f"- {o} `{name}`: {st}: {why}")
    lines += ["", "## Ops not implemented (every case skipped: op not implemented in tl.ops)", ""]
    lines.append(", ".join(f"{o} ({per[o][2]})" for o in sorted(per) if o not in impl))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return ip


if __name__ == "__main__":
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else os.path.join(REPO, "docs", "onnx_conformance.md")
    res = run_all()
    ip = report(res, out)
    print(f"{out}: implemented-op cases passed {ip[0]}, failed {ip[1]}, skipped {ip[2]}")
