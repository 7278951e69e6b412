"""float16/bfloat16 ops compute in float32 and round once (docs/design.md, "Tile storage";
tl/ops/_opmath.py for composites): results near zero made from large cancelling terms must be
within half an ulp of the half dtype (plus the float32 steps' own error, 2^-23 of the terms'
magnitude per rounding, which is 2^-13 of a float16 ulp of those terms) of a float64
reference. A half-precision intermediate (the bug of issue 13: batch norm's running stats
rounded to float16 before the scale and shift were folded) costs up to an ulp of the
*terms*, hundreds of ulps of such a result.
"""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16

HALF = [np.float16, BF16]


def ulp(v, dt):
    """The spacing of dtype ``dt`` (float16 or bfloat16) at |v| (float64 array)."""
    bits, emin = (10, -14) if np.dtype(dt) == np.float16 else (7, -126)
    e = np.maximum(np.frexp(np.abs(np.asarray(v, np.float64)))[1] - 1, emin)
    return np.ldexp(1.0, e - bits)


def assert_one_rounding(got, ref, dt, terms, steps=2, msg=""):
    """|got - ref| <= ulp(ref) / 2 (the one rounding to dt) + steps * 2^-24 * terms (float32
    steps; ``terms``: the magnitude of the summed terms, elementwise) + 1% of an ulp slack."""
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    # the rounding of a float32 value near a half-ulp tie can land either side: half an ulp of
    # the float32 result's neighbourhood, evaluated at the larger of |ref| and |got|
    tol = 0.5 * ulp(np.maximum(np.abs(ref), np.abs(got)), dt) * 1.01 + steps * 2.0 ** -24 * np.asarray(terms)
    err = np.abs(got - ref)
    bad = ~(err <= tol)
    assert not bad.any(), (f"{msg}: {bad.sum()} of {bad.size} off by more than one rounding; worst "
                           f"{(err / ulp(ref, dt))[bad].max():.1f} ulp at ref {ref[bad][np.argmax(err[bad])]}")


@pytest.mark.parametrize("dt", HALF, ids=str)
def test_batch_norm_inference_rounds_once_near_zero(rng_seed, dt):
    rng, seed = rng_seed
    c = 6
    mean = rng.uniform(50, 200, c).astype(np.float32) * rng.choice([-1, 1], c)   # large stats: beta is big
    var = rng.uniform(0.5, 4, c).astype(np.float32)
    w, b = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    # x within a few units of the mean: the output (x - mean) * alpha + b is small, beta = b - mean * alpha big
    x = (mean[None, :, None] + rng.uniform(-3, 3, (3, c, 20))).astype(dt)
    got = ops.batch_norm(x, mean, var, w, b)
    x64 = np.asarray(x, np.float64)
    alpha = w.astype(np.float64) / np.sqrt(var.astype(np.float64) + 1e-5)
    ref = (x64 - mean[None, :, None]) * alpha[None, :, None] + b[None, :, None]
    terms = np.abs(x64 * alpha[None, :, None]) + np.abs(b - mean * alpha)[None, :, None]
    assert got.dtype == np.dtype(dt)
    assert_one_rounding(got, ref, dt, terms, steps=4, msg=f"seed {seed}")


def test_batch_norm_issue_seed_3643750016():
    """The seed of issue 13 (float16, strided, relu) against float64: one rounding."""
    rng = np.random.default_rng(3643750016)
    x = rng.standard_normal((2, 6, 5, 8)).astype(np.float32)
    m, v = rng.standard_normal(6).astype(np.float32), rng.uniform(0.2, 3, 6).astype(np.float32)
    w, b = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    xs = x.astype(np.float16)[:, :, :, ::2]
    got = ops.batch_norm(xs, m, v, w, b, activation="relu")
    s = (1, 6, 1, 1)
    x64 = np.asarray(xs, np.float64)
    alpha = (w / np.sqrt(v.astype(np.float64) + 1e-5)).reshape(s)
    ref = np.maximum((x64 - m.reshape(s)) * alpha + b.reshape(s), 0)
    terms = np.abs(x64 * alpha) + np.abs(b.reshape(s) - m.reshape(s) * alpha)
    assert_one_rounding(got, ref, np.float16, terms, steps=4, msg="seed 3643750016")


