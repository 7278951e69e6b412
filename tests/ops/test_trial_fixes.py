"""Fresh-user trial fixes: conv2d / conv_transpose2d / pooling argument checking, CPU torch
bfloat16 tensors as tl.ops inputs (viewed without a copy), and scatter_nd / gather_nd /
reverse_sequence errors naming the op the user called.

bf16 values are checked against torch's own bf16 result or the float32 computation rounded to
bf16 (tolerance: a few bf16 ulps, 2**-7 relative, for values accumulated in float32)."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import ml_dtypes
from tl import ops
from tl._runtime import _as_array

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 3, 7, 9)).astype(np.float32)
W = RNG.standard_normal((8, 3, 3, 3)).astype(np.float32)


# ----------------------------------------------------------------------------- conv2d arguments
@pytest.mark.parametrize("kw, exc, words", [
    (dict(padding=-1), ValueError, ["padding", ">= 0"]),
    (dict(padding=(1, -2)), ValueError, ["padding", ">= 0"]),
    (dict(padding=(1, 1, 1)), ValueError, ["padding", "(top, left, bottom, right)", "length 3"]),
    (dict(padding=1.0), TypeError, ["padding", "1.0"]),
    (dict(stride=2.0), TypeError, ["stride", "2.0", "float"]),
    (dict(stride=(1, 2.0)), TypeError, ["stride"]),
    (dict(stride=(1, 1, 1)), ValueError, ["stride", "length 3"]),
    (dict(stride=0), ValueError, ["stride must be positive"]),
    (dict(dilation=2.0), TypeError, ["dilation", "2.0"]),
    (dict(dilation=(1, 0)), ValueError, ["dilation must be positive"]),
    (dict(groups=1.5), TypeError, ["groups", "1.5"]),
    (dict(groups=0), ValueError, ["groups must be positive"]),
    (dict(stride="2"), TypeError, ["stride"]),
    (dict(bias=np.zeros((8, 1), np.float32)), ValueError, ["bias", "(8,)", "(8, 1)"]),
    (dict(bias=np.zeros(7, np.float32)), ValueError, ["bias", "(8,)", "(7,)"]),
])
def test_conv2d_bad_arguments(kw, exc, words):
    with pytest.raises(exc) as e:
        ops.conv2d(X, W, **kw)
    msg = str(e.value)
    assert "tl.ops.conv2d" in msg, msg
    for w in words:
        assert w in msg, (w, msg)


def test_conv2d_weight_rank_and_dtypes():
    with pytest.raises(ValueError, match=r"conv2d: weight must be 4-D \(Co, C / groups, KH, KW\)"):
        ops.conv2d(X, W[0])
    with pytest.raises(ValueError, match=r"conv2d: weight must be 4-D"):
        ops.conv2d(X, W[0], padding="same")
    with pytest.raises(TypeError, match=r"'x' has dtype float16 but 'weight' has dtype float32"):
        ops.conv2d(X.astype(np.float16), W)
    with pytest.raises(TypeError, match=r"'x' has dtype bfloat16 but 'weight' has dtype float32"):
        ops.conv2d(X.astype(ml_dtypes.bfloat16), W)
    with pytest.raises(TypeError, match=r"'weight' has unsupported dtype float64"):
        ops.conv2d(X, W.astype(np.float64))


def test_conv2d_valid_arguments_still_match_torch():
    """Accepted forms (int, 1-tuple, pair, 4-tuple, list, NumPy ints) give torch's result."""
    b = RNG.standard_normal(8).astype(np.float32)
    ref = F.conv2d(torch.from_numpy(X), torch.from_numpy(W), torch.from_numpy(b), stride=(2, 1),
                   padding=(1, 2), dilation=(1, 2)).numpy()
    for kw in (dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2)),
               dict(stride=[np.int64(2), 1], padding=(1, 2, 1, 2), dilation=[1, np.int32(2)])):
        got = ops.conv2d(X, W, b, **kw)
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
    ref1 = F.conv2d(torch.from_numpy(X), torch.from_numpy(W), stride=2, padding=1).numpy()
    np.testing.assert_allclose(ops.conv2d(X, W, stride=(2,), padding=np.int64(1)), ref1, rtol=1e-4, atol=1e-4)


