"""matmul for one row (the x86 GEMV kernel streaming B in place) and for several row blocks (A
copied by the dot itself with prefetching of the next K step): B and A as windows of larger
arrays (row strides other than the shapes), column-strided copies (the tile-copy fallback) and
edge tiles give the same bits, and equal float64 NumPy to fp32 accuracy."""
import numpy as np
import pytest

import tl.ops as ops


@pytest.mark.parametrize("mkn", [(1, 4096, 512), (1, 700, 272), (1, 33, 48), (1, 257, 100), (2, 300, 256),
                                 (16, 513, 512), (128, 300, 256), (300, 260, 528)])
def test_in_place_windows_and_copies_agree(mkn):
    m, k, n = mkn
    rng = np.random.default_rng(sum(mkn))
    abig = rng.standard_normal((m + 3, 2 * k + 9)).astype(np.float32)
    bbig = rng.standard_normal((k + 5, 2 * n + 7)).astype(np.float32)
    a_win, b_win = abig[2:2 + m, 5:5 + k], bbig[3:3 + k, 4:4 + n]          # unit inner stride
    a_str, b_str = abig[2:2 + m, 1:1 + 2 * k:2], bbig[3:3 + k, 1:1 + 2 * n:2]  # copied tiles
    ref = a_win.astype(np.float64) @ b_win.astype(np.float64)
    tol = 1e-6 * np.sqrt(k) * (np.abs(a_win).astype(np.float64) @ np.abs(b_win).astype(np.float64)) + 1e-6
    got = ops.matmul(a_win, b_win)
    assert (np.abs(got - ref) <= tol).all(), f"{mkn}: max err {np.abs(got - ref).max()}"
    assert np.array_equal(got, ops.matmul(np.ascontiguousarray(a_win), np.ascontiguousarray(b_win)))
    ref2 = a_str.astype(np.float64) @ b_str.astype(np.float64)
    got2 = ops.matmul(a_str, b_str)
    tol2 = 1e-6 * np.sqrt(k) * (np.abs(a_str).astype(np.float64) @ np.abs(b_str).astype(np.float64)) + 1e-6
    assert (np.abs(got2 - ref2) <= tol2).all()
    assert np.array_equal(got2, ops.matmul(np.ascontiguousarray(a_str), np.ascontiguousarray(b_str)))


@pytest.mark.parametrize("k, n", [(600, 320), (1100, 2048)], ids=["rows-kernel", "gemv-stream"])
def test_vector_times_matrix_and_specials(k, n):
    """1-D a (promoted to one row); inf/NaN in B reach exactly the columns they touch, also in
    the last row and column and as 0 * inf; n = 320 runs matmul_rows, n = 2048 (a multiple of
    1024) the streaming matmul_gemv on x86."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal(k).astype(np.float32)
    w = rng.standard_normal((k, n)).astype(np.float32)
    w[17, 5] = np.inf
    w[400, n - 20] = np.nan
    w[k - 1, n - 1] = -np.inf                                   # last row and column
    x[3] = 0.0
    w[3, 100] = np.inf                                          # 0 * inf: NaN
    got = ops.matmul(x, w)
    assert got.shape == (n,)
    with np.errstate(invalid="ignore", over="ignore"):
        ref = x.astype(np.float64) @ w.astype(np.float64)
    assert np.isposinf(got[5]) == np.isposinf(ref[5]) and np.isneginf(got[5]) == np.isneginf(ref[5])
    assert np.isnan(got[n - 20]) and np.isnan(got[100])
    assert np.isinf(got[n - 1]) == np.isinf(ref[n - 1])
    ok = np.isfinite(ref)
    assert np.allclose(got[ok], ref[ok], rtol=1e-5, atol=1e-4)
