"""cast between float32/float16/bfloat16/int8/int32/int64/bool; docs/semantics.md#c-09 (guard page)."""
import ctypes
import mmap

import numpy as np
import pytest

import tl.ops as ops
from ops_helpers import BF16, f64, rand

ALL = [np.float32, np.float16, BF16, np.int8, np.int32, np.int64, np.bool_]


def _src_values(rng, dt, shape):
    if np.dtype(dt) == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dt).kind == "i":
        return rng.integers(-100, 100, shape).astype(dt)
    return rand(rng, shape, dt, -100, 100)


def _ref(x, dst):
    dst = np.dtype(dst)
    if x.dtype.kind == "f" or x.dtype == BF16:
        if dst.kind in "iu":
            return np.trunc(x.astype(np.float64)).astype(dst)
        if dst == np.bool_:
            return x.astype(np.float64) != 0
        return x.astype(np.float64).astype(np.float32).astype(dst) if x.dtype != np.float32 else x.astype(dst)
    if dst == np.bool_:
        return x != 0
    return x.astype(dst)


@pytest.mark.parametrize("src", ALL, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("dst", ALL, ids=lambda d: np.dtype(d).name)
def test_cast_pairs(src, dst, rng_seed):
    rng, seed = rng_seed
    x = _src_values(rng, src, (3, 37))[:, ::-1]
    out = np.zeros((3, 37), dst)
    ops.cast(x, dst, out=out)
    np.testing.assert_array_equal(out.astype(np.float64), _ref(x, dst).astype(np.float64),
                                  err_msg=f"{np.dtype(src)}->{np.dtype(dst)} seed={seed}")


def test_cast_rounding_and_specials():
    x = np.array([np.nan, np.inf, -np.inf, -0.0, 65520.0, 1 + 2.0 ** -11, 1e-8, 3.4e38], np.float32)
    np.testing.assert_array_equal(ops.cast(x, np.float16).astype(np.float64),
                                  x.astype(np.float16).astype(np.float64))
    np.testing.assert_array_equal(ops.cast(x, BF16).astype(np.float64), x.astype(BF16).astype(np.float64))
    assert np.signbit(ops.cast(x, np.float16)[3])
    np.testing.assert_array_equal(ops.cast(np.array([2.7, -2.7, -0.5], np.float32), np.int32), [2, -2, 0])
    np.testing.assert_array_equal(ops.cast(np.array([300, -129], np.int32), np.int8), [44, 127])
    np.testing.assert_array_equal(ops.cast(np.array([2**40 + 5], np.int64), np.int32), [5])
    np.testing.assert_array_equal(ops.cast(np.array([np.nan, 0.0, -0.0], np.float32), np.bool_), [1, 0, 0])
    np.testing.assert_array_equal(ops.cast(np.array([2**40], np.int64), np.bool_), [True])
    np.testing.assert_array_equal(ops.cast(np.array([2**62 + 1], np.int64), "int64"), [2**62 + 1])


def test_cast_errors_and_empty():
    with pytest.raises(TypeError, match="'dtype'"):
        ops.cast(np.ones(3, np.float32), np.complex64)
    with pytest.raises(TypeError, match="'x'"):
        ops.cast(np.ones(3, np.uint16), np.float32)
    assert ops.cast(np.zeros((0, 3), np.float32), np.int8).shape == (0, 3)


def _guarded(nbytes):
    """A writable array of ``nbytes`` bytes ending exactly at a PROT_NONE guard page."""
    page = mmap.PAGESIZE
    m = mmap.mmap(-1, 2 * page, prot=mmap.PROT_READ | mmap.PROT_WRITE)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    assert libc.mprotect(addr + page, page, 0) == 0
    buf = np.frombuffer(m, np.uint8, count=nbytes, offset=page - nbytes)
    return buf, m


def test_c09_tail_at_guard_page(rng_seed):
    rng, seed = rng_seed
    for n in range(1, 34):
        xb, m1 = _guarded(4 * n)
        ob, m2 = _guarded(2 * n)
        x = xb.view(np.float32)
        x[...] = rand(rng, n, np.float32)
        o16 = ob.view(np.float16)
        ops.cast(x, np.float16, out=o16)
        np.testing.assert_array_equal(o16, x.astype(np.float16), err_msg=f"n={n} seed={seed}")
        yb, m3 = _guarded(4 * n)
        y = yb.view(np.float32)
        ops.add(x, x, out=y)
        np.testing.assert_array_equal(y, x + x)
        ops.exp(x, out=y)
        np.testing.assert_allclose(y, np.exp(f64(x)), rtol=1e-5, atol=1e-6, err_msg=f"exp n={n} seed={seed}")
        assert ops.sum(x[None, :], -1)[0] == pytest.approx(float(x.astype(np.float64).sum()), abs=1e-4)
        ops.softmax(x, out=y)
        e = np.exp(f64(x) - f64(x).max())
        np.testing.assert_allclose(y, e / e.sum(), rtol=4e-6, atol=1e-7, err_msg=f"softmax n={n} seed={seed}")
        del x, o16, y, xb, ob, yb
