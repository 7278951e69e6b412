"""Kernels of build/ops.tlpkg with every tensor ending exactly at a PROT_NONE guard page: any
read or write past a tensor's last byte faults (mismatched shapes are refused by the kernels'
shape contracts before anything is touched). Run as a subprocess (a fault kills only it):
    python guard_pages.py PACKAGE  -> prints "ok <n>" after n checked launches."""
from __future__ import annotations

import ctypes
import mmap
import sys

import numpy as np

PAGE = mmap.PAGESIZE
_libc = ctypes.CDLL(None, use_errno=True)
_keep = []


def guarded(shape, dtype=np.float32, fill=None, rng=np.random.default_rng(0)):
    """An array whose last byte is followed by an inaccessible page."""
    nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
    pages = (nbytes + PAGE - 1) // PAGE + 1
    m = mmap.mmap(-1, pages * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(m))
    if _libc.mprotect(ctypes.c_void_p(base + (pages - 1) * PAGE), PAGE, 0) != 0:
        raise OSError(ctypes.get_errno(), "mprotect")
    start = (pages - 1) * PAGE - nbytes
    a = np.frombuffer(m, dtype=dtype, count=int(np.prod(shape)), offset=start).reshape(shape)
    a[...] = rng.standard_normal(shape).astype(dtype) if fill is None else fill
    _keep.append(m)
    return a


def main(path):
    import tl._runtime as R
    pkg = R.load(path)
    n = 0
    for r, c in [(1, 1), (3, 5), (4, 256), (5, 257), (7, 1000), (1, 4099)]:
        x, y = guarded((r, c)), guarded((r, c))
        out = guarded((r, c), fill=0)
        pkg.add__DT_float32(x, y, out)
        assert np.allclose(out, x + y), (r, c)
        sm = guarded((r, c), fill=0)
        pkg.softmax__DT_float32(x, sm)
        e = np.exp(x - x.max(1, keepdims=True))
        assert np.allclose(sm, e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-6)
        n += 2
        # mismatched shapes: refused by add's shape contract (x, y, out: (M, N)) before the
        # kernel runs, so nothing is read or written (the outputs keep their fill)
        small = guarded((max(r - 1, 1), max(c // 2, 1)), fill=0)
        big_out = guarded((r + 2, c + 3), fill=0)
        for bad in (small, big_out):
            if bad.shape == x.shape:          # (1, 1): "small" is not smaller
                continue
            try:
                pkg.add__DT_float32(x, y, bad)
            except R.TLError as e:
                assert "argument 'out' axis" in str(e) and "argument 'x' axis" in str(e), str(e)
            else:
                raise AssertionError(f"add accepted out {bad.shape} for x {x.shape}")
            assert not bad.any()
        n += 2
    for z, m, k, nn in [(1, 1, 1, 1), (2, 33, 17, 65), (1, 64, 64, 64), (3, 5, 100, 7)]:
        a, b = guarded((z, m, k)), guarded((z, k, nn))
        c = guarded((z, m, nn), fill=0)
        pkg.matmul__DT_float32(a, b, c)
        assert np.allclose(c, a @ b, rtol=1e-4, atol=1e-4)
        n += 1
    print(f"ok {n}")


if __name__ == "__main__":
    main(sys.argv[1])
