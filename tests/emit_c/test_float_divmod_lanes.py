"""Float `%` (mod), `//` (floordiv) and fmod lanes: bit-exact against NumPy float32
(np.remainder / np.floor_divide / np.fmod) on every x86 variant, including large quotients
(1e8 % 3 = 1, -1e8 // 3 = -33333336), zero / infinite / NaN operands, -0.0 and random bits;
the vector body and the partial tail give the same bits."""
import numpy as np
import pytest

from harness import VARIANTS, compile_bundle, Loaded
from unary import ew_kernel

REF = {"mod": np.remainder, "floordiv": np.floor_divide, "fmod": np.fmod}


def inputs():
    sa = np.array([1e8, 5e8, 1e9, -1e8, -5e8, -1e9, 7.0, -7.0, 0.0, -0.0, 1.0, -1.0, 0.1, 3.0,
                   1e-45, -1e-40, 3.4028235e38, -3.4028235e38, 16777217.0, 2.5e7, 6.0, -6.0,
                   np.inf, -np.inf, np.nan], np.float32)
    sb = np.array([3.0, -3.0, 0.0, -0.0, 0.1, -0.1, 1.0, 7.0, 1e-45, -1e-38, 1e30, 2.5,
                   np.inf, -np.inf, np.nan], np.float32)
    a, b = (m.ravel() for m in np.meshgrid(sa, sb))
    rng = np.random.default_rng(5)
    bits = lambda n: rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    wide_a = (rng.standard_normal(4000) * 10.0 ** rng.integers(-3, 12, 4000)).astype(np.float32)
    wide_b = (rng.standard_normal(4000) * 10.0 ** rng.integers(-3, 3, 4000)).astype(np.float32)
    return (np.concatenate([a, bits(20000), wide_a]).astype(np.float32),
            np.concatenate([b, bits(20000), wide_b]).astype(np.float32))


def same(got, want):
    return (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))


@pytest.mark.parametrize("op", sorted(REF))
@pytest.mark.parametrize("isa", sorted(VARIANTS))
def test_float_divmod_matches_numpy(op, isa):
    a, b = inputs()
    with np.errstate(all="ignore"):
        want = REF[op](a, b)
    lib = Loaded(compile_bundle([ew_kernel("k", op, nin=2)], isa))
    out = np.full_like(a, 7.0)
    lib("k", [a, b, out], grid=(-(-len(a) // 64),))
    bad = np.flatnonzero(~same(out, want))
    assert bad.size == 0, [(a[i], b[i], out[i], want[i]) for i in bad[:8]]
    tail = np.full(37, 7.0, np.float32)
    lib("k", [a[:37].copy(), b[:37].copy(), tail], grid=(1,))
    np.testing.assert_array_equal(tail.view(np.uint32), out[:37].view(np.uint32))
