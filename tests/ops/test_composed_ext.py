"""Composed ops (tl/ops/reduce_composed.py, norm.py, activation.py, layout.py)
against float64 NumPy or torch, fresh random inputs, odd sizes, NaN/inf, empty tensors.
Tolerances: float32 sums accumulate in float32 (row_sum), so rtol 1e-5 against float64;
normalisations 2e-5 absolute on unit-scale outputs (layer_norm's float32 statistics)."""
import numpy as np
import pytest

import tl.ops as ops

torch = pytest.importorskip("torch", reason="norms are checked against PyTorch (the test extra)")
F = torch.nn.functional


@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2), -1])
@pytest.mark.parametrize("keepdims", [False, True])
def test_norm_reductions(rng_seed, axis, keepdims):
    rng, seed = rng_seed
    x = rng.standard_normal((5, 7, 33)).astype(np.float32)
    d = x.astype(np.float64)
    refs = {"reduce_l1": np.abs(d).sum(axis=axis, keepdims=keepdims),
            "reduce_sum_square": (d * d).sum(axis=axis, keepdims=keepdims),
            "reduce_l2": np.sqrt((d * d).sum(axis=axis, keepdims=keepdims)),
            "logsumexp": np.log(np.exp(d).sum(axis=axis, keepdims=keepdims))}
    for name, ref in refs.items():
        got = getattr(ops, name)(x, axis, keepdims)
        assert got.shape == ref.shape, name
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6, err_msg=f"{name} seed {seed}")
    p = np.abs(x) + 0.5
    np.testing.assert_allclose(ops.reduce_log_sum(p, axis, keepdims),
                               np.log(p.astype(np.float64).sum(axis=axis, keepdims=keepdims)), rtol=1e-5)


def test_logsumexp_is_stable_and_handles_inf_nan_empty():
    x = np.array([[1000.0, 1000.0], [-np.inf, -np.inf], [np.inf, 0.0], [np.nan, 1.0], [-1000.0, -1000.0]],
                 np.float32)
    got = ops.logsumexp(x, 1)
    ref = torch.logsumexp(torch.from_numpy(x), 1).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-6)
    assert np.isnan(got[3]) and got[1] == -np.inf and got[2] == np.inf
    e = ops.logsumexp(np.zeros((2, 0, 3), np.float32), 1, True)
    assert e.shape == (2, 1, 3) and np.all(e == -np.inf)


def _group_norm64(x, g, w, b, eps):
    d = x.astype(np.float64).reshape(x.shape[0], g, -1)
    y = ((d - d.mean(-1, keepdims=True)) / np.sqrt(d.var(-1, keepdims=True) + eps)).reshape(x.shape)
    cs = (x.shape[1],) + (1,) * (x.ndim - 2)
    return y * w.reshape(cs) + b.reshape(cs)


@pytest.mark.parametrize("shape", [(2, 6, 5, 7), (3, 4, 17), (1, 8, 1, 2)])
def test_instance_and_group_norm(rng_seed, shape):
    """Against float64 NumPy (torch agrees to 2e-5 except on tiny groups: 2 values near 5, where
    its float32 statistics are off by ~1e-4; ours shift by each row's first value, so the
    differences are exact) and, on the large shapes, against torch."""
    rng, seed = rng_seed
    x = (rng.standard_normal(shape) * 3 + 5).astype(np.float32)
    c = shape[1]
    w, b = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
    tx, tw, tb = (torch.from_numpy(v) for v in (x, w, b))
    got = ops.instance_norm(x, w, b, 1e-5)
    np.testing.assert_allclose(got, _group_norm64(x, c, w, b, 1e-5), atol=2e-5, err_msg=f"seed {seed}")
    if shape[-1] > 2:
        np.testing.assert_allclose(got, F.instance_norm(tx, weight=tw, bias=tb, eps=1e-5).numpy(), atol=2e-5)
    for g in (1, 2, c):
        got = ops.group_norm(x, g, w, b, 1e-5)
        np.testing.assert_allclose(got, _group_norm64(x, g, w, b, 1e-5), atol=2e-5, err_msg=f"groups {g} seed {seed}")
        if shape[-1] > 2:
            np.testing.assert_allclose(got, F.group_norm(tx, g, tw, tb, 1e-5).numpy(), atol=2e-5)
    with pytest.raises(ValueError, match="num_groups"):
        ops.group_norm(x, 3 if c % 3 else 5, w, b)
    with pytest.raises(ValueError, match="weight"):
        ops.instance_norm(x, w[:-1], b)


