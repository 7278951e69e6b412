"""Tiles partly outside their tensor (the edge path of loads and stores): the in-bounds box is
copied by rows and the rest reads 0; loop-carried integer tiles across such edges (this once
miscompiled at -O2 under strict aliasing: tiles are bit-copied through float words)."""
import numpy as np
import pytest

import tl.ops as ops


@pytest.mark.parametrize("dt", [np.int32, np.int64, np.float32])
@pytest.mark.parametrize("shape", [(3, 4), (13, 257), (1, 1), (9, 0)])
def test_cumsum_rows_past_the_tile(rng_seed, dt, shape):
    rng, seed = rng_seed
    x = (rng.standard_normal(shape) * 100).astype(dt)
    got = ops.cumsum(x, 1)
    want = np.cumsum(x.astype(np.float64), 1)
    if dt == np.float32:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3 * max(1, shape[1]))
    else:
        np.testing.assert_array_equal(got, want.astype(dt))


@pytest.mark.parametrize("shape", [(100003, 3), (5, 1), (1, 257), (7, 3)])
def test_ragged_elementwise_edges(rng_seed, shape):
    rng, seed = rng_seed
    base = rng.standard_normal((shape[0] + 2, shape[1] * 2)).astype(np.float32)
    a = base[1:-1, ::2]                                   # strided, offset view
    b = rng.standard_normal(shape).astype(np.float32)
    np.testing.assert_array_equal(ops.add(a, b), a + b)
    np.testing.assert_array_equal(ops.relu(a), np.maximum(a, 0))
