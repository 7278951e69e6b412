"""Unary ops (relu, gelu both forms, silu, sigmoid, exp, tanh) against float64 NumPy/SciPy."""
import numpy as np
import pytest
from scipy.special import erfc

import tl.ops as ops
from ops_helpers import BF16, FLOATS, check, f64, poisoned, rand


def _gelu(x):
    return 0.5 * x * erfc(-x / np.sqrt(2.0))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def _sigmoid(x):
    return 0.5 * (1 + np.tanh(0.5 * x))


REF = {"relu": lambda x: np.maximum(x, 0), "gelu": _gelu, "silu": lambda x: x * _sigmoid(x),
       "sigmoid": _sigmoid, "exp": np.exp, "tanh": np.tanh}
# float32 rtol per op (transcendental: a few ulp; documented in ops/activation.py)
RTOL32 = {"relu": 0, "gelu": 2e-6, "silu": 2e-6, "sigmoid": 2e-6, "exp": 2e-6, "tanh": 2e-6}


def _call(name, x, **kw):
    return getattr(ops, name)(x, **kw)


@pytest.mark.parametrize("name", list(REF))
@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_unary_random(name, dt, rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (7, 301), dt, -8, 8)
    out = poisoned(x.shape, dt)
    r = _call(name, x, out=out)
    assert r is out
    rtol = RTOL32[name] if np.dtype(dt) == np.float32 else None
    with np.errstate(all="ignore"):
        ref = REF[name](f64(x))
    check(out, ref, dt, f"{name} {dt} seed={seed}", rtol=rtol,
          atol=1e-37 if np.dtype(dt) == np.float32 else None)


@pytest.mark.parametrize("name", list(REF))
def test_unary_tails_and_strides(name, rng_seed):
    rng, seed = rng_seed
    for w in range(1, 34):
        x = rand(rng, (2, w), np.float32, -5, 5)
        check(_call(name, x), REF[name](f64(x)), np.float32, f"{name} w={w} seed={seed}",
              rtol=RTOL32[name], atol=1e-37)
    base = rand(rng, (50, 40), np.float32, -5, 5)
    x = base.T[::-3, ::2]
    check(_call(name, x), REF[name](f64(x)), np.float32, f"{name} strided seed={seed}",
          rtol=RTOL32[name], atol=1e-37)


def test_gelu_c21_negative_tail():
    x = np.array([-5.5, -6.0, -10.0], np.float32)
    got = ops.gelu(x)
    ref = np.array([-1.0444e-07, -5.9195e-09, -7.6199e-23])
    np.testing.assert_allclose(f64(got), ref, rtol=1e-4)
    xs = -np.linspace(0, 13, 2001).astype(np.float32)
    check(ops.gelu(xs), _gelu(f64(xs)), np.float32, "gelu tail", rtol=2e-6, atol=1e-37)


def test_gelu_tanh_form(rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (3, 100), np.float32, -6, 6)
    # the float32 argument u = sqrt(2/pi)(x + 0.044715x^3) carries ~|u| ulp of absolute error,
    # which exp(-2|u|) turns into relative error: ~25 ulp of 1 at x = -6
    check(ops.gelu(x, approximate="tanh"), _gelu_tanh(f64(x)), np.float32, f"gelu tanh seed={seed}",
          rtol=1.5e-5, atol=1e-30)
    with pytest.raises(ValueError, match="approximate"):
        ops.gelu(x, approximate="erf")


def test_unary_specials():
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, 80.0, -80.0], np.float32)
    assert np.isnan(ops.relu(x)[0]) and ops.relu(x)[1] == np.inf and ops.relu(x)[2] == 0
    e = ops.exp(x)
    np.testing.assert_array_equal(e[:5], [np.nan, np.inf, 0, 1, 1])
    t = ops.tanh(x)
    np.testing.assert_array_equal(t[:3], [np.nan, 1, -1])
    s = ops.sigmoid(x)
    np.testing.assert_array_equal(s[:3], [np.nan, 1, 0])
    g = ops.gelu(x)
    assert np.isnan(g[0]) and g[1] == np.inf and g[2] == 0 and g[3] == 0
    assert ops.silu(np.array([np.inf], np.float32))[0] == np.inf


def test_unary_empty_and_errors():
    assert ops.exp(np.zeros((2, 0, 3), np.float32)).shape == (2, 0, 3)
    with pytest.raises(TypeError, match="'x'"):
        ops.relu(np.ones(3, np.int32))


def test_tanh_signed_zero():
    t = ops.tanh(np.array([-0.0, 0.0], np.float32))
    assert np.signbit(t[0]) and not np.signbit(t[1]), t
