"""matmul_big (ops/matmul.py; wide: 256 x 256 tiles, tall: 512 x 128) as tl.ops.matmul picks it for large float32
products: partial tiles on every edge, several K steps with a K tail, batches, strided and
transposed operands, NaN/inf propagation, against float64 NumPy; and bit-identical to the
256 x 128 kernel (both are fma chains over k ascending, in K steps of 128)."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import record_launches

# ops/matmul.py instance names
KERNELS = {"wide": "matmul_big__BM_256__BN_256__DT_float32", "tall": "matmul_big__BM_512__BN_128__DT_float32",
           "matmul": "matmul__DT_float32"}


def _tol(a, b):
    k = a.shape[-1]
    return 1e-6 * np.sqrt(k) * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)) + 1e-5


@pytest.mark.parametrize("mkn,kernel", [((512, 256, 512), "wide"), ((517, 300, 777), "wide"),
                                        ((300, 1000, 520), "wide"), ((257, 257, 1024), "wide"),
                                        ((1000, 259, 515), "wide"), ((513, 384, 531), "wide"),
                                        ((1100, 259, 515), "wide"), ((1024, 256, 512), "tall"),
                                        ((1500, 300, 777), "tall"), ((2047, 384, 531), "tall"),
                                        ((1024, 130, 600), "matmul")])
def test_big_tile_edges_against_float64(mkn, kernel, monkeypatch):
    """The kernel tl.ops.matmul picks (wide 256 x 256, tall 512 x 128 from 1024 rows on AVX-512
    bundles, matmul for short K) and its result against float64 at partial tiles and K tails."""
    m, k, n = mkn
    launched = record_launches(monkeypatch)
    rng = np.random.default_rng(sum(mkn))
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)
    assert ops.matmul(a, b, out=out) is out
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert (np.abs(out - ref) <= _tol(a, b)).all(), f"{mkn}: max err {np.abs(out - ref).max()}"
    if kernel == "tall" and not ops._avx512():
        kernel = "wide"                                   # 512-row tiles only on AVX-512 bundles
    assert launched == [KERNELS[kernel]]


@pytest.mark.parametrize("kernel,m", [("wide", 600), ("tall", 1030)])
def test_bitwise_equals_narrow_tiles(kernel, m):
    """256 x 256 (wide) and 512 x 128 (tall) tiles keep matmul's FMA order: bit-identical results."""
    rng = np.random.default_rng(m)
    a = rng.standard_normal((1, m, 700)).astype(np.float32)
    b = rng.standard_normal((1, 700, 900)).astype(np.float32)
    big, narrow = np.empty((1, m, 900), np.float32), np.empty((1, m, 900), np.float32)
    ops._launch(KERNELS[kernel], a, b, big)
    ops._launch("matmul__DT_float32", a, b, narrow)
    assert np.array_equal(big, narrow)
    assert np.array_equal(ops.matmul(a[0], b[0]), big[0])


def test_wide_batch_strided_transposed():
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 300, 2 * 260)).astype(np.float32)[:, :, ::2]   # inner stride 2
    bt = rng.standard_normal((3, 530, 260)).astype(np.float32)
    b = bt.transpose(0, 2, 1)                                                  # (3, 260, 530), column-major
    out = ops.matmul(a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert out.shape == (3, 300, 530)
    for z in range(3):
        assert (np.abs(out[z] - ref[z]) <= _tol(a[z], b[z])).all(), z
    ob = ops.matmul(a[0], b)                                                   # broadcast a over the batch
    assert np.array_equal(ob[1], ops.matmul(a[0], b[1]))


def test_wide_nan_inf_propagate():
    rng = np.random.default_rng(5)
    a = rng.standard_normal((520, 300)).astype(np.float32)
    b = rng.standard_normal((300, 600)).astype(np.float32)
    a[3, 7] = np.nan
    a[400, 299] = np.inf
    out = ops.matmul(a, b)
    assert np.isnan(out[3]).all()
    assert np.isinf(out[400]).sum() + np.isnan(out[400]).sum() == 600
    ref = a[:3].astype(np.float64) @ b
    assert (np.abs(out[:3] - ref) <= _tol(a[:3], b)).all()


@pytest.mark.parametrize("act", [None, "relu", "gelu", "gelu_tanh", "silu"])
@pytest.mark.parametrize("with_res,contig_w", [(False, True), (True, False)])
def test_linear_wide_epilogues(act, with_res, contig_w, monkeypatch):
    """tl.ops.linear on a product large enough for linear_wide; the weight both as a contiguous
    (N, K) array (the kernel reads w = weight.T with inner stride K) and as a transposed view of a
    contiguous (K, N) array (unit inner stride: B is packed straight from the tensor)."""
    import math
    launched = record_launches(monkeypatch)
    m, k, n = 520, 300, 530
    rng = np.random.default_rng(n + with_res)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = (rng.standard_normal((k, n)) / math.sqrt(k)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    res = rng.standard_normal((m, n)).astype(np.float32) if with_res else None
    weight = np.ascontiguousarray(w.T) if contig_w else w.T
    got = ops.linear(x, weight, bias=b, activation=act, residual=res)
    v = x.astype(np.float64) @ w.astype(np.float64) + b
    if act == "relu":
        v = np.maximum(v, 0)
    elif act == "gelu":
        v = 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))
    elif act == "gelu_tanh":
        v = 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))
    elif act == "silu":
        v = v / (1 + np.exp(-v))
    if with_res:
        v = v + res
    np.testing.assert_allclose(got, v, rtol=2e-5, atol=2e-5)
    assert launched and launched[-1].startswith("linear_wide__"), launched
