"""ONNX node tests (onnx==1.23.2) of the ops tl.ops implements: no case may crash, and the
pass count must not regress (docs/onnx_conformance.md has the per-op table)."""
import os
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import onnx_conformance as oc  # noqa: E402


def test_onnx_node_tests_of_implemented_ops():
    res = oc.run_all(only_implemented=True)
    passed = sum(1 for r in res if r[2] == "pass")
    failed = [r for r in res if r[2] == "fail"]
    assert passed >= 791, f"{passed} passed; failures: {failed[:10]}"
    assert not failed, failed[:20]
    skips = [r for r in res if r[2] == "skip"]
    assert all(r[3] for r in skips), [r for r in skips if not r[3]][:5]


def test_values_from_tensorproto_and_numpy_scalars():
    """Data-set values stored as TensorProto or NumPy scalars are run, not skipped."""
    from onnx import numpy_helper
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(oc._value(numpy_helper.from_array(a)), a)
    s = oc._value(np.float32(2.5))
    assert isinstance(s, np.ndarray) and s.shape == () and s == 2.5


def test_report_rates(tmp_path):
    res = [("t1", "Abs", "pass", ""), ("t2", "Abs", "fail", "x"), ("t3", "Abs", "skip", "why"),
           ("t4", "Constant", "skip", oc.MULTI), ("t5", "Unique", "skip", "op not implemented in tl.ops")]
    ip = oc.report(res, str(tmp_path / "r.md"))
    assert ip == [1, 1, 1]
    text = (tmp_path / "r.md").read_text()
    assert "| Abs | 1 | 1 | 1 | 50% |" in text and "ops under 95%: Abs" in text
    assert "Constant" not in text.split("## Ops not implemented")[0].split("## Implemented ops")[1]
    assert "Unique (1: op not implemented in tl.ops)" in text


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("causal", [False, True])
def test_onnx_attention_rounds_like_the_reference(dt, causal):
    """tl.ops.attention.onnx_attention against onnx.reference's Attention (which computes in T)
    on random inputs with GQA, a float mask, softcap and the qk output. Tolerance: a few ulp of
    T (NumPy's float16 matmul accumulates in float16 where ours accumulates in float32; the
    node tests themselves, with E = 8, pass at rtol 1e-3 above)."""
    from onnx import helper, TensorProto
    from onnx.reference import ReferenceEvaluator
    from tl.ops.attention import onnx_attention
    import tl_onnx_map as M
    rng = np.random.default_rng(7)
    npdt = np.dtype(dt) if dt != "bfloat16" else __import__("ml_dtypes").bfloat16
    code = {"float16": TensorProto.FLOAT16, "bfloat16": TensorProto.BFLOAT16, "float32": TensorProto.FLOAT}[dt]
    q = rng.standard_normal((2, 4, 5, 16)).astype(npdt)
    k = rng.standard_normal((2, 2, 7, 16)).astype(npdt)
    v = rng.standard_normal((2, 2, 7, 16)).astype(npdt)
    m = rng.standard_normal((5, 7)).astype(npdt)
    for softcap, mode in ((0.0, None), (2.0, 3)):
        attrs = dict(is_causal=int(causal))
        if softcap:
            attrs.update(softcap=softcap, qk_matmul_output_mode=mode)
        outs = ["Y"] + (["", "", "QK"] if mode is not None else [])
        node = helper.make_node("Attention", ["Q", "K", "V", "M"], outs, **attrs)
        vi = lambda n, s: helper.make_tensor_value_info(n, code, s)  # noqa: E731
        g = helper.make_graph([node], "g", [vi("Q", q.shape), vi("K", k.shape), vi("V", v.shape), vi("M", m.shape)],
                              [vi(o, None) for o in outs if o])
        model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 23)])
        want = ReferenceEvaluator(model).run(None, {"Q": q, "K": k, "V": v, "M": m})
        got = M.MAP["Attention"]([q, k, v, m], attrs, len(outs))
        got = [x for x, nm in zip(got, outs) if nm] if isinstance(got, list) else [got]
        for gv, wv in zip(got, want):
            assert gv.dtype == wv.dtype
            tol = {"float16": 3e-3, "bfloat16": 1.6e-2, "float32": 1e-5}[dt]
            np.testing.assert_allclose(gv.astype(np.float64), wv.astype(np.float64), rtol=tol, atol=tol)
    # the torch-like op rounds once (float32 inside): it must not be the staged result for bf16
    if dt == "bfloat16":
        y1 = onnx_attention(q, k, v, m.astype(np.float32))
        assert y1.dtype == npdt and y1.shape == (2, 4, 5, 16)