@pytest.mark.parametrize("dt", HALF, ids=str)
def test_batch_norm_training_float32_statistics(rng_seed, dt):
    """Training mode: batch mean/var in float32 (never rounded to dt) feed alpha/beta; the
    running stats update in float32 and round once into their own dtype."""
    rng, seed = rng_seed
    c = 4
    x = (rng.uniform(-2, 2, (5, c, 7)) + rng.uniform(30, 90, c)[None, :, None]).astype(dt)
    rm, rv = np.zeros(c, np.float32), np.ones(c, np.float32)
    got = ops.batch_norm(x, rm, rv, training=True, momentum=0.25)
    x64 = np.asarray(x, np.float64)
    bm = x64.mean((0, 2))
    bv = x64.var((0, 2))
    alpha = 1 / np.sqrt(bv + 1e-5)
    ref = (x64 - bm[None, :, None]) * alpha[None, :, None]
    # float32 statistics: the mean's own float32 error scaled by alpha joins the terms
    terms = (np.abs(x64) + np.abs(bm)[None, :, None]) * alpha[None, :, None]
    assert_one_rounding(got, ref, dt, terms, steps=8, msg=f"seed {seed}")
    np.testing.assert_allclose(rm, 0.25 * bm, rtol=1e-6, err_msg=f"seed {seed}")
    np.testing.assert_allclose(rv, 0.75 + 0.25 * bv * 35 / 34, rtol=1e-5, err_msg=f"seed {seed}")


@pytest.mark.parametrize("dt", HALF, ids=str)
def test_composites_round_once(rng_seed, dt):
    """addcmul, lerp, group norm with a bias, linear/gemm/baddbmm with a bias near cancellation."""
    rng, seed = rng_seed
    f = lambda a: np.asarray(a, np.float64)   # noqa: E731
    t1 = rng.uniform(4, 8, (6, 33)).astype(dt)
    t2 = rng.uniform(4, 8, (6, 33)).astype(dt)
    x = (-(f(t1) * f(t2)) * 0.75 + rng.uniform(-0.1, 0.1, (6, 33))).astype(dt)
    got = ops.addcmul(x, t1, t2, 0.75)
    ref = f(x) + 0.75 * f(t1) * f(t2)
    assert_one_rounding(got, ref, dt, np.abs(f(x)) * 3, msg=f"addcmul seed {seed}")
    got = ops.lerp(x, t1, np.full((), 0.3, dt))
    w = float(np.asarray(np.full((), 0.3, dt), np.float64))
    assert_one_rounding(got, f(x) + w * (f(t1) - f(x)), dt, np.abs(f(x)) * 3 + np.abs(f(t1)), msg=f"lerp seed {seed}")

    a = rng.uniform(-1, 1, (5, 40)).astype(dt)
    wt = rng.uniform(-1, 1, (7, 40)).astype(dt)
    bias = -(f(a) @ f(wt).T)[0] + rng.uniform(-0.01, 0.01, 7)    # row 0 cancels to ~0.01
    bias = bias.astype(dt)
    prod = f(a) @ f(wt).T
    terms = np.abs(f(a)) @ np.abs(f(wt)).T * 40 / 2 + np.abs(f(bias))   # float32 dot: K * 2^-24 sum|a b|
    got = ops.linear(a, wt, bias)
    assert got.dtype == np.dtype(dt)
    assert_one_rounding(got, prod + f(bias), dt, terms, msg=f"linear seed {seed}")
    got = ops.gemm(a, wt, bias, 0.5, 2.0, trans_b=True)
    assert_one_rounding(got, 0.5 * prod + 2 * f(bias), dt, terms * 2, msg=f"gemm seed {seed}")
    got = ops.baddbmm(bias[None, None, :], a[None], wt.T[None], 2.0, 0.5)
    assert_one_rounding(got[0], 0.5 * prod + 2 * f(bias), dt, terms * 2, msg=f"baddbmm seed {seed}")

    xg = (rng.uniform(-1, 1, (2, 4, 9))).astype(dt)
    gw = rng.uniform(20, 40, 4).astype(np.float32)
    y64 = f(xg)
    y64 = (y64 - y64.mean(-1, keepdims=True)) / np.sqrt(y64.var(-1, keepdims=True) + 1e-5)
    gb = (-(y64 * gw[None, :, None])[0, :, 0] + 0.01).astype(np.float32)   # element (0, c, 0) cancels
    got = ops.instance_norm(xg, gw, gb, 1e-5)
    ref = y64 * gw[None, :, None] + gb[None, :, None]
    terms = np.abs(y64 * gw[None, :, None]) * 4 + np.abs(gb)[None, :, None]
    assert_one_rounding(got, ref, dt, terms, steps=8, msg=f"instance_norm seed {seed}")
