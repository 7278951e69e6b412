"""cross_entropy against torch.nn.functional.cross_entropy (ignore_index, label smoothing,
class weights, probability targets, reductions), and sort / argsort / topk against NumPy's
stable sort (ONNX TopK: best first, ties by lower index, NaN largest)."""
import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16

torch = pytest.importorskip("torch", reason="cross_entropy is checked against PyTorch (the test extra)")
F = torch.nn.functional


def _ce_ref(x, t, **kw):
    kw = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    return F.cross_entropy(torch.from_numpy(x.astype(np.float32)), torch.from_numpy(t), **kw).numpy()


@pytest.mark.parametrize("shape", [(6, 7), (3, 4, 2, 3), (5,)])
@pytest.mark.parametrize("ls", [0.0, 0.2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_class_indices(rng_seed, shape, ls, reduction, weighted):
    rng, seed = rng_seed
    c = shape[0] if len(shape) == 1 else shape[1]
    x = rng.standard_normal(shape).astype(np.float32) * 3
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = rng.integers(0, c, tshape).astype(np.int64)
    if t.ndim:
        t.reshape(-1)[1] = -100                    # one ignored target
    kw = dict(label_smoothing=ls, reduction=reduction)
    if weighted:
        kw["weight"] = rng.uniform(0.5, 2.0, c).astype(np.float32)
    got = np.asarray(ops.cross_entropy(x, t, **kw), np.float64)
    ref = _ce_ref(x, t, **kw)
    assert got.shape == ref.shape, f"seed {seed}"
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5, err_msg=f"seed {seed}")


def test_cross_entropy_custom_ignore_and_all_ignored(rng_seed):
    rng, seed = rng_seed
    x = rng.standard_normal((4, 5)).astype(np.float32)
    t = np.array([3, 3, 1, 0])
    for ls in (0.0, 0.1):
        got = ops.cross_entropy(x, t, ignore_index=3, label_smoothing=ls)
        np.testing.assert_allclose(got, _ce_ref(x, t, ignore_index=3, label_smoothing=ls), rtol=1e-5,
                                   err_msg=f"seed {seed}")
    assert np.isnan(ops.cross_entropy(x, np.full(4, -100)))   # torch: 0 / 0


@pytest.mark.parametrize("ls", [0.0, 0.3])
def test_cross_entropy_probability_targets(rng_seed, ls):
    rng, seed = rng_seed
    x = rng.standard_normal((4, 6)).astype(np.float32)
    p = rng.dirichlet(np.ones(6), 4).astype(np.float32)
    w = rng.uniform(0.5, 2.0, 6).astype(np.float32)
    for red in ("mean", "sum", "none"):
        got = ops.cross_entropy(x, p, label_smoothing=ls, reduction=red, weight=w)
        np.testing.assert_allclose(got, _ce_ref(x, p, label_smoothing=ls, reduction=red, weight=w),
                                   rtol=1e-5, atol=1e-6, err_msg=f"seed {seed}")


@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_cross_entropy_low_precision(rng_seed, dtype):
    rng, seed = rng_seed
    x = rng.standard_normal((8, 10)).astype(dtype)
    t = rng.integers(0, 10, 8)
    got = float(ops.cross_entropy(x, t, label_smoothing=0.1))
    ref = float(_ce_ref(x, t, label_smoothing=0.1))
    assert abs(got - ref) <= (2e-3 if dtype == np.float16 else 2e-2) * abs(ref), f"seed {seed}"


def test_cross_entropy_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError):
        ops.cross_entropy(x, np.array([0, 3]))
    with pytest.raises(ValueError):
        ops.cross_entropy(x, np.array([0, 1, 2]))
    with pytest.raises(ValueError):
        ops.cross_entropy(x, np.array([0, 1]), reduction="avg")


# ----------------------------------------------------------------------------- sort / topk
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16, np.int32, np.int64])
@pytest.mark.parametrize("shape,axis", [((3, 70), 1), ((130,), 0), ((5, 4, 9), 1), ((2, 1), 1),
                                        ((3, 700), 1), ((1001,), 0), ((2, 257, 3), 1)])
