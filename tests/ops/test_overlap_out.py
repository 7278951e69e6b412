"""Elementwise tl.ops with ``out=`` partly overlapping an input (shifted views of one buffer):
the result is NumPy's (as if every input were read first), never the kernel's overlap refusal."""
import numpy as np
import pytest

import tl.ops as ops


@pytest.mark.parametrize("shift", [1, -1, 3])
def test_binary_shifted_out(rng_seed, shift):
    rng, seed = rng_seed
    n = 301
    buf = rng.standard_normal(n + 3).astype(np.float32)
    a = buf[3:] if shift < 0 else buf[:n]
    o = buf[3 - 1:n + 3 - 1] if shift < 0 else buf[shift:shift + n]
    b = rng.standard_normal(n).astype(np.float32)
    want = a.astype(np.float64) + b
    ops.add(a, b, out=o)
    np.testing.assert_array_equal(o, want.astype(np.float32))


def test_unary_and_ew_shifted_out(rng_seed):
    rng, seed = rng_seed
    buf = rng.standard_normal(258).astype(np.float32)
    want = np.negative(buf[1:]).copy()
    ops.neg(buf[1:], out=buf[:-1])
    np.testing.assert_array_equal(buf[:-1], want)
    buf = rng.standard_normal(258).astype(np.float32)
    want = np.maximum(buf[1:], 0)
    ops.relu(buf[1:], out=buf[:-1])
    np.testing.assert_array_equal(buf[:-1], want)


def test_broadcast_input_aliasing_out(rng_seed):
    rng, seed = rng_seed
    x = rng.standard_normal((5, 7)).astype(np.float32)
    want = x + x[0]
    ops.add(x, x[0], out=x)                 # x[0] is overwritten while it is still being read
    np.testing.assert_array_equal(x, want)
