"""The edge behaviour docs/language.md states as measured, on the variant this machine runs:
signed zeros and NaN in maximum/minimum/max/min/argmax, integer wrap-around and division by zero,
float floor division and remainder at 0 and inf, casts that wrap, and float16/int8 tiles held in
wider lanes until stored."""
import numpy as np
import pytest

from fe_helpers import build_source

SRC = '''import tl

@tl.kernel(grid=(1,))
def fedge(x: tl.tensor(tl.float32, 1), y: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 2)):
    a = tl.load(x + (0,), (8,))
    b = tl.load(y + (0,), (8,))
    tl.store(out + (0, 0), tl.maximum(a, b)[None, :])
    tl.store(out + (1, 0), tl.minimum(a, b)[None, :])
    tl.store(out + (2, 0), (a // b)[None, :])
    tl.store(out + (3, 0), (a % b)[None, :])
    tl.store(out + (4, 0), tl.fmod(a, b)[None, :])
    tl.store(out + (5, 0), tl.full((1, 8), tl.max(a).item()))
    tl.store(out + (6, 0), tl.full((1, 8), tl.min(a).item()))
    tl.store(out + (7, 0), tl.full((1, 8), tl.argmax(a, 0).item()).to(tl.float32))

@tl.kernel(grid=(1,))
def iedge(x: tl.tensor(tl.int32, 1), y: tl.tensor(tl.int32, 1), out: tl.tensor(tl.int32, 2)):
    a = tl.load(x + (0,), (8,))
    b = tl.load(y + (0,), (8,))
    tl.store(out + (0, 0), (a + 1)[None, :])
    tl.store(out + (1, 0), (a // b)[None, :])
    tl.store(out + (2, 0), (a % b)[None, :])
    tl.store(out + (3, 0), tl.abs(a)[None, :])
    tl.store(out + (4, 0), a.to(tl.int8).to(tl.int32)[None, :])
    tl.store(out + (5, 0), (~a)[None, :])

@tl.kernel(grid=(1,))
def narrow(h: tl.tensor(tl.float16, 1), oh: tl.tensor(tl.float16, 1), c: tl.tensor(tl.int8, 1),
           oc: tl.tensor(tl.int8, 1)):
    tl.store(oh + (0,), (tl.load(h + (0,), (4,)) * 1000.0) / 1000.0)
    v = tl.load(c + (0,), (4,))
    tl.store(oc + (0,), (v + v) // 2)
'''


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    return build_source(tmp_path_factory, "language_edges", SRC)[1]


def test_float_edges(pkg):
    nan, inf = np.nan, np.inf
    x = np.array([-0.0, 0.0, nan, 1.0, -7.0, inf, 100.0, 1.0], np.float32)
    y = np.array([0.0, -0.0, 1.0, nan, 2.0, 2.0, inf, 0.0], np.float32)
    o = np.zeros((8, 8), np.float32)
    pkg.fedge(x, y, o)
    mx, mn, fd, md, fm = o[:5]
    assert not np.signbit(mx[0]) and not np.signbit(mx[1])      # max(-0, +0) = +0 both ways
    assert np.signbit(mn[0]) and np.signbit(mn[1])              # min(-0, +0) = -0 both ways
    assert np.isnan(mx[2:4]).all() and np.isnan(mn[2:4]).all()  # NaN on either side
    assert (fd[4], md[4], fm[4]) == (-4.0, 1.0, -1.0)           # -7 // 2, -7 % 2, fmod(-7, 2)
    assert np.isnan(fd[5]) and fd[7] == inf and fd[6] == 0.0    # inf // 2, 1 // 0, 100 // inf
    assert md[6] == 100.0 and np.isnan(md[7]) and np.isnan(fm[7])
    assert np.isnan(o[5, 0]) and np.isnan(o[6, 0]) and o[7, 0] == 2.0   # max/min/argmax with NaN


def test_integer_edges(pkg):
    lo, hi = -2 ** 31, 2 ** 31 - 1
    x = np.array([hi, lo, 7, -7, 5, 300, 2049, 7], np.int32)
    y = np.array([1, -1, 2, 2, 0, 1, 1, -2], np.int32)
    o = np.zeros((6, 8), np.int32)
    pkg.iedge(x, y, o)
    assert o[0, 0] == lo                                        # wraps
    assert list(o[1, 1:5]) == [lo, 3, -4, 0] and o[1, 7] == -4  # INT_MIN // -1, floor, x // 0
    assert list(o[2, 2:5]) == [1, 1, 0] and o[2, 7] == -1       # sign of the divisor, x % 0
    assert o[3, 1] == lo                                        # abs(INT_MIN)
    assert list(o[4, 5:7]) == [44, 1]                           # .to(tl.int8): the low 8 bits
    assert o[5, 2] == -8                                        # ~7


def test_narrow_tiles_are_held_wider_until_stored(pkg):
    h = np.array([60000, 1, 2, 3], np.float16)
    oh = np.zeros(4, np.float16)
    c = np.array([100, -100, 127, -128], np.int8)
    oc = np.zeros(4, np.int8)
    pkg.narrow(h, oh, c, oc)
    assert oh[0] == 60000                       # 6e7 is held in float32, not float16's inf
    assert list(oc) == [100, -100, 127, -128]   # a + a does not wrap at 8 bits in the kernel
