"""Masked ``tl.load``/``tl.store`` (tlc/emit_c/access.py, open_vector) on every x86 variant against a float64
NumPy model: masks all-true, all-false, ragged, with a masked-off row; tiles inside the tensor,
past its last byte and before its first byte with a PROT_NONE guard page there (a masked-off or
out-of-bounds lane that touched memory would fault); rows outside the tensor; strided views (a
padded row stride takes the vector path, an inner stride of 2 the per-element path); NaN payloads
and -0.0 in the data and in ``other`` kept bit for bit; float32, float16, bfloat16, int32, int64
and int8 (the per-element path). Stores must leave every lane they do not own untouched."""
import ctypes
import mmap

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")

R, W = 3, 37          # W: not a multiple of 4, 8 or 16 lanes, more than two vectors of 16
DTYPES = {"float32": (np.float32, "float32"), "float16": (np.float16, "float32"),
          "bfloat16": (ml_dtypes.bfloat16, "float32"), "int32": (np.int32, "int32"),
          "int64": (np.int64, "int64"), "int8": (np.int8, "int32")}

KERNELS = '''
@tl.kernel(grid=lambda x, out, r0, c0, a, b, skip, oth: (1,))
def mload_DT(x: tl.tensor(tl.DT, 2), out: tl.tensor(tl.DT, 2), r0: tl.int32, c0: tl.int32,
             a: tl.int32, b: tl.int32, skip: tl.int32, oth: tl.OT):
    cols = tl.arange(0, WW)[None, :]
    m = (cols >= a) & (cols < b) & (tl.arange(0, RR)[:, None] != skip)
    tl.store(out + (0, 0), tl.load(x + (r0, c0), (RR, WW), mask=m, other=oth))


@tl.kernel(grid=lambda src, y, r0, c0, a, b, skip: (1,))
def mstore_DT(src: tl.tensor(tl.DT, 2), y: tl.tensor(tl.DT, 2), r0: tl.int32, c0: tl.int32,
              a: tl.int32, b: tl.int32, skip: tl.int32):
    cols = tl.arange(0, WW)[None, :]
    m = (cols >= a) & (cols < b) & (tl.arange(0, RR)[:, None] != skip)
    tl.store(y + (r0, c0), tl.load(src + (0, 0), (RR, WW)), mask=m)
'''
SOURCE = "import tl\n" + "".join(KERNELS.replace("DT", dt).replace("OT", ot).replace("WW", str(W))
                                 .replace("RR", str(R)) for dt, (_, ot) in DTYPES.items())

_keep = []
_libc = ctypes.CDLL(None, use_errno=True)


