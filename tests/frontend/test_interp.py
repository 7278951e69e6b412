"""The NumPy reference interpreter on small kernels, against float64 NumPy and the semantics cases."""
import os

import numpy as np
import pytest

import kernels_basic as K
import tl
from tlc.interp import bf16_to_f32, f32_to_bf16, interpret_file, interpret_kernel
from tlc.lower import pass_manager as pm
from tlc.parse import parse_file

HERE = os.path.dirname(__file__)
KB = os.path.join(HERE, "kernels_basic.py")
SEED = os.path.join(os.path.dirname(HERE), "fixtures", "seed_form.py")
RNG_SEED = 1234


@pytest.fixture
def rng():
    return np.random.default_rng(RNG_SEED)


def test_seed_form_matmul(rng):
    M, N = 256, 128
    a = rng.standard_normal((M, 80)).astype(np.float32)
    b = rng.standard_normal((64, 256)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    interpret_file(SEED, "matmul", (a, b, c), grid=(M // 128, N // 64))
    ref = a[:, :64].astype(np.float64) @ b[:64, :N].astype(np.float64)
    np.testing.assert_allclose(c, ref, rtol=1.3e-6, atol=1e-5 * 64)


@pytest.mark.parametrize("shape", [(10, 300), (4, 256), (1, 1), (7, 513)])
def test_add(rng, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.standard_normal(shape).astype(np.float32)
    out = np.full(shape, np.nan, np.float32)
    K.add.interpret(x, y, out)
    np.testing.assert_array_equal(out, x + y)


def test_add_non_contiguous(rng):
    base = rng.standard_normal((20, 40)).astype(np.float32)
    x, y = base[::2, ::3], base.T[:10, :14]
    out_base = np.zeros((14, 10), np.float32)
    out = out_base.T
    K.add.interpret(x, y, out)
    np.testing.assert_array_equal(out, x + y)


def test_add_bias_broadcast(rng):
    x = rng.standard_normal((20, 16)).astype(np.float32)
    bias = rng.standard_normal(16).astype(np.float32)
    out = np.full_like(x, np.nan)
    K.add_bias.interpret(x, bias, out)
    np.testing.assert_allclose(out, x.astype(np.float64) + 2.0 * bias, rtol=1.3e-6, atol=1e-6)


def _softmax64(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


@pytest.mark.parametrize("n", [1, 3, 64, 70, 200])
def test_softmax_f32(rng, n):
    x = (rng.standard_normal((5, n)) * 4).astype(np.float32)
    out = np.full_like(x, np.nan)
    K.softmax.interpret(x, out)   # picks softmax__DT_float32 from the array dtypes
    np.testing.assert_allclose(out, _softmax64(x), rtol=1e-5, atol=1e-5 * n)


@pytest.mark.parametrize("K_", [1, 3, 7, 10, 33])
def test_softmax_f16_c10(K_):
    x = np.ones((4, K_), np.float16)
    out = np.zeros_like(x)
    K.softmax.interpret(x, out)
    np.testing.assert_array_equal(out, np.float16(1.0 / K_))


def test_softmax_bf16_bits(rng):
    x32 = rng.standard_normal((3, 100)).astype(np.float32)
    xb = f32_to_bf16(x32)
    out = np.zeros_like(xb)
    interpret_file(KB, "softmax__DT_bfloat16", (xb, out))
    ref = _softmax64(bf16_to_f32(xb))
    np.testing.assert_allclose(bf16_to_f32(out), ref, rtol=1.6e-2, atol=1e-2)


def test_matmul_loop(rng):
    a = rng.standard_normal((40, 20)).astype(np.float32)
    b = rng.standard_normal((20, 30)).astype(np.float32)
    c = np.full((40, 30), np.nan, np.float32)
    K.matmul.interpret(a, b, c)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1.3e-6, atol=1e-5 * 20)


def test_c03_dot_is_fp32():
    a = np.zeros((32, 16), np.float32)
    a[0, 0] = 1 + 2.0 ** -13
    b = np.eye(16, dtype=np.float32)
    c = np.zeros((32, 16), np.float32)
    K.matmul.interpret(a, b, c)
    assert c[0, 0] == np.float32(1.0001220703125)


@pytest.mark.parametrize("op,other,expected", [(0, 0.0, 272.0), (1, float("-inf"), 32.0),
                                               (2, float("inf"), 2.0)])
def test_c02_masked_load(op, other, expected):
    x = np.arange(2, 34, 2).astype(np.float32)
    out = np.zeros(1, np.float32)
    K.masked_sum.interpret(x, out, OP=op, OTHER=other)
    assert out[0] == expected


@pytest.mark.parametrize("w", [1, 3, 5, 17, 24, 48, 96, 100, 1000])
def test_c04_sum_max_sweep(w):
    x = (2.0 * np.arange(1, w + 1, dtype=np.float32))[None, :]
    s = np.zeros(1, np.float32)
    m = np.zeros(1, np.float32)
    K.row_reduce.interpret(x, s, W=w, OP=0)
    K.row_reduce.interpret(x, m, W=w, OP=1)
    assert s[0] == w * (w + 1) and m[0] == 2 * w


@pytest.mark.parametrize("L", [1, 3, 17, 1025, 1178])
def test_c12_max_all_negative(L):
    j = np.arange(L)
    row = (-1 - ((37 * j + 37) % L) / L).astype(np.float32)[None, :]
    m = np.zeros(1, np.float32)
    am = np.zeros(1, np.int32)
    K.row_reduce.interpret(row, m, W=L + 7, OP=1)   # tile wider than the row: lanes read -inf
    assert m[0] == -1.0
    K.row_reduce.interpret(row, am, W=L + 7, OP=2, ODT=tl.int32)
    assert am[0] == L - 1


def test_c16_argmax_nan():
    x = np.array([[np.nan, 2.5, 3.0], [1.0, np.nan, 3.0]], np.float32)
    amax, amin = np.zeros(2, np.int32), np.zeros(2, np.int32)
    K.row_reduce.interpret(x, amax, W=3, OP=2, ODT=tl.int32)
    K.row_reduce.interpret(x, amin, W=3, OP=3, ODT=tl.int32)
    assert amax.tolist() == [0, 1] and amin.tolist() == [0, 1]


def test_c17_argmax_ties():
    x = np.array([[3, 1, 4], [4, 4, 1], [1, 4, 4], [4, 2, 4]], np.float32)
    out = np.zeros(4, np.int32)
    K.row_reduce.interpret(x, out, W=3, OP=2, ODT=tl.int32)
    assert out.tolist() == [2, 0, 1, 0]
    out0 = np.zeros(3, np.int32)
    K.row_reduce.interpret(np.ascontiguousarray(x.T), out0, W=4, OP=2, ODT=tl.int32)
    assert out0.tolist() == [1, 1, 0]
    for n in (33, 1025):
        r = np.zeros((1, n), np.float32)
        r[0, 0] = r[0, -1] = 5.0
        o = np.zeros(1, np.int32)
        K.row_reduce.interpret(r, o, W=n, OP=2, ODT=tl.int32)
        assert o[0] == 0


def test_c06_c18_integer_division():
    xs = np.arange(-20, 21, dtype=np.int64)
    a = np.concatenate([241 + 48 * xs, [-2147483648, 7, -7]]).astype(np.int32)
    b = np.concatenate([np.full(41, 16), [-1, -2, 2]]).astype(np.int32)
    n = len(a)
    q, r, tq, tr = (np.zeros(n, np.int32) for _ in range(4))
    K.intdiv.interpret(a, b, q, r, tq, tr, N=n)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    fq = a64 // b64
    tq_ref = np.where((a64 % b64 != 0) & ((a64 < 0) != (b64 < 0)), fq + 1, fq)
    np.testing.assert_array_equal(q, fq.astype(np.int32))          # INT_MIN // -1 wraps
    np.testing.assert_array_equal(r, (a64 % b64).astype(np.int32))
    np.testing.assert_array_equal(tq, tq_ref.astype(np.int32))
    np.testing.assert_array_equal(tr, np.fmod(a64, b64).astype(np.int32))
    assert tq[10] == -14 and q[10] == -15      # x = -10: (241 - 480) / 16
    assert q[-3:].tolist() == [-2147483648, -4, -4] and r[-3:].tolist() == [0, -1, 1]
    assert tr[-3:].tolist() == [0, 1, -1]


def test_c19_signed_zero():
    a = np.array([-0.0, 0.0, -0.0, np.nan], np.float32)
    b = np.array([0.0, -0.0, -0.0, 1.0], np.float32)
    mn, mx = np.zeros(4, np.float32), np.zeros(4, np.float32)
    K.minmax.interpret(a, b, mn, mx)
    assert np.signbit(mn[:3]).tolist() == [True, True, True]
    assert np.signbit(mx[:3]).tolist() == [False, False, True]
    assert np.isnan(mn[3]) and np.isnan(mx[3])
    out = np.zeros(1, np.float32)
    K.recip_ceil.interpret(np.array([-0.5], np.float32), out)
    assert out[0] == np.inf


@pytest.mark.parametrize("n,factor", [(5, 2.0), (2, None)])
def test_runtime_if(rng, n, factor):
    x = rng.standard_normal(8).astype(np.float32)
    out = np.zeros(8, np.float32)
    K.runtime_if.interpret(x, out, n)
    np.testing.assert_array_equal(out, x * 2.0 if factor else x - 1.0)


def test_interpret_ir_kernel_and_bad_args():
    k = [k for k in parse_file(KB).kernels if k.name == "add"][0]
    x = np.ones((4, 4), np.float32)
    out = np.zeros_like(x)
    interpret_kernel(k, (x, x, out))
    assert (out == 2).all()
    with pytest.raises(Exception, match="dtype"):
        interpret_kernel(k, (x.astype(np.float64), x, out))


@pytest.mark.parametrize("name", ["softmax__DT_float32", "matmul", "add_bias", "runtime_if"])
def test_interpreter_runs_ir_after_passes_before_fusion(rng, name):
    from tlc.backends import pipeline
    names = [p.name for p in pipeline()]
    pre = names[:names.index("fuse_elementwise")] if "fuse_elementwise" in names else names
    (k,) = parse_file(KB, only={name}).kernels
    (k2,) = pm.run_pipeline(parse_file(KB, only={name}), None, passes=pre).kernels
    shapes = {"softmax__DT_float32": [(5, 70), (5, 70)], "matmul": [(40, 20), (20, 30), (40, 30)],
              "add_bias": [(20, 16), (16,), (20, 16)], "runtime_if": [(8,), (8,)]}[name]
    a1 = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    if name == "runtime_if":
        a1.append(5)
    a2 = [a.copy() if isinstance(a, np.ndarray) else a for a in a1]
    interpret_kernel(k, a1)
    interpret_kernel(k2, a2)
    for x, y in zip(a1, a2):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)


def test_from_tl_import_kernel_and_int8_wrap():
    from tlc.interp import interpret_kernel as run
    from tlc.parse import parse_source
    src = ("from tl import kernel\nimport tl\n\n@kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 64),))\n"
           "def inc(x: tl.tensor(tl.int8, 1), out: tl.tensor(tl.int8, 1)):\n"
           "    i = tl.program_id(0) * 64\n"
           "    tl.store(out + (i,), tl.load(x + (i,), (64,)) + 1)\n")
    (k,) = parse_source(src, "t.py").kernels
    x = np.arange(-128, 127, dtype=np.int8)
    x[-1] = 127
    out = np.zeros_like(x)
    run(k, (x, out))
    np.testing.assert_array_equal(out, (x.astype(np.int32) + 1).astype(np.int8))


def test_c01_64bit_offsets():
    from tlc.parse import parse_source
    src = ("import tl\n\n@tl.kernel\n"
           "def k(out: tl.tensor(tl.int64, 1)):\n"
           "    tl.store(out + (0,), tl.program_id(0) * 1024 + tl.zeros((1,), tl.int64))\n")
    (k,) = parse_source(src, "t.py").kernels
    out = np.zeros(1, np.int64)
    from tlc.interp import _Program
    _Program((2 ** 21, 0, 0), (2 ** 21 + 1, 1, 1)).run_block(
        k.body, {}, [__import__("tlc.interp").interp.View(out, (0,), k.params[0].dtype)])
    assert out[0] == 2 ** 31