# ----------------------------------------------------------------------------- conv_transpose2d, pooling
def test_conv_transpose2d_bad_arguments():
    wt = RNG.standard_normal((3, 4, 3, 3)).astype(np.float32)
    cases = [
        (dict(stride=2.0), TypeError, "stride"),
        (dict(dilation=(1, 1.5)), TypeError, "dilation"),
        (dict(groups=2.0), TypeError, "groups"),
        (dict(padding=(1, 1, 1)), ValueError, "padding"),
        (dict(output_padding=-1), ValueError, "output_padding"),
        (dict(output_padding=1), ValueError, "output_padding"),            # >= stride 1 and dilation 1
        (dict(bias=np.zeros((4, 1), np.float32)), ValueError, "bias"),
        (dict(bias=np.zeros(3, np.float32)), ValueError, "bias"),
    ]
    for kw, exc, word in cases:
        with pytest.raises(exc) as e:
            ops.conv_transpose2d(X, wt, **kw)
        assert "tl.ops.conv_transpose2d" in str(e.value) and word in str(e.value), (kw, str(e.value))
    with pytest.raises(ValueError, match=r"conv_transpose2d: weight must be 4-D \(C, Co / groups"):
        ops.conv_transpose2d(X, wt[0])
    with pytest.raises(ValueError, match=r"conv_transpose2d: channels 3 / weight \(5, 4, 3, 3\)"):
        ops.conv_transpose2d(X, np.zeros((5, 4, 3, 3), np.float32))
    with pytest.raises(TypeError, match=r"'x' has dtype float16 but 'weight' has dtype float32"):
        ops.conv_transpose2d(X.astype(np.float16), wt)
    # valid output_padding (< stride) still matches torch
    b = RNG.standard_normal(4).astype(np.float32)
    got = ops.conv_transpose2d(X, wt, b, stride=2, padding=1, output_padding=1)
    ref = F.conv_transpose2d(torch.from_numpy(X), torch.from_numpy(wt), torch.from_numpy(b), stride=2,
                             padding=1, output_padding=1).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("op", ["max_pool2d", "avg_pool2d"])
def test_pool_bad_arguments(op):
    f = getattr(ops, op)
    cases = [
        ((2,), dict(padding=-1), ValueError, "padding"),
        ((2,), dict(padding=(1, 1, 1)), ValueError, "padding"),
        ((2.0,), {}, TypeError, "kernel_size"),
        ((2,), dict(stride=1.5), TypeError, "stride"),
        ((2,), dict(stride=0), ValueError, "stride must be positive"),
        ((2,), dict(dilation=2.0), TypeError, "dilation"),
        ((0,), {}, ValueError, "kernel_size must be positive"),
    ]
    for args, kw, exc, word in cases:
        with pytest.raises(exc) as e:
            f(X, *args, **kw)
        assert f"tl.ops.{op}" in str(e.value) and word in str(e.value), (args, kw, str(e.value))
    got = f(X, (3, 2), (2, 1), (1, 0))
    ref = getattr(F, op)(torch.from_numpy(X), (3, 2), (2, 1), (1, 0)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-6)


# ----------------------------------------------------------------------------- torch bfloat16 inputs
def _bf16(shape, seed):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32)).bfloat16()


def _f32(t):
    return t.float().numpy()


def test_torch_bf16_elementwise_match_torch():
    for n in (0, 1, 37, 1000):
        a, b = _bf16((n,), n), _bf16((n,), n + 1)
        for name, ref in (("sin", torch.sin(a)), ("relu", torch.relu(a))):
            got = getattr(ops, name)(a)
            assert isinstance(got, np.ndarray) and got.dtype == ops.bfloat16 and got.shape == (n,), name
            np.testing.assert_allclose(got.astype(np.float32), _f32(ref), rtol=2 ** -7, atol=1e-6, err_msg=name)
        got = ops.add(a, b)
        np.testing.assert_array_equal(got.astype(np.float32), _f32(a + b))     # one rounding, exact


def test_torch_bf16_strided_and_special_values():
    t = _bf16((6, 10), 3)
    t[0, 0], t[1, 1], t[2, 2] = float("nan"), float("inf"), -float("inf")
    v = t[:, ::3]                                    # strided view, no copy
    got = ops.relu(v)
    np.testing.assert_array_equal(got.astype(np.float32), _f32(torch.relu(v)))


def test_torch_bf16_views_share_memory_and_conv2d():
    t = _bf16((5, 3), 4)
    a = ops._np(t, "x", "test")
    assert a.dtype == ops.bfloat16 and np.shares_memory(a, t.view(torch.int16).numpy())
    k = _as_array(t, "x", "test_kernel")
    assert k.dtype == ops.bfloat16 and np.shares_memory(k, a)
    np.testing.assert_array_equal(k.astype(np.float32), _f32(t))
    x, w, b = _bf16((1, 3, 9, 8), 5), _bf16((4, 3, 3, 3), 6), _bf16((4,), 7)
    got = ops.conv2d(x, w, b, padding=1)
    assert isinstance(got, np.ndarray) and got.dtype == ops.bfloat16
    ref = F.conv2d(x.float(), w.float(), b.float(), padding=1).bfloat16().float().numpy()
    np.testing.assert_allclose(got.astype(np.float32), ref, rtol=2 ** -6, atol=2 ** -6)
    mp = ops.max_pool2d(x, 2)
    np.testing.assert_array_equal(mp.astype(np.float32), _f32(F.max_pool2d(x, 2)))


