"""Registry-driven checks of the tier-1 tl.ops against float64 NumPy / PyTorch (the semantics
cases of these ops run from their data in test_semantics_cases.py)."""
import numpy as np
import pytest

import tl.ops as T
from tl.ops._registry import registry
from ops_helpers import BF16, check, f64, rand

UNARY = [o for o in registry().values() if o.category == "activation/math" and o.ref is not None]


@pytest.mark.parametrize("op", UNARY, ids=lambda o: o.name)
@pytest.mark.parametrize("dt", [np.float32, np.float16, BF16], ids=str)
def test_unary_against_numpy(op, dt, rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (5, 37), dt)
    if op.name in ("sqrt", "rsqrt", "log"):
        x = rand(rng, (5, 37), dt, 0.1, 4.0)
    got = getattr(T, op.name)(x)
    rtol, atol = op.tol[np.dtype(dt).name]
    with np.errstate(all="ignore"):
        ref = op.ref(f64(x))
    check(got, ref, dt, f"{op.name} {dt} seed={seed}", rtol=rtol, atol=atol)


BIN = ["pow", "maximum", "minimum", "floor_divide", "remainder", "fmod"]


@pytest.mark.parametrize("name", BIN)
def test_binary_float(name, rng_seed):
    rng, seed = rng_seed
    a = rand(rng, (4, 33), np.float32, 0.1 if name == "pow" else -5, 5)
    b = rand(rng, (33,), np.float32, 0.5, 3)
    got = getattr(T, name)(a, b)
    check(got, registry()[name].ref(f64(a), f64(b)), np.float32, f"{name} seed={seed}", rtol=2e-5, atol=1e-5)


def test_data_movement(rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (3, 5, 7), np.float32)
    np.testing.assert_array_equal(T.permute(x, (2, 0, 1)), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(T.cat([x, x[:, :2]], 1), np.concatenate([x, x[:, :2]], 1))
    np.testing.assert_array_equal(T.tile(x, (2, 1, 3)), np.tile(x, (2, 1, 3)))
    for mode in ("constant", "reflect", "edge"):
        np.testing.assert_array_equal(T.pad(x, [0, 1, 2, 1, 0, 3], mode),
                                      np.pad(x, [(0, 1), (1, 0), (2, 3)], mode))
    idx = rng.integers(-5, 5, (2, 3))
    np.testing.assert_array_equal(T.gather(x, idx, 1), np.take(x, idx, 1))
    gi = rng.integers(0, 5, (3, 4, 7))
    np.testing.assert_array_equal(T.gather_elements(x, gi, 1), np.take_along_axis(x, gi, 1))
    np.testing.assert_array_equal(T.triu(x, 1), np.triu(x, 1))
    np.testing.assert_array_equal(T.slice(x, [4, 0], [-6, 7], [1, 2], [-2, 3]), x[:, 4:-6:-2, 0:7:3])
    np.testing.assert_array_equal(T.one_hot(np.array([1, 3, -1]), 4), np.eye(4, dtype=np.float32)[[1, 3, 3]])
    d = np.zeros((3, 5), np.float32)
    i = np.array([[1, 0, 2, 4, 4]] * 3)
    u = np.ones((3, 5), np.float32)
    ref = d.copy()
    np.add.at(ref, (np.arange(3)[:, None], i), u)
    np.testing.assert_array_equal(T.scatter_add(d, i, u, axis=1), ref)


def test_reductions(rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (3, 5, 7), np.float32)
    check(T.reduce_sum(x, (0, 2), keepdims=True), f64(x).sum((0, 2), keepdims=True), np.float32, f"seed={seed}", n=21)
    check(T.var(x, (0, 2)), f64(x).var((0, 2)), np.float32, f"seed={seed}", n=21)
    check(T.prod(x, 1), f64(x).prod(1), np.float32, f"seed={seed}", rtol=1e-5)
    check(T.cumsum(x, 1), np.cumsum(f64(x), 1), np.float32, f"seed={seed}", n=5)
    np.testing.assert_array_equal(T.argmin(x, 1), x.argmin(1))
    np.testing.assert_array_equal(T.amin(x, 2), x.min(2))
