"""Fused loops that read/write tensors directly (tlc/emit_c/direct.py) against float64 NumPy:
in-bounds contiguous tiles take the direct path, edges / strided views / broadcasts the buffered
path; both must agree with NumPy, and nothing outside the output may be written."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import FLOATS, check, f64, poisoned, rand


@pytest.mark.parametrize("dt", FLOATS, ids=str)
@pytest.mark.parametrize("shape", [(8, 512), (9, 515), (1, 1), (4, 256), (5, 1000), (3, 257)])
def test_add_exp_edges(dt, shape, rng_seed):
    rng, seed = rng_seed
    x, y = rand(rng, shape, dt), rand(rng, shape, dt)
    check(ops.add(x, y), f64(x) + f64(y), dt, f"add {shape} seed={seed}")
    check(ops.exp(x), np.exp(f64(x)), dt, f"exp {shape} seed={seed}")


def test_strided_and_offset_views(rng_seed):
    rng, seed = rng_seed
    big = rand(rng, (20, 1100), np.float32)
    for x in (big[:, ::2], big[3:17, 5:900], big[::-1, ::-1], big[2:, 1:].T[:300]):
        y = rand(rng, x.shape, np.float32)
        check(ops.add(x, y), f64(x) + f64(y), np.float32, f"add view {x.strides} seed={seed}")
        check(ops.mul(y, x), f64(x) * f64(y), np.float32, f"mul view {x.strides} seed={seed}")


def test_output_view_leaves_rest_untouched(rng_seed):
    rng, seed = rng_seed
    x, y = rand(rng, (8, 512), np.float32), rand(rng, (8, 512), np.float32)
    base = poisoned((10, 520), np.float32)
    out = base[1:9, 4:516]
    assert ops.add(x, y, out=out) is out
    check(out, f64(x) + f64(y), np.float32, f"out view seed={seed}")
    mask = np.ones(base.shape, bool)
    mask[1:9, 4:516] = False
    assert np.isnan(base[mask]).all()


def test_broadcast_zero_stride_and_nan(rng_seed):
    rng, seed = rng_seed
    x = rand(rng, (6, 700), np.float32)
    y = rand(rng, (1, 700), np.float32)
    x[2, 300] = np.nan
    x[4, 699] = np.inf
    check(ops.add(x, y), f64(x) + f64(y), np.float32, f"broadcast seed={seed}")
    check(ops.sum(x, -1), f64(x).sum(-1), np.float32, f"sum nan seed={seed}", n=700)
