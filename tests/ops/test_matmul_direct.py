"""matmul when the microkernel packs B straight from the tensor (whole tile in bounds, unit inner
stride, any row stride) and when it falls back to the tile copy (non-unit inner stride, edges),
against float64 NumPy."""
import numpy as np
import pytest

import tl.ops as ops


@pytest.mark.parametrize("case", ["offset_rows", "strided_cols", "strided_a", "edge"])
def test_matmul_b_in_place_and_copy_paths(case):
    rng = np.random.default_rng(7)
    m, k, n = (300, 272, 256) if case != "edge" else (260, 130, 200)
    a = rng.standard_normal((m, k)).astype(np.float32)
    big = rng.standard_normal((k + 5, 2 * n + 7)).astype(np.float32)
    b = big[3:3 + k, 2:2 + n] if case != "strided_cols" else big[3:3 + k, 1:1 + 2 * n:2]
    if case == "strided_a":
        a = np.asfortranarray(a)
    out = np.full((m, n), np.nan, np.float32)
    ops.matmul(a, b, out=out)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-6 * np.sqrt(k) * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)) + 1e-5
    assert (np.abs(out - ref) <= tol).all(), f"{case}: max err {np.abs(out - ref).max()}"
