"""Compiled float `%` and `//` (tiles and scalars, float32 and float16) match NumPy's float
semantics (np.remainder / np.floor_divide, i.e. npy_divmod) and the interpreter, including large
quotients (1e8 % 3.0 = 1, -1e8 // 3.0 = -33333336), zero/negative divisors, inf, NaN and -0.0."""
import numpy as np
import pytest

from fe_helpers import build_source

SRC = '''
import tl

@tl.kernel(grid=lambda a, b, q, r: (1,), specializations=[dict(DT=tl.float32), dict(DT=tl.float16)])
def tdivmod(a: tl.tensor(DT, 1), b: tl.tensor(DT, 1), q: tl.tensor(DT, 1), r: tl.tensor(DT, 1),
            DT: tl.constexpr = tl.float32):
    x = tl.load(a + (0,), (64,))
    y = tl.load(b + (0,), (64,))
    tl.store(q + (0,), x // y)
    tl.store(r + (0,), x % y)
    tl.store(q + (64,), x // 3.0)
    tl.store(r + (64,), x % 3.0)
    tl.store(q + (128,), x // -3.0)
    tl.store(r + (128,), x % -3.0)

@tl.kernel(grid=lambda a, b, q, r: (1,))
def sdivmod(a: tl.tensor(tl.float32, 1), b: tl.tensor(tl.float32, 1), q: tl.tensor(tl.float32, 1),
            r: tl.tensor(tl.float32, 1)):
    for i in range(0, 64):
        x = tl.load(a + (i,))
        y = tl.load(b + (i,))
        tl.store(q + (i,), x // y)
        tl.store(r + (i,), x % y)
'''


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    return build_source(tmp_path_factory, "float_divmod", SRC)[1]


def _operands():
    a = np.array([1e8, 5e8, 1e9, -1e8, -5e8, -1e9, 7.0, -7.0, 0.0, -0.0, 1.0, 0.1, 16777217.0, 3.4e38,
                  np.inf, -np.inf, np.nan, 1e-45, 2.5e7, 6.0, -6.0, 9.5], np.float32)
    b = np.array([3.0, -3.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 0.1, -7.0, 1e-38, 2.5], np.float32)
    aa, bb = (m.ravel() for m in np.meshgrid(a, b))
    rng = np.random.default_rng(3)
    aa = np.concatenate([aa, (rng.standard_normal(2000) * 1e9).astype(np.float32)])
    bb = np.concatenate([bb, (rng.standard_normal(2000) * 10).astype(np.float32)])
    n = len(aa) // 64 * 64
    return aa[:n].reshape(-1, 64), bb[:n].reshape(-1, 64)


def _same(got, want):
    return np.all((got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want)))


def test_known_values(pkg):
    a = np.zeros(64, np.float32)
    a[:4] = [1e8, 5e8, 1e9, -1e8]
    q, r = np.zeros(192, np.float32), np.zeros(192, np.float32)
    pkg.tdivmod__DT_float32(a, np.full(64, 3.0, np.float32), q, r)
    assert list(r[64:68]) == [1.0, 2.0, 1.0, 2.0]
    assert q[67] == -33333336.0


@pytest.mark.parametrize("kernel", ["tdivmod__DT_float32", "sdivmod"])
def test_float32_matches_numpy(pkg, kernel):
    for a, b in zip(*_operands()):
        q, r = np.full(192, 5.0, np.float32), np.full(192, 5.0, np.float32)
        getattr(pkg, kernel)(a, b, q, r)
        with np.errstate(all="ignore"):
            assert _same(q[:64], np.floor_divide(a, b)), (a, b, q[:64])
            assert _same(r[:64], np.remainder(a, b)), (a, b, r[:64])
            if kernel == "tdivmod__DT_float32":
                for k, d in ((1, 3.0), (2, -3.0)):
                    d = np.float32(d)
                    assert _same(q[64 * k:64 * k + 64], np.floor_divide(a, d)), (a, d)
                    assert _same(r[64 * k:64 * k + 64], np.remainder(a, d)), (a, d)


def test_float16_matches_numpy(pkg):
    for a, b in zip(*_operands()):
        with np.errstate(over="ignore"):
            a16, b16 = a.astype(np.float16), b.astype(np.float16)
        q, r = np.zeros(192, np.float16), np.zeros(192, np.float16)
        pkg.tdivmod__DT_float16(a16, b16, q, r)
        with np.errstate(all="ignore"):
            a32, b32 = a16.astype(np.float32), b16.astype(np.float32)
            wq, wr = np.floor_divide(a32, b32).astype(np.float16), np.remainder(a32, b32).astype(np.float16)
        q, r = q[:64], r[:64]
        assert np.all((q.view(np.uint16) == wq.view(np.uint16)) | (np.isnan(q) & np.isnan(wq)))
        assert np.all((r.view(np.uint16) == wr.view(np.uint16)) | (np.isnan(r) & np.isnan(wr)))
