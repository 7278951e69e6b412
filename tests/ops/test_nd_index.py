"""tl.ops.gather_nd / scatter_nd (tl/ops/indexing.py) against NumPy loop references (exact:
they only move data, or combine with one add/mul/max/min per update in index order)."""
import numpy as np
import pytest

import tl.ops as T

DTS = [np.float32, np.float16, T.bfloat16, np.int32, np.int64, np.int8]


def _gnd_ref(data, idx, b):
    lead = idx.shape[:-1]
    rest = data.shape[b + idx.shape[-1]:]
    out = np.empty(lead + rest, data.dtype)
    for pos in np.ndindex(*lead):
        out[pos] = data[pos[:b] + tuple(idx[pos])]
    return out


def _snd_ref(data, idx, upd, red):
    out = data.copy()
    f = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum}.get(red)
    for pos in np.ndindex(*idx.shape[:-1]):
        t = tuple(idx[pos])
        out[t] = upd[pos] if f is None else f(out[t], upd[pos])
    return out


@pytest.mark.parametrize("dt", DTS, ids=str)
@pytest.mark.parametrize("shape,k,b,lead", [((5, 7, 3), 2, 0, (4,)), ((5, 7, 3), 1, 0, (2, 3)), ((5, 7, 3), 3, 0, (6,)),
                                           ((4, 7, 3), 1, 1, (4, 5)), ((2, 3, 5, 4), 2, 1, (2, 3))])
def test_gather_nd(dt, shape, k, b, lead, rng_seed):
    rng, seed = rng_seed
    data = (rng.standard_normal(shape) * 20).astype(dt)
    dims = np.array(shape[b:b + k])
    idx = rng.integers(-dims, dims, size=lead + (k,))           # negative indices count from the end
    if b:
        idx = idx.reshape(shape[:b] + (-1, k)) if len(lead) == 1 else idx
    got = T.gather_nd(data, idx, b)
    np.testing.assert_array_equal(got, _gnd_ref(data, idx, b), err_msg=f"seed={seed}")
    big = np.zeros(shape[:-1] + (2 * shape[-1],), data.dtype)
    big[..., ::2] = data                                      # a strided (non-contiguous) view
    np.testing.assert_array_equal(T.gather_nd(big[..., ::2], idx, b), _gnd_ref(data, idx, b))


@pytest.mark.parametrize("red", ["none", "add", "mul", "max", "min"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_scatter_nd(red, k, rng_seed):
    rng, seed = rng_seed
    data = rng.uniform(-3, 3, (5, 6, 7)).astype(np.float32)
    n = 5 if k == 1 else 9
    flat = rng.choice(int(np.prod(data.shape[:k])), n, replace=(red != "none"))   # duplicates when reducing
    idx = np.stack(np.unravel_index(flat, data.shape[:k]), -1)
    idx[0] -= np.array(data.shape[:k])                        # one tuple given with negative indices
    upd = rng.uniform(-3, 3, (n,) + data.shape[k:]).astype(np.float32)
    got = T.scatter_nd(data, idx, upd, red)
    np.testing.assert_allclose(got, _snd_ref(data, idx, upd, red), rtol=2e-7, err_msg=f"{red} seed={seed}")
    assert got.shape == data.shape


@pytest.mark.parametrize("dt", DTS, ids=str)
def test_scatter_nd_dtypes_views_empty(dt, rng_seed):
    rng, seed = rng_seed
    data = (rng.standard_normal((6, 4)) * 20).astype(dt)
    idx = np.array([[5], [0], [2]])
    upd = (rng.standard_normal((3, 4)) * 20).astype(dt)
    big = np.zeros((6, 8), dt)
    big[:, 1::2] = data
    view = big[:, 1::2]                                       # a strided (non-contiguous) view of data
    np.testing.assert_array_equal(T.scatter_nd(view, idx, upd), _snd_ref(data, idx, upd, "none"))
    assert np.array_equal(T.scatter_nd(data, np.zeros((0, 1), np.int64), np.zeros((0, 4), dt)), data)
    assert T.gather_nd(data, np.zeros((0, 2), np.int64)).shape == (0,)


def test_errors():
    d = np.zeros((3, 4), np.float32)
    with pytest.raises(IndexError):
        T.gather_nd(d, np.array([[3, 0]]))
    with pytest.raises(TypeError, match="'indices'"):
        T.gather_nd(d, np.array([[0.0, 1.0]]))
    with pytest.raises(ValueError, match="indices"):
        T.gather_nd(d, np.array([[0, 1, 2]]))
    with pytest.raises(ValueError, match="batch_dims"):
        T.gather_nd(d, np.array([[0]]), 2)
    with pytest.raises(ValueError, match="'updates'"):
        T.scatter_nd(d, np.array([[1]]), np.zeros((1, 5), np.float32))
    with pytest.raises(IndexError):
        T.scatter_nd(d, np.array([[-4]]), np.zeros((1, 4), np.float32))
