"""Gather, index_select, embedding and gather_elements through the TL kernels take_rows and
take_cols (scalar index loads), against NumPy's take / take_along_axis (exact: data movement)."""
import numpy as np
import pytest

import tl.ops as ops

DTYPES = [np.float32, np.float16, np.int8, np.int32, np.int64, np.bool_]


def _data(rng, shape, dt):
    x = rng.standard_normal(shape) * 50
    if dt == np.bool_:
        return x > 0
    x = x.astype(dt)
    if dt in (np.float32, np.float16) and x.size >= 3:
        x.reshape(-1)[:3] = [np.nan, -np.inf, -0.0]
    return x


def _same_bits(got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    g, w = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert g.tobytes() == w.tobytes()


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_gather_every_axis_strided(rng_seed, dt, axis):
    rng, seed = rng_seed
    base = _data(rng, (6, 11, 9), dt)
    x = base[::-1, 1::2, :]                         # negative and non-unit strides
    n = x.shape[axis]
    idx = rng.integers(-n, n, (3, 4))
    _same_bits(ops.gather(x, idx, axis), np.take(x, idx, axis))


def test_embedding_and_index_select(rng_seed):
    rng, seed = rng_seed
    w = rng.standard_normal((1000, 300)).astype(np.float32)
    tok = rng.integers(0, 1000, (7, 129))
    _same_bits(ops.embedding(tok, w), w[tok])
    x = rng.standard_normal((5, 333)).astype(np.float32)
    i = np.array([332, 0, -1, 17, 17])
    _same_bits(ops.index_select(x, 1, i), np.take(x, i, 1))


def test_gather_empty_and_out(rng_seed):
    rng, seed = rng_seed
    x = rng.standard_normal((4, 5)).astype(np.float32)
    assert ops.gather(x, np.zeros((0,), np.int64), 1).shape == (4, 0)
    out = np.full((8, 3), np.nan, np.float32)[::2]          # non-contiguous out=
    r = ops.gather(x, [4, 0, 2], 1, out=out)
    assert r is out
    _same_bits(out, x[:, [4, 0, 2]])


def test_gather_rejects_bad_indices():
    x = np.zeros((4, 5), np.float32)
    with pytest.raises(IndexError, match="gather"):
        ops.gather(x, [5], 1)
    with pytest.raises(TypeError, match="indices must be integers"):
        ops.gather(x, [0.5], 1)


@pytest.mark.parametrize("dt", [np.float32, np.int64, np.float16])
def test_gather_elements_wide_axis(rng_seed, dt):
    rng, seed = rng_seed
    x = _data(rng, (5, 1001), dt)[:, ::-1]
    idx = rng.integers(0, 1001, (5, 257))
    _same_bits(ops.gather_elements(x, idx, 1), np.take_along_axis(x, idx, 1))
    idx0 = rng.integers(0, 5, (3, 1001))
    _same_bits(ops.gather_elements(x, idx0, 0), np.take_along_axis(x, idx0, 0))
