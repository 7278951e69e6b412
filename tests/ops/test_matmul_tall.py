"""matmul_big with 512 x 128 tiles (ops/matmul.py, "tall") on batches and strided operands with NaN, against
float64 NumPy, and the 2-D fast path of tl.ops.matmul / the out= aliasing check without
Signature.bind. Which kernel tl.ops.matmul picks, and the edge sizes, are tested in
test_matmul_wide.py; the bit-identity with the 256 x 128 kernel there too."""
import numpy as np
import pytest

import tl.ops as ops


def _tol(a, b):
    k = a.shape[-1]
    return 1e-6 * np.sqrt(k) * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)) + 1e-5


def test_tall_batch_strided_nan():
    rng = np.random.default_rng(13)
    a = rng.standard_normal((2, 1024, 2 * 260)).astype(np.float32)[:, :, ::2]   # inner stride 2
    b = rng.standard_normal((260, 530)).astype(np.float32)                    # broadcast over the batch
    a[1, 600, 7] = np.nan
    out = ops.matmul(a, b)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    assert out.shape == (2, 1024, 530)
    assert np.isnan(out[1, 600]).all() and not np.isnan(out[0]).any()
    ok = ~np.isnan(ref)
    assert (np.abs(out - ref)[ok] <= np.broadcast_to(_tol(a[0], b), ref.shape)[ok] * 4).all()


def test_two_d_views_and_out_aliasing():
    """2-D operands go to the kernel as (1, m, k) views: column-strided, transposed and windowed
    inputs, a non-contiguous out, and out overlapping an input (computed into a temporary)."""
    rng = np.random.default_rng(17)
    big = rng.standard_normal((300, 400)).astype(np.float32)
    a = big[5:205, 1:301:2]                                   # (200, 150), column stride 2
    b = big[100:250, 190:390]                                 # (150, 200) window, row stride 400
    want = a.astype(np.float64) @ b.astype(np.float64)
    outbuf = np.full((200, 2 * 200), np.nan, np.float32)
    out = outbuf[:, ::2]                                      # non-contiguous destination
    assert ops.matmul(a, b, out=out) is out
    assert (np.abs(out - want) <= _tol(a, b)).all()
    assert np.isnan(outbuf[:, 1::2]).all()                    # the gaps are untouched
    sq = rng.standard_normal((64, 64)).astype(np.float32)
    want = sq.astype(np.float64) @ sq.astype(np.float64)
    assert ops.matmul(sq, sq, out=sq) is sq                   # out is both inputs
    assert (np.abs(sq - want) <= 1e-4 * (1 + np.abs(want))).all()
    x = rng.standard_normal((64, 64)).astype(np.float32)
    y = rng.standard_normal((64, 64)).astype(np.float32)
    want = x.astype(np.float64) @ y.astype(np.float64)
    ops.matmul(x, y, y)                                       # out given positionally, aliases b
    assert (np.abs(y - want) <= 1e-4 * (1 + np.abs(want))).all()
    with pytest.raises(ValueError, match="out"):
        ops.matmul(x, x, out=np.empty((64, 65), np.float32))