def test_sort_matches_stable_numpy(rng_seed, dtype, shape, axis):
    rng, seed = rng_seed
    x = rng.integers(-4, 5, shape).astype(dtype)   # many ties
    if np.dtype(dtype).kind == "f" or dtype is BF16:
        x.reshape(-1)[::7] = np.nan
    xf = x.astype(np.float64)
    for desc in (False, True):
        v, i = ops.sort(x, axis, descending=desc)
        # stable descending with NaN first: sort the negated keys (NaN stays last -> flip it)
        key = np.where(np.isnan(xf), -np.inf, -xf) if desc else xf
        ri = np.argsort(key, axis=axis, kind="stable")
        assert i.dtype == np.int64 and np.array_equal(i, ri), f"seed {seed} desc={desc}"
        assert np.array_equal(v.astype(np.float64), np.take_along_axis(xf, ri, axis), equal_nan=True), f"seed {seed}"
        assert np.array_equal(ops.argsort(x, axis, descending=desc), ri)


@pytest.mark.parametrize("n", [200, 257, 4099])
@pytest.mark.parametrize("desc", [False, True])
def test_sort_long_rows_signed_zero_inf_nan(rng_seed, n, desc):
    """Rows past the merge-sort threshold (256): -0.0 ties 0.0 (stable), +-inf, NaN largest."""
    rng, seed = rng_seed
    x = rng.choice(np.array([-0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, np.nan], np.float32), (2, n))
    x[1] = rng.standard_normal(n).astype(np.float32)
    v, i = ops.sort(x, -1, descending=desc)
    if desc:   # stable descending, NaN first: argsort of a key that puts NaN before +inf
        order = np.lexsort((np.arange(n)[None].repeat(2, 0), np.where(np.isnan(x), -np.inf, -x), np.isnan(x) * -1), axis=-1)
    else:
        order = np.argsort(x, axis=-1, kind="stable")
    assert np.array_equal(i, order), f"seed {seed}"
    assert np.array_equal(v, np.take_along_axis(x, order, -1), equal_nan=True)
    assert np.array_equal(np.signbit(v), np.signbit(np.take_along_axis(x, order, -1)))
    tv, ti = ops.topk(x, 5, largest=desc)
    assert np.array_equal(ti, order[:, :5]), f"seed {seed}"


@pytest.mark.parametrize("largest", [True, False])
def test_topk_ties_lower_index_first(rng_seed, largest):
    rng, seed = rng_seed
    x = rng.integers(0, 6, (4, 200)).astype(np.float32)
    v, i = ops.topk(x, 7, axis=-1, largest=largest)
    key = -x if largest else x
    ri = np.argsort(key, axis=-1, kind="stable")[:, :7]
    assert np.array_equal(i, ri) and np.array_equal(v, np.take_along_axis(x, ri, -1)), f"seed {seed}"
    v0, i0 = ops.topk(x, 0)
    assert v0.shape == (4, 0) and i0.shape == (4, 0)
    with pytest.raises(ValueError):
        ops.topk(x, 201)


@pytest.mark.parametrize("shape", [(6, 7), (3, 4, 2, 3), (2, 5, 0)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_against_torch(rng_seed, shape, reduction, weighted):
    """nll_loss on log-probabilities (with an ignored target) against torch's nll_loss; float32
    sums, rtol 1e-5. The empty case: 'mean' of nothing is NaN, like torch."""
    rng, seed = rng_seed
    c = shape[1]
    x = np.log(rng.dirichlet(np.ones(c), shape[:1] + shape[2:])).astype(np.float32)
    x = np.ascontiguousarray(np.moveaxis(x, -1, 1))
    t = rng.integers(0, c, (shape[0],) + shape[2:]).astype(np.int64)
    if t.size > 1:
        t.reshape(-1)[1] = -100
    kw = dict(reduction=reduction)
    if weighted:
        kw["weight"] = rng.uniform(0.5, 2.0, c).astype(np.float32)
    got = np.asarray(ops.nll_loss(x, t, **kw), np.float64)
    tkw = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    ref = F.nll_loss(torch.from_numpy(x), torch.from_numpy(t), **tkw).numpy()
    assert got.shape == ref.shape, f"seed {seed}"
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6, err_msg=f"seed {seed}")


def test_nll_loss_errors_name_the_argument():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match="target class out of range"):
        ops.nll_loss(x, np.array([0, 4, 1]))
    with pytest.raises(ValueError, match="target shape"):
        ops.nll_loss(x, np.array([0, 1]))
    with pytest.raises(ValueError, match="reduction"):
        ops.nll_loss(x, np.array([0, 1, 2]), reduction="avg")
    with pytest.raises(ValueError, match="weight"):
        ops.nll_loss(x, np.array([0, 1, 2]), weight=np.ones(3, np.float32))
    # ignore_index=None ignores nothing; -100 then is out of range
    with pytest.raises(ValueError, match="out of range"):
        ops.nll_loss(x, np.array([0, -100, 2]), ignore_index=None)