def test_torch_bf16_requires_cpu():
    class Fake:                       # a bf16 tensor-like object on another device
        dtype = torch.bfloat16
        device = torch.device("meta")

        def __dlpack__(self, *a, **k):
            raise AssertionError("not reached")
    with pytest.raises(TypeError, match=r"tl.ops.sin: argument 'x'.*meta"):
        ops.sin(Fake())


# ----------------------------------------------------------------------------- errors name the op called
def test_scatter_nd_gather_nd_errors_name_the_op():
    d = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(ValueError, match=r"tl.ops.scatter_nd: argument 'reduction' .* got 'sum'"):
        ops.scatter_nd(d, np.array([[0]]), np.ones((1, 4), np.float32), reduction="sum")
    with pytest.raises(TypeError, match=r"tl.ops.scatter_nd: reduction 'add' .*float16"):
        ops.scatter_nd(d.astype(np.float16), np.array([[0]]), np.ones((1, 4), np.float16), reduction="add")
    with pytest.raises(TypeError, match=r"tl.ops.scatter_nd: argument 'data' has dtype float64"):
        ops.scatter_nd(d.astype(np.float64), np.array([[0]]), np.ones((1, 4)))
    with pytest.raises(TypeError, match=r"tl.ops.gather_nd: argument 'data' has dtype float64"):
        ops.gather_nd(d.astype(np.float64), np.array([[0]]))
    # valid reductions still compute: rows 0 and 2 (0 twice) get the updates added
    idx = np.array([[0], [2], [0]])
    upd = RNG.standard_normal((3, 4)).astype(np.float32)
    got = ops.scatter_nd(d, idx, upd, reduction="add")
    want = d.copy()
    np.add.at(want, idx[:, 0], upd)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_array_equal(ops.gather_nd(d, np.array([[1], [2]])), d[[1, 2]])


def test_reverse_sequence_errors_name_the_op():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    lens = np.array([1, 2, 3, 3])
    with pytest.raises(ValueError, match=r"tl.ops.reverse_sequence: argument 'out' has shape \(4, 3\)"):
        ops.reverse_sequence(x, lens, out=np.empty((4, 3), np.float32))
    with pytest.raises(TypeError, match=r"tl.ops.reverse_sequence: argument 'out' has dtype float64"):
        ops.reverse_sequence(x, lens, out=np.empty((3, 4), np.float64))
    with pytest.raises(TypeError, match=r"tl.ops.reverse_sequence: argument 'out' must be a NumPy array"):
        ops.reverse_sequence(x, lens, out=[0] * 12)
    with pytest.raises(TypeError, match=r"tl.ops.reverse_sequence: argument 'x' has dtype float64"):
        ops.reverse_sequence(x.astype(np.float64), lens)
    out = np.full((3, 4), -1, np.float32)
    r = ops.reverse_sequence(x, lens, out=out)
    want = x.copy()
    for b, n in enumerate(lens):
        want[:n, b] = x[:n, b][::-1]
    assert r is out
    np.testing.assert_array_equal(out, want)


def test_torch_bf16_mixed_with_numpy_binary(rng_seed):
    """A torch bfloat16 tensor with a NumPy ml_dtypes.bfloat16 array (either side) and with a
    Python scalar: exact against torch's float32 sum rounded to bfloat16."""
    import ml_dtypes
    torch = pytest.importorskip("torch")
    rng, seed = rng_seed   # was an unseeded generator: a failure could not be reproduced
    t = torch.from_numpy(rng.standard_normal(37).astype(np.float32)).to(torch.bfloat16)
    n = rng.standard_normal(37).astype(ml_dtypes.bfloat16)
    ref = (t.float() + torch.from_numpy(n.astype(np.float32))).to(torch.bfloat16).float().numpy()
    for got in (ops.add(t, n), ops.add(n, t)):
        assert isinstance(got, np.ndarray) and got.dtype == np.dtype(ml_dtypes.bfloat16)
        np.testing.assert_array_equal(got.astype(np.float32), ref, err_msg=f"seed {seed}")
    got = ops.add(t, 0.5)
    np.testing.assert_array_equal(got.astype(np.float32), (t.float() + 0.5).to(torch.bfloat16).float().numpy())
