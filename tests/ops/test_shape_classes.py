"""tl.ops on the shape classes that fixed 2-D tiles handled badly (issue 14 item 5): 1-D, (N, 1),
(1, N), tall-skinny, short-wide, small, 3-D with size-1 axes. Elementwise ops now run on a flat
(rows, cols) view of contiguous or uniformly strided operands (tl.ops._ew_views and the C fast
path), reductions over leading axes on the column kernels (ops/reduce_col.py, with a fold for
narrow inputs), and one-element reductions / softmax rows without a launch per element. Values
against float64 NumPy; tolerances: float32 elementwise 2 ulp-ish (rtol 1e-6), sums rtol 1e-6 of
sum(|x|), float16 sums 1e-3."""
from __future__ import annotations

import numpy as np
import pytest

import tl.ops as T
from tl.ops import reduce as _ops_reduce

SHAPES = [(1000003,), (77760, 1), (1, 77760), (13107, 8), (8, 13107), (37, 41), (256, 409, 1), (1, 1), (3,),
          (2, 1, 129, 1)]


def _x(shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_elementwise_flat_views(shape):
    x, y = _x(shape, 1), _x(shape, 2)
    np.testing.assert_array_equal(T.add(x, y), (x.astype(np.float64) + y).astype(np.float32))
    np.testing.assert_array_equal(T.mul(x, y), (x.astype(np.float64) * y).astype(np.float32))
    np.testing.assert_allclose(T.exp(x), np.exp(x.astype(np.float64)), rtol=2e-6, atol=0)
    np.testing.assert_allclose(T.sin(x), np.sin(x.astype(np.float64)), rtol=2e-6, atol=1e-7)
    np.testing.assert_array_equal(T.relu(x), np.maximum(x, 0))
    np.testing.assert_allclose(T.elu(x), np.where(x > 0, x, np.expm1(x.astype(np.float64))), rtol=2e-6, atol=1e-7)
    np.testing.assert_array_equal(T.cast(x, np.float16), x.astype(np.float16))
    np.testing.assert_array_equal(T.where(x > 0, x, y), np.where(x > 0, x, y))


def test_flat_views_keep_element_order_of_strided_and_broadcast_operands():
    base = _x((400, 6), 3)
    x = base[:, ::2]                      # not flattenable: the general (rows, cols) view
    y = _x((400, 3), 4)
    np.testing.assert_array_equal(T.add(x, y), x + y)
    np.testing.assert_array_equal(T.add(y, x.T.T), y + x)
    xt = _x((3, 500), 5).T                # transposed (Fortran order)
    np.testing.assert_array_equal(T.mul(xt, xt), xt * xt)
    np.testing.assert_array_equal(T.add(xt, np.float32(2)), xt + np.float32(2))
    col = _x((500, 1), 6)                 # broadcast against a row
    np.testing.assert_array_equal(T.add(col, _x((1, 300), 7)), col + _x((1, 300), 7))
    step = _x((3 * 4096,), 8)[::3]        # uniformly strided 1-D: flat, stride 3
    np.testing.assert_allclose(T.exp(step), np.exp(step.astype(np.float64)), rtol=2e-6)
    out = np.empty((4096,), np.float32)
    assert T.exp(step, out=out) is out
    np.testing.assert_allclose(out, np.exp(step.astype(np.float64)), rtol=2e-6)


def test_flat_views_in_place_and_strided_out():
    x = _x((50000, 1), 9)
    ref = x + x
    assert T.add(x, x, out=x) is x
    np.testing.assert_array_equal(x, ref)
    big = np.zeros((50000, 2), np.float32)
    out = big[:, :1]                      # a strided destination: written, nothing else touched
    T.exp(x, out=out)
    np.testing.assert_allclose(out, np.exp(x.astype(np.float64)), rtol=2e-6)
    assert not big[:, 1].any()


@pytest.mark.parametrize("shape,axis", [((77760, 1), 0), ((77760, 1), -1), ((1, 77760), 0), ((13107, 8), 0),
                                        ((13107, 8), 1), ((8, 13107), 0), ((37, 41), 0), ((1031, 3), 0),
                                        ((256, 409, 1), (0, 1)), ((256, 409, 1), 0), ((256, 409, 1), -1),
                                        ((4, 5, 300), (0, 1)), ((97, 256), 0), ((2, 1000), 0)], ids=str)
def test_reductions_by_axis(shape, axis):
    x = _x(shape, 10)
    x64 = x.astype(np.float64)
    tol = 1e-6 * np.sum(np.abs(x64), axis=axis) + 1e-30
    assert np.all(np.abs(T.sum(x, axis=axis) - np.sum(x64, axis=axis)) <= tol)
    np.testing.assert_array_equal(T.max(x, axis=axis), np.max(x, axis=axis))
    np.testing.assert_array_equal(T.min(x, axis=axis), np.min(x, axis=axis))
    np.testing.assert_array_equal(T.sum(x, axis=axis, keepdims=True).shape, np.sum(x, axis=axis, keepdims=True).shape)


def test_column_reductions_nan_inf_and_float16():
    x = _x((1000, 7), 11)
    x[500, 3] = np.nan
    x[10, 5] = np.inf
    x[20, 6] = -np.inf
    s, mx, mn = T.sum(x, axis=0), T.max(x, axis=0), T.min(x, axis=0)
    assert np.isnan(s[3]) and np.isnan(mx[3]) and np.isnan(mn[3])
    assert s[5] == np.inf and mx[5] == np.inf and s[6] == -np.inf and mn[6] == -np.inf
    ok = [0, 1, 2, 4]
    np.testing.assert_allclose(s[ok], x[:, ok].astype(np.float64).sum(0), rtol=1e-5, atol=1e-4)
    h = _x((3001, 5), 12, np.float16)
    np.testing.assert_allclose(T.sum(h, axis=0).astype(np.float64), h.astype(np.float64).sum(0), rtol=1e-3, atol=0.05)
    np.testing.assert_array_equal(T.max(h, axis=0), h.max(0))


def test_one_element_reductions_keep_the_value():
    x = np.array([[-0.0], [np.nan], [np.inf], [1.5]], np.float32)
    for f in (T.sum, T.max, T.min):
        r = f(x, axis=1)
        np.testing.assert_array_equal(r, x[:, 0])
        assert np.signbit(r[0])


def test_column_kernels_fold_narrow_and_block_tall_inputs(monkeypatch):
    seen = []
    real = _ops_reduce._launch
    monkeypatch.setattr(_ops_reduce, "_launch", lambda name, *a: (seen.append((name, a[0].shape)), real(name, *a)))
    x = _x((1024, 8), 13)
    np.testing.assert_allclose(T.sum(x, axis=0), x.astype(np.float64).sum(0), rtol=1e-5)
    # (1024, 8) -> (128, 64): 128 rows > 64, so 4 blocks of 32 rows -> partial rows (4 * 8, 8),
    # again narrow: (4, 64), folded (8, 8)
    assert seen == [("col_sum_rows__DT_float32", (128, 64)), ("col_sum__DT_float32", (4, 64)),
                    ("col_sum__DT_float32", (8, 8))]
    seen.clear()
    np.testing.assert_array_equal(T.max(x, axis=0), x.max(0))
    assert seen == [("col_max__DT_float32", (32, 256)), ("col_max__DT_float32", (32, 8))]
    seen.clear()
    h = _x((3001, 300), 16, np.float16)     # a float16 sum finished in float32, rounded once
    np.testing.assert_allclose(T.sum(h, axis=0).astype(np.float64), h.astype(np.float64).sum(0), rtol=2e-3, atol=0.05)
    assert [n for n, _ in seen] == ["col_sum_rows__DT_float16", "col_sum_rows__DT_float32", "col_sum__DT_float32"]
    for shape in ((4099, 77), (65, 1000), (64, 3), (2000, 1)):
        y = _x(shape, 17)
        y[shape[0] // 2, 0] = np.nan
        np.testing.assert_allclose(T.sum(y, axis=0), y.astype(np.float64).sum(0), rtol=1e-5, atol=1e-4)
        np.testing.assert_array_equal(T.max(y, axis=0), y.max(0))
        np.testing.assert_array_equal(T.min(y, axis=0), y.min(0))


@pytest.mark.parametrize("shape,axis", [((77760, 1), -1), ((1, 1), 0), ((3, 1, 4), 1)], ids=str)
def test_softmax_over_a_length_one_axis(shape, axis):
    x = _x(shape, 14)
    for i, v in enumerate((np.inf, np.nan, -np.inf)[:x.size]):
        x.flat[i] = v
    with np.errstate(invalid="ignore"):
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        ref = e / e.sum(axis=axis, keepdims=True)
        lref = (x - np.max(x, axis=axis, keepdims=True)) - np.log(e.sum(axis=axis, keepdims=True))
    np.testing.assert_array_equal(T.softmax(x, axis=axis), ref)
    np.testing.assert_array_equal(T.log_softmax(x, axis=axis), lref)


def test_transpose_of_a_vector_shaped_matrix():
    x = _x((77760, 1), 15)
    np.testing.assert_array_equal(T.transpose(x), x.T)
    np.testing.assert_array_equal(T.transpose(x.T), x)


@pytest.mark.parametrize("shape", [(5000, 8), (8, 5000), (3, 70000), (70, 65), (100000,)], ids=str)
def test_skinny_transposes_and_copies(shape):
    x = _x(shape, 18)
    np.testing.assert_array_equal(T.transpose(x), x.T)
    np.testing.assert_array_equal(T.transpose(x[::-1]), x[::-1].T)            # negative strides
    np.testing.assert_array_equal(T.contiguous(x.T), np.ascontiguousarray(x.T))
    if x.ndim == 2:
        dst = np.zeros((shape[1], shape[0] + 3), np.float32)[:, 1:-2]          # a strided destination
        T.copy_into(dst, x.T)
        np.testing.assert_array_equal(dst, x.T)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 9, 16, 17, 31, 32, 33])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_short_rows(n, dtype):
    x = _x((1000 + n, n), 19, dtype)           # row count not a multiple of 32
    x[7, n - 1] = np.nan
    x[9, :] = -np.inf
    x[11, 0] = np.inf
    x64 = x.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(x64 - x64.max(axis=1, keepdims=True))
        ref = e / e.sum(axis=1, keepdims=True)
        lref = (x64 - x64.max(axis=1, keepdims=True)) - np.log(e.sum(axis=1, keepdims=True))
    tol = 2e-6 if dtype == np.float32 else 1e-3
    np.testing.assert_allclose(T.softmax(x).astype(np.float64), ref, rtol=tol, atol=tol * 1e-2)
    np.testing.assert_allclose(T.log_softmax(x).astype(np.float64), lref, rtol=tol, atol=tol)
    np.testing.assert_allclose(T.sum(x, axis=1).astype(np.float64), x64.sum(1), rtol=tol, atol=tol * n)
    np.testing.assert_array_equal(T.max(x, axis=-1), x.max(1))
    np.testing.assert_array_equal(T.min(x, axis=1, keepdims=True), x.min(1, keepdims=True))
    np.testing.assert_array_equal(T.softmax(x.T, axis=0), T.softmax(np.ascontiguousarray(x), axis=1).T)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_arg_reductions_over_a_length_one_axis(dtype):
    # the one-element shortcut is a copy of the value for sum/max/min/prod, an index 0 here
    x = np.array([[7], [9], [-3]], dtype)
    for f in (T.argmax, T.argmin):
        np.testing.assert_array_equal(f(x, axis=1), np.zeros(3, np.int64))
        np.testing.assert_array_equal(f(x, axis=1, keepdims=True), np.zeros((3, 1), np.int64))
        assert f(np.array([5], dtype)) == 0
    np.testing.assert_array_equal(T.argmin(x, axis=1, select_last_index=True), np.zeros(3, np.int64))
    np.testing.assert_array_equal(T.prod(x.astype(np.float32), axis=1), x[:, 0].astype(np.float32))


def test_reduction_out_must_match_exactly_on_every_route():
    x = _x((4, 5), 20)
    cases = [(T.sum, dict(axis=(0, 1)), np.empty((), np.float16), TypeError),
             (T.sum, dict(axis=None), np.empty((3,), np.float32), ValueError),
             (T.max, dict(axis=0, keepdims=True), np.empty(5, np.float32), ValueError),
             (T.mean, dict(axis=0), np.empty(5, np.float16), TypeError),
             (T.sum, dict(axis=(0,)), np.empty(4, np.float32), ValueError)]
    for f, kw, out, err in cases:
        with pytest.raises(err, match="argument 'out' has"):
            f(x, out=out, **kw)
    good = np.empty((1, 5), np.float32)
    assert T.max(x, axis=0, keepdims=True, out=good) is good
    np.testing.assert_array_equal(good, x.max(0, keepdims=True))
    s = np.empty((), np.float32)
    assert T.sum(x, axis=(0, 1), out=s) is s
