"""add/sub/mul/div against float64 NumPy: broadcasting, tails, strides, specials, out=."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16, FLOATS, check, f64, poisoned, rand

BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def _ref(name, a, b):
    with np.errstate(all="ignore"):
        return BINARY[name](f64(a), f64(b))


def _atol(dt):
    return 1e-37 if np.dtype(dt) == np.float32 else None


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_binary_random_broadcast(name, dt, rng_seed):
    rng, seed = rng_seed
    a = rand(rng, (3, 37, 45), dt)
    b = rand(rng, (37, 1), dt, 0.5, 3.0)
    got = getattr(ops, name)(a, b)
    assert got.dtype == np.dtype(dt) and got.shape == (3, 37, 45)
    check(got, _ref(name, a, b), dt, f"{name} {dt} seed={seed}", atol=_atol(dt))


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_tails(name, rng_seed):
    rng, seed = rng_seed
    for w in range(1, 2 * 16 + 2):
        a = rand(rng, (w,), np.float32)
        b = rand(rng, (w,), np.float32, 0.5, 2.0)
        check(getattr(ops, name)(a, b), _ref(name, a, b), np.float32, f"{name} w={w} seed={seed}",
              atol=1e-37)
    a = rand(rng, (5, 257), np.float32)
    b = rand(rng, (5, 257), np.float32, 0.5, 2.0)
    check(getattr(ops, name)(a, b), _ref(name, a, b), np.float32, f"{name} 5x257 seed={seed}", atol=1e-37)


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_strided_views_and_out(name, rng_seed):
    rng, seed = rng_seed
    base = rand(rng, (40, 30), np.float32)
    other = rand(rng, (30, 40), np.float32, 0.5, 2.0)
    a = base[::-2, 1::3]                     # negative and non-unit strides
    b = other.T[::-2, 1::3]                  # transposed view
    out_base = poisoned((20, 20), np.float32)
    out = out_base[:, ::2]                   # a strided out
    r = getattr(ops, name)(a, b, out=out)
    assert r is out
    check(out, _ref(name, a, b), np.float32, f"{name} strided seed={seed}", atol=1e-37)
    assert np.isnan(out_base[:, 1::2]).all(), "wrote outside out"


def test_binary_specials():
    v = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 1e-40, 3e38], np.float32)
    a, b = np.meshgrid(v, v)
    for name in BINARY:
        got = getattr(ops, name)(a, b)
        ref = _ref(name, a, b).astype(np.float32)
        np.testing.assert_array_equal(got, ref, err_msg=name)
        # sign of zero results
        z = (ref == 0)
        assert (np.signbit(got[z]) == np.signbit(ref[z])).all(), name


def test_c19_signed_zero():
    s = ops.add(np.array([-0.0], np.float32), np.array([0.0], np.float32))
    assert s[0] == 0 and not np.signbit(s[0])
    r = ops.div(np.array([1.0], np.float32), s)
    assert r[0] == np.inf


def test_binary_empty_and_scalars():
    z = np.zeros((2, 0, 3), np.float32)
    r = ops.add(z, np.float32(1))
    assert r.shape == (2, 0, 3)
    r = ops.mul(np.float32(3), np.array(2, np.float32))
    assert r.shape == () and r == 6


def test_binary_errors():
    with pytest.raises(TypeError, match="'b'"):
        ops.add(np.ones(3, np.float32), np.ones(3, np.float16))
    with pytest.raises(TypeError, match="'a'"):
        ops.add(np.ones(3, np.int32), np.ones(3, np.int32))
    with pytest.raises(ValueError, match="broadcast"):
        ops.add(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(ValueError, match="'out'"):
        ops.add(np.ones(3, np.float32), np.ones(3, np.float32), out=np.empty(4, np.float32))


@pytest.mark.parametrize("dt", [np.float16, BF16], ids=str)
def test_binary_half_specials(dt):
    a = np.array([np.nan, np.inf, -np.inf, -0.0, 65504 if dt == np.float16 else 3e38], dt)
    got = ops.add(a, a)
    ref = (f64(a) * 2).astype(np.float32).astype(dt)
    np.testing.assert_array_equal(f64(got), f64(ref))
