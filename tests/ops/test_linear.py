"""tl.ops.linear (ops/matmul_epilogue.py): fused matmul + bias + activation (+ residual) against
float64 NumPy, on tile edges and several K steps."""
import math

import numpy as np
import pytest

import tl.ops as ops


def _ref(x, w, b, act, res):
    v = x.astype(np.float64) @ w.astype(np.float64) + (0 if b is None else b)
    if act == "relu":
        v = np.maximum(v, 0)
    elif act == "gelu":
        v = 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))
    elif act == "gelu_tanh":
        v = 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
    elif act == "silu":
        v = v / (1 + np.exp(-v))
    return v + (0 if res is None else res)


@pytest.mark.parametrize("act", [None, "relu", "gelu", "gelu_tanh", "silu"])
@pytest.mark.parametrize("mkn,with_res", [((130, 300, 140), False), ((7, 33, 129), True), ((128, 512, 64), True)])
def test_linear(act, mkn, with_res):
    m, k, n = mkn
    rng = np.random.default_rng(m + k + n)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((k, n)) / math.sqrt(k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    res = rng.standard_normal((m, n)).astype(np.float32) if with_res else None
    got = ops.linear(x, np.ascontiguousarray(w.T), bias=b, activation=act, residual=res)   # weight (N, K)
    np.testing.assert_allclose(got, _ref(x, w, b, act, res), rtol=2e-5, atol=2e-5)


def test_linear_batched_no_bias_and_errors():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 20)).astype(np.float32)
    w = rng.standard_normal((20, 17)).astype(np.float32)
    np.testing.assert_allclose(ops.linear(x, w.T), x.astype(np.float64) @ w, rtol=2e-5, atol=2e-5)
    with pytest.raises(ValueError, match="activation"):
        ops.linear(x, w.T, activation="tanhh")
    with pytest.raises(ValueError, match="aligned"):
        ops.linear(x, w)                        # (K, N) is not PyTorch's (out, in) layout
