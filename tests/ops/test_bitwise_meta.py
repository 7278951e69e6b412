"""tl.ops bitwise_and/or/xor/not (ops/bitwise.py) against NumPy (exact), and shape/size."""
import numpy as np
import pytest

import tl.ops as T

DTS = [np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64]
BIN = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor}


def _ints(rng, shape, dt):
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, size=shape, dtype=dt, endpoint=True)


@pytest.mark.parametrize("dt", DTS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(BIN))
def test_binary_exact_broadcast(name, dt, rng_seed):
    rng, seed = rng_seed
    a = _ints(rng, (3, 1, 37), dt)            # odd sizes, extremes included by the full range
    b = _ints(rng, (5, 1), dt)
    a.flat[0], b.flat[0] = np.iinfo(dt).min, np.iinfo(dt).max
    got = T.__dict__[name](a, b)
    assert got.dtype == np.dtype(dt) and got.shape == (3, 5, 37)
    np.testing.assert_array_equal(got, BIN[name](a, b), err_msg=f"seed={seed}")


@pytest.mark.parametrize("dt", DTS + [np.bool_], ids=lambda d: np.dtype(d).name)
def test_not_exact(dt, rng_seed):
    rng, seed = rng_seed
    x = rng.integers(0, 2, (4, 33)).astype(bool) if dt == np.bool_ else _ints(rng, (4, 33), dt)
    np.testing.assert_array_equal(T.bitwise_not(x), np.invert(x), err_msg=f"seed={seed}")


def test_bool_views_out_and_empty(rng_seed):
    rng, seed = rng_seed
    a = rng.integers(0, 2, (6, 9)).astype(bool)
    b = rng.integers(0, 2, (9,)).astype(bool)
    for name, f in BIN.items():
        np.testing.assert_array_equal(T.__dict__[name](a, b), f(a, b), err_msg=name)
    x = _ints(rng, (8, 21), np.uint32)
    v = x[::2, ::-3]                                              # strided, reversed
    out = np.zeros((8, 21), np.uint32)
    r = T.bitwise_xor(v, np.uint32(0xFFFF0000), out=out[1::2, ::3])
    np.testing.assert_array_equal(out[1::2, ::3], v ^ np.uint32(0xFFFF0000))
    assert r.base is not None and (out[::2] == 0).all()
    assert T.bitwise_and(v, 7).dtype == np.uint32                  # a Python int takes the array's dtype
    assert T.bitwise_not(np.zeros((0, 3), np.int64)).shape == (0, 3)
    assert T.bitwise_or(np.zeros((2, 0), np.int8), np.zeros((1, 0), np.int8)).shape == (2, 0)


def test_errors():
    with pytest.raises(TypeError, match="'a'"):
        T.bitwise_and(np.ones(3, np.float32), np.ones(3, np.float32))
    with pytest.raises(TypeError, match="'x'"):
        T.bitwise_not(np.ones(3, np.int16))
    with pytest.raises(TypeError, match="one dtype"):
        T.bitwise_or(np.ones(3, np.int32), np.ones(3, np.int64))
    with pytest.raises(ValueError, match="broadcast"):
        T.bitwise_xor(np.ones((2, 3), np.int32), np.ones(4, np.int32))
    with pytest.raises(ValueError, match="'out'"):
        T.bitwise_xor(np.ones(3, np.int32), np.ones(3, np.int32), out=np.empty(4, np.int32))
    with pytest.raises(TypeError, match="'out'"):
        T.bitwise_not(np.ones(3, np.int32), out=np.empty(3, np.int64))


def test_shape_and_size():
    x = np.zeros((3, 4, 5), np.float16)
    np.testing.assert_array_equal(T.shape(x), [3, 4, 5])
    for s, e in [(1, None), (-1, None), (0, -1), (1, 2), (-10, 10), (2, 1)]:
        got = T.shape(x, s, e)
        assert got.dtype == np.int64 and got.ndim == 1
        np.testing.assert_array_equal(got, np.array(x.shape[s:e], np.int64))
    assert T.size(x) == 60 and T.size(x).dtype == np.int64 and T.size(x).shape == ()
    assert T.size(np.zeros((0, 7))) == 0 and T.size(np.float32(2)) == 1
    assert T.shape(np.float32(2)).shape == (0,)
    with pytest.raises(TypeError, match="'start'"):
        T.shape(x, 1.5)


def _rev_ref(x, lens, ba, ta):
    y = x.copy()
    for b, n in enumerate(lens):
        src = [slice(None)] * x.ndim
        src[ba], src[ta] = b, slice(None, n)
        dst = list(src)
        dst[ta] = slice(n - 1, None, -1) if n > 0 else slice(0, 0)
        y[tuple(src)] = x[tuple(dst)]
    return y


@pytest.mark.parametrize("dt", [np.float32, np.float16, T.bfloat16, np.int64, np.int8, np.bool_], ids=str)
@pytest.mark.parametrize("ba,ta,shape", [(1, 0, (7, 5)), (0, 1, (5, 7)), (2, 0, (6, 3, 4)), (0, 2, (4, 3, 6))])
def test_reverse_sequence(dt, ba, ta, shape, rng_seed):
    rng, seed = rng_seed
    x = (rng.standard_normal(shape) * 10).astype(dt)
    lens = rng.integers(0, shape[ta] + 1, shape[ba])
    lens[0] = shape[ta]
    np.testing.assert_array_equal(T.reverse_sequence(x, lens, ba, ta), _rev_ref(x, lens, ba, ta),
                                  err_msg=f"seed={seed}")
    big = np.zeros(shape[:-1] + (2 * shape[-1],), x.dtype)
    big[..., ::2] = x
    v = big[..., ::2]                                         # a strided (non-contiguous) view
    np.testing.assert_array_equal(T.reverse_sequence(v, lens, ba, ta), _rev_ref(x, lens, ba, ta))


def test_reverse_sequence_errors():
    x = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match="sequence_lens"):
        T.reverse_sequence(x, np.array([1, 2]), 1, 0)
    with pytest.raises(ValueError, match="sequence_lens"):
        T.reverse_sequence(x, np.array([1, 2, 5]), 1, 0)
    with pytest.raises(TypeError, match="sequence_lens"):
        T.reverse_sequence(x, np.array([1.0, 2, 3]), 1, 0)
    with pytest.raises(ValueError, match="differ"):
        T.reverse_sequence(x, np.array([1, 2, 3]), 1, 1)
    assert T.reverse_sequence(np.zeros((0, 3), np.float32), np.zeros(3, np.int64)).shape == (0, 3)
