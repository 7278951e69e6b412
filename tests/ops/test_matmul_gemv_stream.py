"""matmul_gemv (ops/matmul.py: one row of c, BN in {1024, 2048, 4096} columns per program; on x86 the
dot streams B in place in passes of 4 rows across all BN columns, tlc/emit_asm/templates/
gemm_row_stream.j2) as tl.ops.matmul picks it for one-row float32 products with k * n >= 2^20
and n a multiple of 1024; K tails, B windows (row stride
other than n), batches with broadcast, 1 and 2 threads, NaN/inf, and direct launches on edge tiles
(the tile-copy path) and several rows. Against float64 NumPy, and bit for bit against
matmul_rows (both are one fma per k, k ascending, from zero)."""
import numpy as np
import pytest

import tl
import tl.ops as ops
from ops_helpers import record_launches

ROWS = "matmul_rows__BM_1__DT_float32"


def _tol(a, b):
    k = a.shape[-1]
    return 1e-6 * np.sqrt(k) * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)) + 1e-6


def _rows(a3, b3):
    """The same product by matmul_rows (256 columns per program) for the bitwise comparison."""
    c = np.empty(b3.shape[:1] + (a3.shape[1], b3.shape[2]), np.float32)
    ops._launch(ROWS, a3, b3, c)
    return c


@pytest.mark.parametrize("kn,pad,off", [((1030, 1024), 21, 5), ((257, 4100), 12, 3), ((300, 5000), 24, 0),
                                        ((1024, 3 * 1024 + 7), 9, 1), ((4096, 1024), 0, 0), ((1100, 2048), 16, 15)])
def test_picked_for_one_row_against_float64_and_rows(kn, pad, off, monkeypatch):
    """The BN tl.ops.matmul picks at 1 thread (the widest dividing n; none: matmul_rows); B a
    window (row stride n + pad floats, first column off): rows in 64-byte lines at one offset
    (row stride a multiple of 16 floats: the shifted passes) or at varying offsets."""
    k, n = kn
    rng = np.random.default_rng(k + n)
    bbig = rng.standard_normal((k + 3, n + pad)).astype(np.float32)
    b = bbig[1:1 + k, off:off + n]
    a = rng.standard_normal((1, k)).astype(np.float32)
    out = np.full((1, n), np.nan, np.float32)
    threads = tl.num_threads()
    tl.set_num_threads(1)
    try:
        launched = record_launches(monkeypatch)
        assert ops.matmul(a, b, out=out) is out
        launched = list(launched)
    finally:
        tl.set_num_threads(threads)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert (np.abs(out - ref) <= _tol(a, b)).all(), f"{kn}: max err {np.abs(out - ref).max()}"
    assert np.array_equal(out, _rows(a[None], b[None])[0])
    if ops._x86():
        bn = next((w for w in (4096, 2048, 1024) if n % w == 0), 0)
        assert launched == ([f"matmul_gemv__BN_{bn}"] if bn else [ROWS]), launched


def test_threads_batches_and_vector_operands():
    """2 threads (at least one program each) give the same bits as 1; batched b with a broadcast a;
    1-D a."""
    rng = np.random.default_rng(7)
    a = rng.standard_normal(2000).astype(np.float32)
    b = rng.standard_normal((3, 2000, 2048)).astype(np.float32)
    threads = tl.num_threads()
    try:
        tl.set_num_threads(1)
        one = ops.matmul(a, b)
        tl.set_num_threads(2)
        two = ops.matmul(a, b)
    finally:
        tl.set_num_threads(threads)
    assert one.shape == (3, 2048)
    assert np.array_equal(one, two)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert (np.abs(one - ref) <= _tol(a, b)).all()
    assert np.array_equal(one, _rows(np.broadcast_to(a, (3, 1, 2000)), b)[:, 0])
    assert np.array_equal(one[1], ops.matmul(a, b[1]))


@pytest.mark.parametrize("bn,mkn", [(1024, (1, 70, 1500)), (2048, (3, 130, 2100)), (4096, (2, 65, 100)),
                                    (1024, (1, 3, 1024))])
def test_direct_edge_tiles_and_rows(bn, mkn):
    """Launched directly: columns past the last whole block (the zero-filled tile copy), K not a
    multiple of the K step (64) or of the 4-row pass, several rows (one program per row)."""
    m, k, n = mkn
    rng = np.random.default_rng(bn + k)
    a = rng.standard_normal((1, m, k)).astype(np.float32)
    b = rng.standard_normal((1, k, n)).astype(np.float32)
    c = np.full((1, m, n), np.nan, np.float32)
    ops._launch(f"matmul_gemv__BN_{bn}", a, b, c)
    ref = a[0].astype(np.float64) @ b[0].astype(np.float64)
    assert (np.abs(c[0] - ref) <= _tol(a[0], b[0])).all()
    assert np.array_equal(c, _rows(a, b)) if m == 1 else np.array_equal(c[:, :1], _rows(a[:, :1], b))
