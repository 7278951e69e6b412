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


def _value(a):
    """A data-set value as NumPy: arrays and NumPy scalars as arrays, TensorProtos converted
    (Skip for element types NumPy has no dtype for), sequences / optionals left as they are."""
    if isinstance(a, np.ndarray):
        return a
    if isinstance(a, np.generic):
        return np.asarray(a)
    if type(a).__name__ == "TensorProto":
        from onnx import numpy_helper, helper
        try:
            return numpy_helper.to_array(a)
        except Exception as e:  # noqa: BLE001 - reported as the skip reason
            raise Skip(f"tensor element type {helper.tensor_dtype_to_string(a.data_type)} has no NumPy "
                       f"dtype ({type(e).__name__})") from None
    return a


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
                ins[vi.name] = _value(a)
            outputs = [_value(o) for o in outputs]
            args = [ins.get(n) if n else None for n in node.input]
            for a in args:
                if isinstance(a, np.ndarray) and a.dtype.kind in "USO":
                    raise Skip("string/object tensors")
                if a is not None and not isinstance(a, np.ndarray):
                    raise Skip("sequence/optional inputs")
            got = MAP[op](args, attrs, len(node.output))
            if not isinstance(got, (list, tuple)):
                got = [got]
            if len(got) == len(node.output):    # optional outputs left unnamed are not expected
                got = [g_ for g_, nm in zip(got, node.output) if nm]
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


MULTI = "expanded or multi-node model (function body), not a single node"


def report(results, path):
    """Write the markdown report; returns [passed, failed, skipped] over implemented ops.

    Ops are those of tools/tl_onnx_map.MAP (single-node models). Multi-node (``_expanded``)
    models are counted apart: they test an op's function body, not one op. An op's pass rate
    is passed / (passed + failed): the cases it runs; each skip is listed with its reason."""
    from tl_onnx_map import MAP
    per = defaultdict(lambda: [0, 0, 0, []])
    multi = 0
    for name, op, st, why in results:
        if st == "skip" and why == MULTI:
            multi += 1
            continue
        e = per[op]
        e[{"pass": 0, "fail": 1, "skip": 2}[st]] += 1
        if st != "pass":
            e[3].append((name, st, why))
    tot = [sum(1 for r in results if r[2] == k) for k in ("pass", "fail", "skip")]
    impl = {o: per[o] for o in MAP if o in per}
    lines = ["# ONNX node-test conformance of tl.ops", "",
             "Generated by `make onnx-conformance` (tools/onnx_conformance.py) from onnx==1.23.2's "
             "node tests; tolerance: each case's rtol/atol (default 1e-3 / 1e-7). Pass rate = "
             "passed / (passed + failed); every skip is listed below with its reason.", "",
             f"All cases: {len(results)}; passed {tot[0]}, failed {tot[1]}, skipped {tot[2]} "
             f"({multi} of them multi-node `_expanded` models, which test an op's function body "
             "rather than one op, and are not run).", "",
             "## Implemented ops", "", "| ONNX op | passed | failed | skipped | pass rate |",
             "|---|---|---|---|---|"]
    ip = [0, 0, 0]
    low = []
    for o in sorted(impl):
        p, f, s_, _ = impl[o]
        ip = [ip[0] + p, ip[1] + f, ip[2] + s_]
        rate = f"{100.0 * p / (p + f):.0f}%" if p + f else "-"
        if p + f and p / (p + f) < 0.95:
            low.append(o)
        lines.append(f"| {o} | {p} | {f} | {s_} | {rate} |")
    lines += ["", f"Implemented ops: {len(impl)}; cases passed {ip[0]}, failed {ip[1]}, skipped {ip[2]}; "
              f"ops under 95%: {', '.join(low) if low else 'none'}.", "",
              "## Failures and skips of implemented ops", ""]
    for o in sorted(impl):
        for name, st, why in impl[o][3]:
            lines.append(f"- {o} `{name}`: {st}: {why}")
    lines += ["", "## Ops not implemented (single-node cases skipped, with the reason)", ""]
    rest = []
    for o in sorted(per):
        if o in impl:
            continue
        whys = sorted({w for _, _, w in per[o][3]})
        rest.append(f"{o} ({per[o][2]}: {'; '.join(whys)})")
    lines.append(", ".join(rest))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return ip


if __name__ == "__main__":
    out = sys.argv[sys.argv.index("--out") + 1] if "--out" in sys.argv else os.path.join(REPO, "docs", "onnx_conformance.md")
    res = run_all()
    ip = report(res, out)
    print(f"{out}: implemented-op cases passed {ip[0]}, failed {ip[1]}, skipped {ip[2]}")
