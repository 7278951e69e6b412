"""Composed torch-style ops (tl/ops/activation.py, pointwise.py, reduce_composed.py,
linalg.py, loss.py, layout.py, norm.py, nn.py) against
PyTorch eager on fresh random inputs with odd sizes, NaN/inf/-0.0 and empty tensors.
Tolerances: rtol 2e-6 / atol 1e-6 for float32 elementwise compositions (one rounding per
primitive, a few ulp apart from torch's fused loops); 1e-5 for reductions and losses (float32
sums in a different order); exact for selections and copies."""
import numpy as np
import pytest

import tl.ops as ops

torch = pytest.importorskip("torch", reason="checked against PyTorch (the test extra)")
F = torch.nn.functional
T = torch.from_numpy


def _x(rng, shape, special=True):
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    if special and x.size >= 4:
        x.reshape(-1)[:4] = [np.nan, np.inf, -np.inf, -0.0]
    return x


UNARY = {
    "relu6": (ops.relu6, F.relu6), "hardtanh": (lambda x: ops.hardtanh(x, -2.0, 1.5), lambda t: F.hardtanh(t, -2.0, 1.5)),
    "log_sigmoid": (ops.log_sigmoid, F.logsigmoid), "tanhshrink": (ops.tanhshrink, F.tanhshrink),
    "softshrink": (lambda x: ops.softshrink(x, 0.7), lambda t: F.softshrink(t, 0.7)),
    "hardshrink": (lambda x: ops.hardshrink(x, 0.7), lambda t: F.hardshrink(t, 0.7)),
    "square": (ops.square, torch.square), "isfinite": (ops.isfinite, torch.isfinite),
    "nan_to_num": (lambda x: ops.nan_to_num(x, 1.5), lambda t: torch.nan_to_num(t, 1.5)),
    "nan_to_num_inf": (lambda x: ops.nan_to_num(x, 0.0, 7.0, -8.0), lambda t: torch.nan_to_num(t, 0.0, 7.0, -8.0)),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("shape", [(37,), (3, 17), (0, 5)])
def test_unary_compositions(rng_seed, name, shape):
    rng, seed = rng_seed
    x = _x(rng, shape)
    ours, ref = UNARY[name]
    got, want = ours(x), ref(T(x)).numpy()
    assert got.shape == want.shape and got.dtype == want.dtype, name
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=f"{name} seed {seed}")


def test_glu_softmin_lerp_addc_masked_fill(rng_seed):
    rng, seed = rng_seed
    x = _x(rng, (4, 10, 3), special=False)
    np.testing.assert_allclose(ops.glu(x, 1), F.glu(T(x), 1).numpy(), rtol=2e-6, atol=1e-7)
    np.testing.assert_allclose(ops.softmin(x, 1), F.softmin(T(x), 1).numpy(), rtol=1e-5, atol=1e-7)
    a, b = _x(rng, (5, 7), False), _x(rng, (5, 7), False)
    w = rng.uniform(-0.5, 1.5, (5, 7)).astype(np.float32)
    w[0, :3] = [0.0, 1.0, 0.5]
    np.testing.assert_allclose(ops.lerp(a, b, w), torch.lerp(T(a), T(b), T(w)).numpy(), rtol=2e-6, atol=1e-6)
    assert np.array_equal(ops.lerp(a, b, np.float32(1.0)), b)          # exact at the ends
    c = rng.uniform(0.5, 2.0, (5, 7)).astype(np.float32)
    np.testing.assert_allclose(ops.addcmul(a, b, c, 0.3), torch.addcmul(T(a), T(b), T(c), value=0.3).numpy(),
                               rtol=2e-6, atol=1e-6)
    np.testing.assert_allclose(ops.addcdiv(a, b, c, 0.3), torch.addcdiv(T(a), T(b), T(c), value=0.3).numpy(),
                               rtol=2e-6, atol=1e-6)
    m = rng.random((5, 1)) < 0.5
    np.testing.assert_array_equal(ops.masked_fill(a, m, -1.0), T(a).masked_fill(T(m), -1.0).numpy())
    with pytest.raises(ValueError, match="odd size"):
        ops.glu(x, 2)
    with pytest.raises(TypeError, match="mask"):
        ops.masked_fill(a, m.astype(np.int32), 0.0)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_std_count_all_any(rng_seed, axis):
    rng, seed = rng_seed
    x = _x(rng, (6, 9), special=False)
    x[1, 2] = 0.0
    np.testing.assert_allclose(ops.std(x, axis, 1), np.std(x.astype(np.float64), axis=axis, ddof=1), rtol=1e-5)
    s, m = ops.std_mean(x, axis)
    np.testing.assert_allclose(s, np.std(x.astype(np.float64), axis=axis), rtol=1e-5)
    np.testing.assert_allclose(m, np.mean(x.astype(np.float64), axis=axis), rtol=1e-5, atol=1e-6)
    x[3] = 0.0
    np.testing.assert_array_equal(ops.count_nonzero(x, axis), np.count_nonzero(x, axis=axis))
    b = rng.random((6, 9)) < 0.8
    b[0] = True
    np.testing.assert_array_equal(ops.reduce_all(b, axis), np.all(b, axis=axis))
    np.testing.assert_array_equal(ops.reduce_any(x, axis), np.any(x, axis=axis))
    assert ops.reduce_all(np.zeros((0, 3), bool)) and not ops.reduce_any(np.zeros((0, 3), bool))