def test_lp_normalize_and_mvn(rng_seed):
    rng, seed = rng_seed
    x = rng.standard_normal((3, 5, 4, 6)).astype(np.float32)
    x[0, :, 0, 0] = 0.0                                   # a zero vector along axis 1 -> 0, not NaN
    for p in (1, 2):
        got = ops.lp_normalize(x, p, 1)
        n = np.linalg.norm(x.astype(np.float64), ord=p, axis=1, keepdims=True)
        ref = np.where(n == 0, 0, x / np.where(n == 0, 1, n))
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-7, err_msg=f"p {p} seed {seed}")
    d = x.astype(np.float64)
    ref = (d - d.mean((0, 2, 3), keepdims=True)) / np.sqrt(d.var((0, 2, 3), keepdims=True))
    np.testing.assert_allclose(ops.mean_variance_normalization(x), ref, atol=2e-5)


def test_prelu_shrink_hardmax(rng_seed):
    rng, seed = rng_seed
    x = rng.standard_normal((2, 5, 3, 7)).astype(np.float32)
    x[0, 0, 0, :3] = [np.nan, -0.0, np.inf]
    s = rng.uniform(0.1, 0.5, 5).astype(np.float32)
    ref = F.prelu(torch.from_numpy(x), torch.from_numpy(s)).numpy()
    np.testing.assert_array_equal(ops.prelu(x, s), ref)
    for lam, bias in ((0.5, 0.0), (0.7, 0.7)):
        ref = np.where(x < -lam, x + bias, np.where(x > lam, x - bias, 0)).astype(np.float32)
        ref = np.where(np.isnan(x), x, ref)           # NaN stays NaN (torch; ONNX's reference gives 0)
        np.testing.assert_array_equal(ops.shrink(x, lam, bias), ref)
    y = rng.standard_normal((4, 9, 5)).astype(np.float32)
    y[1, 3, :] = y[1, 2, :]                               # ties: the first index wins
    for ax in (0, 1, -1):
        got = ops.hardmax(y, ax)
        ref = np.zeros_like(y)
        np.put_along_axis(ref, np.expand_dims(np.argmax(y, ax), ax), 1, ax)
        np.testing.assert_array_equal(got, ref)
    assert ops.hardmax(np.zeros((0, 3), np.float32)).shape == (0, 3)


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
def test_depth_space_roundtrip(rng_seed, mode):
    rng, seed = rng_seed
    x = rng.standard_normal((2, 12, 3, 5)).astype(np.float32)
    y = ops.depth_to_space(x, 2, mode)
    if mode == "CRD":
        np.testing.assert_array_equal(y, F.pixel_shuffle(torch.from_numpy(x), 2).numpy())
    else:
        ref = np.transpose(x.reshape(2, 2, 2, 3, 3, 5), (0, 3, 4, 1, 5, 2)).reshape(2, 3, 6, 10)
        np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(ops.space_to_depth(y, 2, mode), x)
    with pytest.raises(ValueError, match="blocksize"):
        ops.depth_to_space(x, 5)


def test_eye():
    for n, m, k in ((4, 4, 0), (3, 5, 1), (5, 3, -2), (0, 3, 0)):
        np.testing.assert_array_equal(ops.eye(n, m, k), np.eye(n, m, k, dtype=np.float32))
    np.testing.assert_array_equal(ops.eye(3, dtype=np.int32), np.eye(3, dtype=np.int32))
