"""The semantics cases that go through tl.ops (docs/semantics.md), run from their rows in
tests/data/semantics_cases.json: each result is compared with the row's expected value and with a
float64 NumPy (or ``math``) reference computed here on the same inputs."""
import json
import math
import os

import numpy as np
import pytest

import tl.ops as T
from ops_helpers import f64, ref_layer_norm

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "semantics_cases.json")
CASES = {c["id"]: c for c in json.load(open(DATA))["cases"]}


def arr(values, dtype):
    """A JSON list (numbers, or strings such as "nan", "-0.0", "inf") as an array of ``dtype``."""
    conv = float if np.dtype(dtype).kind == "f" else int
    return np.array(np.vectorize(lambda v: conv(v) if isinstance(v, str) else v, otypes=[object])(
        np.array(values, dtype=object)).tolist(), dtype)


def same(got, want):
    """Equal values, NaN in the same places and the same sign on every zero."""
    got, want = f64(got), f64(want)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got[want == 0]), np.signbit(want[want == 0]))


def c03(c):
    a = np.zeros((16, 16), np.float32)
    a[0, 0] = 1 + 2.0 ** -13
    got = T.matmul(a, np.eye(16, dtype=np.float32))
    same(got, f64(a) @ np.eye(16))
    assert got[0, 0] == c["expected"]["c[0, 0]"]


def c04(c):
    for w in c["input"]["widths"]:
        x = (2.0 * np.arange(1, w + 1, dtype=np.float32))[None, :]
        assert T.sum(x, -1)[0] == f64(x).sum() and T.max(x, -1)[0] == f64(x).max(), w
        if w == 48:
            assert (T.sum(x, -1)[0], T.max(x, -1)[0]) == (c["expected"]["sum"], c["expected"]["max"])


def c05(c):
    x = arr(c["input"]["x"], np.float32)
    got, rtol = T.erf(x), c["expected"]["rtol"]
    np.testing.assert_allclose(got, c["expected"]["erf"], rtol=rtol)
    np.testing.assert_allclose(got, [math.erf(v) for v in f64(x)], rtol=rtol)