def test_linalg(rng_seed):
    rng, seed = rng_seed
    a, b = _x(rng, (13,), False), _x(rng, (9,), False)
    np.testing.assert_allclose(ops.outer(a, b), np.outer(a, b), rtol=1e-6)
    c = _x(rng, (13,), False)
    np.testing.assert_allclose(ops.dot(a, c), np.dot(a.astype(np.float64), c), rtol=1e-5, atol=1e-5)
    m = _x(rng, (7, 13), False)
    np.testing.assert_allclose(ops.mv(m, a), m.astype(np.float64) @ a, rtol=1e-5, atol=1e-4)
    i, m1, m2 = _x(rng, (5, 6), False), _x(rng, (5, 11), False), _x(rng, (11, 6), False)
    np.testing.assert_allclose(ops.addmm(i, m1, m2, 0.5, 2.0),
                               torch.addmm(T(i), T(m1), T(m2), beta=0.5, alpha=2.0).numpy(), rtol=1e-5, atol=1e-4)
    sq = _x(rng, (6, 8), False)
    for off in (0, 2, -3):
        np.testing.assert_array_equal(ops.diagonal(sq, off), np.diagonal(sq, off))
        np.testing.assert_allclose(ops.trace(sq, off), np.trace(sq.astype(np.float64), off), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="lengths differ"):
        ops.dot(a, b)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_pointwise_losses(rng_seed, reduction):
    rng, seed = rng_seed
    x, y = _x(rng, (4, 7, 3), False), _x(rng, (4, 7, 3), False)
    tx, ty = T(x), T(y)
    pairs = [
        (ops.mse_loss(x, y, reduction), F.mse_loss(tx, ty, reduction=reduction)),
        (ops.l1_loss(x, y, reduction), F.l1_loss(tx, ty, reduction=reduction)),
        (ops.smooth_l1_loss(x, y, reduction, 1.3), F.smooth_l1_loss(tx, ty, reduction=reduction, beta=1.3)),
        (ops.smooth_l1_loss(x, y, reduction, 0.0), F.smooth_l1_loss(tx, ty, reduction=reduction, beta=0.0)),
        (ops.huber_loss(x, y, reduction, 0.8), F.huber_loss(tx, ty, reduction=reduction, delta=0.8)),
    ]
    p = rng.uniform(0, 1, (4, 7, 3)).astype(np.float32)
    p.reshape(-1)[:2] = [0.0, 1.0]                      # log(0) clamps at -100 like torch
    t = (rng.random((4, 7, 3)) < 0.5).astype(np.float32)
    w = rng.uniform(0.5, 2, (7, 3)).astype(np.float32)
    pw = rng.uniform(0.5, 3, (3,)).astype(np.float32)
    pairs += [
        (ops.binary_cross_entropy(p, t, w, reduction), F.binary_cross_entropy(T(p), T(t), T(w), reduction=reduction)),
        (ops.binary_cross_entropy_with_logits(x, t, w, reduction, pw),
         F.binary_cross_entropy_with_logits(tx, T(t), T(w), reduction=reduction, pos_weight=T(pw))),
    ]
    lq = np.log(rng.dirichlet(np.ones(3), (4, 7))).astype(np.float32)
    q = rng.dirichlet(np.ones(3), (4, 7)).astype(np.float32)
    q[0, 0, 0] = 0.0
    pairs += [(ops.kl_div(lq, q, reduction), F.kl_div(T(lq), T(q), reduction=reduction)),
              (ops.kl_div(lq, np.log(q + 1e-3).astype(np.float32), reduction, True),
               F.kl_div(T(lq), T(np.log(q + 1e-3).astype(np.float32)), reduction=reduction, log_target=True))]
    for k, (got, want) in enumerate(pairs):
        want = want.numpy()
        assert np.shape(got) == want.shape, k
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"loss {k} seed {seed}")
    np.testing.assert_allclose(ops.kl_div(lq, q, "batchmean"), F.kl_div(T(lq), T(q), reduction="batchmean").numpy(),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="probabilities"):
        ops.binary_cross_entropy(p + 1, t)
    with pytest.raises(ValueError, match="target shape"):
        ops.mse_loss(x, y[:1])


