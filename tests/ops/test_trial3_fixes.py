"""Findings of the third fresh-user trial: junk second operands raise TypeError naming the
argument (NumPy does; they used to become NaN or a parsed string), and var with
correction >= N is inf (NaN for 0/0) as in NumPy/PyTorch instead of a negative variance."""
import numpy as np
import pytest

import tl.ops as ops


@pytest.mark.parametrize("bad", [None, "3", [1.0, None, 2.0], object()], ids=["None", "str", "list-None", "object"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "maximum", "pow", "equal", "logical_and"])
def test_junk_operand_raises(op, bad):
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match=r"argument '[ab]' must be an array or a number"):
        getattr(ops, op)(x, bad)


def test_number_operands_still_broadcast():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(ops.add(x, 2), x + 2)
    np.testing.assert_array_equal(ops.sub(3, x), 3 - x)
    np.testing.assert_array_equal(ops.mul(x, [1, 2, 3]), x * np.array([1, 2, 3], np.float32))
    np.testing.assert_array_equal(ops.maximum(x, np.float32(2.5)), np.maximum(x, 2.5))
    np.testing.assert_array_equal(ops.add(x, True), x + 1)


@pytest.mark.parametrize("correction", [0, 1, 2, 3, 7])
def test_var_correction_at_or_past_n(correction):
    rows = np.array([[1, 2, 3], [2, 2, 2], [1, np.nan, 3], [-4, 0, 9]], np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        want = np.array([np.var(r.astype(np.float64), ddof=correction) if correction < 3 else
                         (np.nan if np.isnan(r).any() or np.ptp(r) == 0 else np.inf) for r in rows])
    got = ops.var(rows, axis=1, correction=correction)
    np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True)
    assert not (got < 0).any()


def test_conv2d_kernel_larger_than_input_raises():
    x = np.ones((1, 2, 3, 3), np.float32)
    w = np.ones((4, 2, 5, 5), np.float32)
    with pytest.raises(ValueError, match=r"tl.ops.conv2d: the kernel \(5, 5\) .* larger than the padded input \(3, 3\)"):
        ops.conv2d(x, w)
    y = ops.conv2d(x, w, padding=1)            # padded to 5 x 5: fits, one output
    assert y.shape == (1, 4, 1, 1) and np.allclose(y, 2 * 9)


@pytest.mark.parametrize("fn, x, msg", [
    ("sum", np.ones(3, np.int32), "tl.ops.sum: argument 'x'"),
    ("max", np.zeros((0, 3), np.float32), "tl.ops.max: zero-size"),
    ("min", np.zeros((0,), np.float32), "tl.ops.min: zero-size"),
])
def test_reduction_errors_name_the_public_op(fn, x, msg):
    with pytest.raises((TypeError, ValueError), match=msg):
        getattr(ops, fn)(x)
