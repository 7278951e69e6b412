"""matmul through the microkernel paths of ops/matmul.py: several K steps (the accumulator is
updated in place across the K loop), partial tiles on every edge, and the few-row kernels
(matmul_rows, M <= 32), against float64 NumPy."""
import numpy as np
import pytest

import tl.ops as ops


@pytest.mark.parametrize("mkn", [(130, 600, 140), (256, 512, 256), (1, 700, 300), (8, 513, 257),
                                 (9, 300, 33), (32, 256, 512), (33, 257, 129), (3, 1000, 17)])
def test_matmul_k_steps_and_edges(mkn):
    m, k, n = mkn
    rng = np.random.default_rng(sum(mkn))
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    out = np.full((m, n), np.nan, np.float32)
    ops.matmul(a, b, out=out)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = 1e-6 * k * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)) / np.sqrt(k) + 1e-5
    assert (np.abs(out - ref) <= tol).all(), f"{mkn}: max err {np.abs(out - ref).max()}"


def test_matmul_rows_matches_main_kernel_bitwise():
    """The few-row kernels and the 128-row kernel compute the same fma sequence per element."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((200, 300)).astype(np.float32)
    b = rng.standard_normal((300, 70)).astype(np.float32)
    big = ops.matmul(a, b)                 # 200 rows: main kernel
    for m in (1, 5, 8, 9, 16, 20, 32, 33, 100, 128):
        assert np.array_equal(ops.matmul(a[:m], b), big[:m]), m