def test_shape_ops(rng_seed):
    rng, seed = rng_seed
    x = _x(rng, (2, 3, 1, 5), False)
    t = T(x)
    assert np.array_equal(ops.flatten(x, 1, 2), torch.flatten(t, 1, 2).numpy())
    assert ops.flatten(np.zeros((2, 0, 3), np.float32), 1).shape == (2, 0)
    assert np.array_equal(ops.squeeze(x), t.squeeze().numpy())
    assert ops.squeeze(x, 2).shape == (2, 3, 5)
    with pytest.raises(ValueError, match="not 1"):
        ops.squeeze(x, 1)
    assert ops.unsqueeze(x, -1).shape == (2, 3, 1, 5, 1)
    for s, d in ((0, -1), ([0, 1], [3, 2]), (3, 0)):
        assert np.array_equal(ops.movedim(x, s, d), torch.movedim(t, s, d).numpy())
    assert np.array_equal(ops.narrow(x, 3, 1, 3), torch.narrow(t, 3, 1, 3).numpy())
    for n in (1, 2, 4, 7):
        got, want = ops.chunk(x, n, 3), torch.chunk(t, n, 3)
        assert len(got) == len(want) and all(np.array_equal(g, w.numpy()) for g, w in zip(got, want))
    y = _x(rng, (2, 18, 3, 4), False)
    assert np.array_equal(ops.pixel_shuffle(y, 3), F.pixel_shuffle(T(y), 3).numpy())
    z = _x(rng, (2, 2, 6, 9), False)
    assert np.array_equal(ops.pixel_unshuffle(z, 3), F.pixel_unshuffle(T(z), 3).numpy())
    assert np.array_equal(ops.repeat_interleave(x, 3, 1), torch.repeat_interleave(t, 3, 1).numpy())


def test_vector_norms_and_pool1d(rng_seed):
    rng, seed = rng_seed
    x, y = _x(rng, (5, 8, 3), False), _x(rng, (5, 8, 3), False)
    x[0, :, 0] = 0.0
    for p in (1, 2):
        np.testing.assert_allclose(ops.normalize(x, p, 1), F.normalize(T(x), p, 1).numpy(), rtol=2e-6, atol=1e-7)
        np.testing.assert_allclose(ops.pairwise_distance(x, y, p), F.pairwise_distance(T(x), T(y), p).numpy(),
                                   rtol=1e-5)
    np.testing.assert_allclose(ops.cosine_similarity(x, y, 1), F.cosine_similarity(T(x), T(y), 1).numpy(),
                               rtol=1e-5, atol=1e-6)
    s = _x(rng, (2, 3, 23), False)
    for k, st, pd, dil, cm in ((3, None, 1, 1, False), (4, 3, 2, 2, True), (2, 1, 0, 1, False)):
        np.testing.assert_array_equal(ops.max_pool1d(s, k, st, pd, dil, cm),
                                      F.max_pool1d(T(s), k, st, pd, dil, cm).numpy())
        np.testing.assert_allclose(ops.avg_pool1d(s, k, st, min(pd, k // 2), cm),
                                   F.avg_pool1d(T(s), k, st, min(pd, k // 2), cm).numpy(), rtol=1e-6, atol=1e-7)
    assert ops.max_pool1d(s[0], 3).shape == (3, 7)


def test_trial_findings_errors_and_edge_semantics():
    """Fresh-user trial: unsupported dtypes raise TypeError (not KeyError), zero strides raise
    ValueError naming the argument, nll_loss takes unbatched (C,) input, kl_div of a negative
    target is NaN (torch's xlogy)."""
    with pytest.raises(TypeError, match="unsupported dtype float64"):
        ops.conv2d(np.zeros((1, 3, 8, 8)), np.zeros((4, 3, 3, 3)))
    with pytest.raises(TypeError, match="unsupported dtype"):
        ops.batch_norm(np.zeros((2, 3, 4)), np.zeros(3), np.ones(3))
    x = np.zeros((1, 2, 6, 6), np.float32)
    with pytest.raises(ValueError, match="stride must be positive"):
        ops.max_pool2d(x, 2, 0)
    with pytest.raises(ValueError, match="stride must be positive"):
        ops.conv2d(x, np.zeros((3, 2, 3, 3), np.float32), stride=0)
    lp = np.log(np.array([0.1, 0.2, 0.7], np.float32))
    for red in ("mean", "sum", "none"):
        got = ops.nll_loss(lp, np.int64(2), reduction=red)
        want = F.nll_loss(T(lp), torch.tensor(2), reduction=red).numpy()
        assert np.shape(got) == want.shape and np.allclose(got, want)
    q = np.array([-1.0, 0.0, 0.5], np.float32)
    z = np.zeros(3, np.float32)
    np.testing.assert_array_equal(np.isnan(ops.kl_div(z, q, "none")),
                                  np.isnan(F.kl_div(T(z), T(q), reduction="none").numpy()))