def guarded(shape, dtype, at_end: bool):
    """A C-contiguous array whose last byte is followed (at_end) or whose first byte is preceded
    by a PROT_NONE page."""
    page, nbytes = mmap.PAGESIZE, int(np.prod(shape)) * np.dtype(dtype).itemsize
    data_pages = -(-nbytes // page)
    m = mmap.mmap(-1, (data_pages + 2) * page)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    for g in (0, data_pages + 1):
        assert _libc.mprotect(ctypes.c_void_p(base + g * page), page, 0) == 0
    start = (data_pages + 1) * page - nbytes if at_end else page
    _keep.append(m)
    return np.frombuffer(m, np.uint8, nbytes, start).view(dtype).reshape(shape)


def values(shape, npdt, rng):
    """Data with NaN payloads and signed zeros (floats) or the full range (ints)."""
    if np.issubdtype(npdt, np.integer):
        info = np.iinfo(npdt)
        return rng.integers(info.min, info.max, shape, endpoint=True).astype(npdt)
    v = rng.standard_normal(shape).astype(npdt)
    bits = v.view(np.uint32 if np.dtype(npdt).itemsize == 4 else np.uint16).reshape(-1)
    nbits = {4: [0x7fc01234, 0xffc00007, 0x80000000], 2: [0x7e05, 0xfe01, 0x8000]}[np.dtype(npdt).itemsize]
    if npdt is ml_dtypes.bfloat16:
        nbits = [0x7fc3, 0xffc1, 0x8000]
    bits[::7] = np.resize(np.array(nbits, bits.dtype), bits[::7].shape)
    return v


def bits(a):
    a = np.ascontiguousarray(a)
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def model(x, r0, c0, a, b, skip):
    """(R, W) bool: the lanes the access owns (mask on and inside x), and their x indices."""
    i, j = np.meshgrid(np.arange(R), np.arange(W), indexing="ij")
    mask = (j >= a) & (j < b) & (i != skip)
    xi, xj = r0 + i, c0 + j
    inside = (xi >= 0) & (xi < x.shape[0]) & (xj >= 0) & (xj < x.shape[1])
    return mask & inside, np.clip(xi, 0, x.shape[0] - 1), np.clip(xj, 0, x.shape[1] - 1)


def cases(shape):
    """(r0, c0, a, b, skip): all-true, all-false, ragged, a masked-off row, a Triton edge mask
    (b = lanes left in the row), past the end, before the start, rows outside."""
    rows, cols = shape
    return [(0, 0, 0, W, -1), (0, 0, W, 0, -1), (0, 0, 3, 29, -1), (0, 1, 0, W, 1),
            (rows - R, cols - 20, 0, 20, -1), (rows - R, cols - 20, 0, W, -1), (rows - 1, cols - 5, 2, W, 0),
            (0, -5, 0, W, -1), (0, -W, 0, W, -1), (-2, -3, 1, 30, 2), (rows, 0, 0, W, -1), (1, 17, 16, 33, -1)]


def views(npdt, rng):
    """(name, array): guard page after the end, before the start, a padded row stride, an inner
    stride of 2."""
    out = []
    for name, at_end in (("end", True), ("start", False)):
        g = guarded((5, 41), npdt, at_end)
        g[...] = values(g.shape, npdt, rng)
        out.append((name, g))
    big = values((7, 100), npdt, rng)
    out += [("padded", big[1:6, 3:44]), ("stride2", big[:5, ::2])]
    return out


@pytest.fixture(scope="module", params=["x86_64-avx512", "x86_64-avx2", "x86_64-baseline"])
def package(request, tmp_path_factory):
    import tl
    from click.testing import CliRunner
    from tlc.cli import cli
    from tl import _runtime
    feats = set(_runtime.cpu_features()) if hasattr(_runtime, "cpu_features") else set()
    if request.param == "x86_64-avx512" and feats and "avx512bw" not in feats:
        pytest.skip("no AVX-512 on this machine")
    d = tmp_path_factory.mktemp(request.param)
    (d / "k.py").write_text(SOURCE)
    r = CliRunner().invoke(cli, ["build", str(d / "k.py"), "-t", request.param, "-o", str(d / "k.tlpkg"),
                                 "-q", "-w", "--no-cache", "-j", "1"])
    assert r.exit_code == 0, r.output
    return tl.load(str(d / "k.tlpkg"))


@pytest.mark.parametrize("dt", list(DTYPES))
def test_masked_load(package, dt):
    npdt, ot = DTYPES[dt]
    rng = np.random.default_rng(13)
    others = [-0.0, float("nan"), 2.5] if ot == "float32" else [-3, 0]
    for name, x in views(npdt, rng):
        for r0, c0, a, b, skip in cases(x.shape):
            for oth in others:
                out = np.full((R, W), 0, npdt)
                getattr(package, f"mload_{dt}")(x, out, r0, c0, a, b, skip, oth)
                own, xi, xj = model(x, r0, c0, a, b, skip)
                where = f"{name} view, case {(r0, c0, a, b, skip)}, other {oth}"
                # owned lanes: the data bit for bit; the others: `other` in float64 (sign of -0.0 too)
                np.testing.assert_array_equal(bits(out)[own], bits(x[xi, xj])[own], err_msg=where)
                got = out[~own].astype(np.float64)
                want = np.full(got.shape, np.float64(oth) if ot == "float32" else oth)
                np.testing.assert_array_equal(got, want, err_msg=where)
                assert (np.signbit(got) == np.signbit(want)).all(), where


@pytest.mark.parametrize("dt", list(DTYPES))
def test_masked_store(package, dt):
    npdt, _ = DTYPES[dt]
    rng = np.random.default_rng(31)
    src = values((R, W), npdt, rng)
    for name, y in views(npdt, rng):
        for r0, c0, a, b, skip in cases(y.shape):
            before = values(y.shape, npdt, rng)
            y[...] = before
            getattr(package, f"mstore_{dt}")(src, y, r0, c0, a, b, skip)
            own, yi, yj = model(y, r0, c0, a, b, skip)
            want = bits(before).copy()
            want[yi[own], yj[own]] = bits(src)[own]
            np.testing.assert_array_equal(bits(y), want, err_msg=f"{name} view, case {(r0, c0, a, b, skip)}")
