"""tl.fma(x, y, z) = x * y + z in float32 (tiles, scalars, broadcast literals): one rounding on
the host package (within 1 ulp of the float64 result: the float64 sum itself may round once more),
and with y = -1 / +1 exactly z - x / z + x, bit for bit, inf and NaN included (what ops/norm.py's
TwoSum relies on). Non-float32 tile operands are a compile error naming tl.fma."""
import numpy as np
import pytest

from fe_helpers import assert_located, build_source

SRC = '''
import tl

@tl.kernel(grid=lambda a, b, c, out: (1,))
def tfma(a: tl.tensor(tl.float32, 1), b: tl.tensor(tl.float32, 1), c: tl.tensor(tl.float32, 1),
         out: tl.tensor(tl.float32, 1)):
    x = tl.load(a + (0,), (64,))
    y = tl.load(b + (0,), (64,))
    z = tl.load(c + (0,), (64,))
    tl.store(out + (0,), tl.fma(x, y, z))
    tl.store(out + (64,), tl.fma(x, -1.0, z))
    tl.store(out + (128,), tl.fma(x, 1.0, z))
    tl.store(out + (192,), tl.fma(x, y, 0.5))
    for i in range(0, 64):
        tl.store(out + (256 + i,), tl.fma(tl.load(a + (i,)), tl.load(b + (i,)), tl.load(c + (i,))))
'''


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    return build_source(tmp_path_factory, "fma", SRC)[1]


def test_fma_values(pkg):
    rng = np.random.default_rng(7)
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    c = rng.standard_normal(64).astype(np.float32)
    a[:4] = [np.inf, -np.inf, np.nan, 1e38]
    b[4:6] = [3e38, -0.0]
    c[6:8] = [np.inf, np.nan]
    # x * y + z cancelling: the fused result keeps the product's low bits
    a[8], b[8] = np.float32(1 + 2.0 ** -12), np.float32(1 - 2.0 ** -12)
    c[8] = np.float32(-1.0)
    out = np.zeros(320, np.float32)
    pkg.tfma(a, b, c, out)
    a64, b64, c64 = (v.astype(np.float64) for v in (a, b, c))
    with np.errstate(all="ignore"):
        ref = (a64 * b64 + c64).astype(np.float32)
        np.testing.assert_array_max_ulp(out[:64], ref, maxulp=1)
        np.testing.assert_array_max_ulp(out[256:], ref, maxulp=1)
        assert out[8] == np.float32(-2.0 ** -24)     # unfused: (1 - 2^-24 rounded to 1) - 1 = 0
        np.testing.assert_array_equal(out[64:128], c - a)
        np.testing.assert_array_equal(out[128:192], c + a)
        np.testing.assert_array_max_ulp(out[192:256], (a64 * b64 + 0.5).astype(np.float32), maxulp=1)


def test_fma_needs_float32():
    src = ("import tl\n@tl.kernel(grid=lambda a: (1,))\ndef k(a: tl.tensor(tl.int32, 1)):\n"
           "    x = tl.load(a + (0,), (16,))\n    tl.store(a + (0,), tl.fma(x, x, x))\n")
    assert_located(src, 5, 24, "tl.fma operands must be float32")