def _avg_pool_ref(x, k, s, p):
    """float64 avg_pool2d, ceil_mode=True, count_include_pad=True, square kernel/stride/padding:
    windows that start in the right padding are dropped; the divisor counts the cells of each
    window inside input + explicit padding."""
    n = x.shape[-1]
    out = -(-(n + 2 * p - k) // s) + 1
    if (out - 1) * s >= n + p:
        out -= 1
    xp = np.pad(x, [(0, 0), (0, 0), (p, p + k), (p, p + k)])
    y = np.empty(x.shape[:2] + (out, out))
    for i in range(out):
        for j in range(out):
            ci = min(i * s + k, n + 2 * p) - i * s
            cj = min(j * s + k, n + 2 * p) - j * s
            y[:, :, i, j] = xp[:, :, i * s:i * s + ci, j * s:j * s + cj].sum((2, 3)) / (ci * cj)
    return y


def c07(c):
    i, e = c["input"], c["expected"]
    x = np.ones((1, 1, 9, 9), np.float32)
    y = T.avg_pool2d(x, i["kernel_size"], i["stride"], i["padding"], ceil_mode=i["ceil_mode"],
                     count_include_pad=i["count_include_pad"])
    assert list(y.shape) == e["shape"]
    assert (y[0, 0, 0, 0], y[0, 0, 0, 1], y[0, 0, 4, 4]) == (e["Y[0, 0, 0, 0]"], e["Y[0, 0, 0, 1]"], e["Y[0, 0, 4, 4]"])
    np.testing.assert_allclose(y, _avg_pool_ref(f64(x), i["kernel_size"], i["stride"], i["padding"]), rtol=1.3e-6)


def c08(c):
    x, y = arr(c["input"]["x"], np.float32), np.float32(c["input"]["y"])
    for name, ref in (("remainder", np.remainder), ("fmod", np.fmod)):
        got = getattr(T, name)(x, y)
        same(got, arr(c["expected"][name], np.float32))
        same(got, ref(f64(x), 1.0))


def c10(c):
    for K in c["input"]["K"]:
        got = T.softmax(np.ones((4, K), np.float16))
        assert got.dtype == np.float16 and (got == np.float16(1.0 / K)).all(), (K, got)
    assert T.softmax(np.ones((4, 3), np.float16))[0, 0] == c["expected"]["softmax K=3"]
    assert T.softmax(np.ones((4, 33), np.float16))[0, 0] == c["expected"]["softmax K=33"]


def c11(c):
    i = c["input"]
    q, k, v = (arr(i[n], np.float32) for n in "qkv")
    mask = np.array(i["mask"])
    got = T.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    np.testing.assert_allclose(got, c["expected"]["attention"], rtol=1e-5, atol=1e-6)
    s = np.where(mask, f64(q) @ f64(k).T / math.sqrt(2), -np.inf)
    ref = np.zeros((2, 2))
    live = mask.any(1)
    e = np.exp(s[live] - s[live].max(1, keepdims=True))
    ref[live] = (e / e.sum(1, keepdims=True)) @ f64(v)
    np.testing.assert_allclose(got, ref, rtol=1.3e-6, atol=1e-5 * 3)
    same(T.softmax(np.full((1, 3), -np.inf, np.float32))[0],
         arr(c["expected"]["softmax([-inf, -inf, -inf])"], np.float32))


def c12(c):
    for L in c["input"]["L"]:
        j = np.arange(L)
        x = (-1.0 - ((37 * j + 37) % L) / L).astype(np.float32)[None, :]
        m = T.max(x, -1)[0]
        assert m == c["expected"]["max"] == f64(x).max(), L
        assert T.argmax(x, -1)[0] == L - 1 == np.argmax(f64(x)), L


def c13(c):
    z = np.zeros((2, 0, 3), np.float32)
    s = T.sum(z, axis=1)
    same(s, f64(z).sum(1))
    assert list(T.add(z, np.float32(1)).shape) == c["expected"]["z + 1"]
    assert list(T.softmax(z, axis=1).shape) == c["expected"]["softmax(z, 1)"]
    with pytest.raises(ValueError, match="zero-size"):
        T.max(np.zeros((0, 3), np.float32), axis=0)


def c14(c):
    x = arr(c["input"]["x"], np.float32)
    got = T.layer_norm(x, eps=c["input"]["eps"])
    np.testing.assert_allclose(got[0], c["expected"]["layer_norm"], rtol=c["expected"]["rtol"])
    np.testing.assert_allclose(got, ref_layer_norm(f64(x), 1, 0, c["input"]["eps"]), rtol=1e-5, atol=1e-5)


def _conv_transpose_ref(x, w, stride, pads, dil):
    """float64 2-D transposed convolution of one channel: scatter x[i, j] * w into the full output,
    then crop (top, left, bottom, right) padding."""
    (H, W), (KH, KW) = x.shape, w.shape
    full = np.zeros(((H - 1) * stride[0] + dil[0] * (KH - 1) + 1, (W - 1) * stride[1] + dil[1] * (KW - 1) + 1))
    for i in range(H):
        for j in range(W):
            for a in range(KH):
                for b in range(KW):
                    full[i * stride[0] + a * dil[0], j * stride[1] + b * dil[1]] += x[i, j] * w[a, b]
    t, l, bo, r = pads
    return full[t:full.shape[0] - bo, l:full.shape[1] - r]


def c15(c):
    i = c["input"]
    x = np.arange(20, dtype=np.float32).reshape(1, 1, 4, 5)
    w = np.ones((1, 1, 3, 5), np.float32)
    y = T.conv_transpose2d(x, w, None, tuple(i["stride"]), tuple(i["padding"]), 0, tuple(i["dilation"]))
    assert list(y.shape) == c["expected"]["shape"]
    np.testing.assert_array_equal(y[0, 0, 0], c["expected"]["row 0"])
    np.testing.assert_array_equal(y[0, 0], _conv_transpose_ref(f64(x[0, 0]), f64(w[0, 0]), i["stride"],
                                                               i["padding"], i["dilation"]))


def c16(c):
    x = arr(c["input"]["x"], np.float32)
    for name in ("argmax", "argmin"):
        got = getattr(T, name)(x, -1)
        np.testing.assert_array_equal(got, c["expected"][name])
        np.testing.assert_array_equal(got, getattr(np, name)(f64(x), -1))


def c17(c):
    x = arr(c["input"]["x"], np.int32)
    for axis in (0, 1):
        got = T.argmax(x, axis=axis)
        np.testing.assert_array_equal(got, c["expected"][f"argmax axis {axis}"])
        np.testing.assert_array_equal(got, np.argmax(x.astype(np.int64), axis))


def c18(c):
    a, b = arr(c["input"]["a"], np.int32), arr(c["input"]["b"], np.int32)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    for name, ref in (("floor_divide", a64 // b64), ("remainder", a64 % b64), ("fmod", np.fmod(a64, b64))):
        got = getattr(T, name)(a, b)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, c["expected"][name])
        np.testing.assert_array_equal(got, ref.astype(np.int32))    # int32 wrap of INT_MIN // -1


def c19(c):
    a, b = arr(c["input"]["a"], np.float32), arr(c["input"]["b"], np.float32)
    for name in ("minimum", "maximum"):
        same(getattr(T, name)(a, b), arr(c["expected"][name], np.float32))
    s = T.add(T.ceil(np.array([-0.5], np.float32)), np.float32(0.0))    # -0.0 + 0.0 = +0.0
    same(s, np.ceil(np.array([-0.5])) + 0.0)
    assert T.div(np.ones(1, np.float32), s)[0] == float(c["expected"]["recip"])


def c20(c):
    x, k = arr(c["input"]["x"], np.float32), np.float32(c["input"]["c"])
    cx = T.mul(x, k)
    same(cx, x * k)
    ref = np.exp(f64(cx) - f64(cx).max())
    for got in (T.softmax(cx), T.softmax(x * k)):
        same(got, c["expected"]["softmax"])
        np.testing.assert_allclose(got, ref / ref.sum(), rtol=1.3e-6, atol=1e-7)


def c21(c):
    x = arr(c["input"]["x"], np.float32)
    got = f64(T.gelu(x))
    np.testing.assert_allclose(got, c["expected"]["gelu"], rtol=c["expected"]["rtol"])
    np.testing.assert_allclose(got, [0.5 * v * math.erfc(-v / math.sqrt(2)) for v in f64(x)], rtol=2e-6)


RUN = {"C-" + name[1:]: fn for name, fn in list(globals().items()) if name[:1] == "c" and name[1:].isdigit()}


def test_every_ops_case_has_a_runner():
    assert sorted(RUN) == sorted(i for i, c in CASES.items() if c["level"] == "ops")


@pytest.mark.parametrize("case", sorted(RUN))
def test_case(case):
    RUN[case](CASES[case])
