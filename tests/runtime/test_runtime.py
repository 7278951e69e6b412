"""libtl_runtime end to end through tl._runtime: packages made from the hand-written fixture
bundle, loaded, launched and checked against NumPy; corrupt packages and bad arguments must fail
with clean messages naming the cause."""
from __future__ import annotations

import ctypes
import os
import platform
import threading
import zipfile

import numpy as np
import pytest

import tl._runtime as R
from tlc.package.format import write_package

from rt_helpers import build_bundle, bundle_entry, manifest_for, KERNELS

rng = np.random.default_rng(0)


def rand(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def make_pkg(path, bundle_bytes, manifest=None, **payload_extra):
    payloads = {"bundles/base.so": bundle_bytes, "include/fixture.h": b"/* fixture */\n"}
    payloads.update(payload_extra)
    write_package(path, manifest or manifest_for([bundle_entry("base")]), payloads)
    return path


def open_error(path):
    with pytest.raises((R.TLError, FileNotFoundError)) as ei:
        R.load(path)
    return str(ei.value)


# --- loading and running ------------------------------------------------------------------

def test_package_metadata(pkg):
    assert pkg.kernels == [n for n, _ in KERNELS]
    assert pkg.target == "x86_64-fixture"
    k = pkg["add"]
    assert k is pkg.add
    assert [p.name for p in k.params] == ["a", "b", "out"]
    assert [p.dtype for p in k.params] == ["float32"] * 3
    assert [p.rank for p in k.params] == [2, 2, 2]
    assert k.params[2].access == "write"
    assert pkg.axpy.constexprs == {"BLOCK": 64}
    assert pkg.axpy.has_grid and not pkg.add_nogrid.has_grid
    assert "add" in pkg and "ghost" not in pkg
    assert R.version() == "0.1.0"


def test_axpy(pkg):
    for n in (0, 1, 63, 64, 65, 1000, 100_003):
        x, y = rand(n), rand(n)
        want = 2.5 * x + y
        pkg.axpy(x, y, 2.5)
        np.testing.assert_allclose(y, want, rtol=1e-6)


def test_add_with_and_without_grid(pkg):
    a, b = rand(37, 50), rand(37, 50)
    out = np.zeros_like(a)
    pkg.add(a, b, out)
    np.testing.assert_array_equal(out, a + b)
    out2 = np.zeros_like(a)
    pkg.add_nogrid(a, b, out2, grid=(4, 37))
    np.testing.assert_array_equal(out2, a + b)
    with pytest.raises(R.TLError, match="kernel add_nogrid has no grid rule; pass a grid"):
        pkg.add_nogrid(a, b, out2)


def test_strided_and_negative_strides(pkg):
    base = rand(40, 90)
    a = base[::2, 1::3]           # (20, 30), non-contiguous
    b = rand(30, 20).T            # transposed
    out_base = np.zeros((20, 60), np.float32)
    out = out_base[:, ::2]
    pkg.add(a, b, out)
    np.testing.assert_array_equal(out, a + b)
    assert not out_base[:, 1::2].any()
    an = base[::-1, ::-1][:20, :30]   # negative strides
    bn = rand(20, 30)[:, ::-1]
    outn = np.zeros((20, 30), np.float32)[::-1]
    pkg.add(an, bn, outn)
    np.testing.assert_array_equal(outn, an + bn)
    x = rand(300)[::-3]
    y = np.zeros(200, np.float32)[::2]
    pkg.axpy(x, y, 1.0)
    np.testing.assert_array_equal(y, x)


def test_workspace_and_threads(pkg):
    x = rand(257, 300)
    out = np.zeros(257, np.float32)
    pkg.rowsum(x, out)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-4, atol=1e-4)
    xs = x[:, ::-2]
    outs = np.zeros(257, np.float32)
    pkg.rowsum(xs, outs)
    np.testing.assert_allclose(outs, xs.sum(axis=1), rtol=1e-4, atol=1e-4)


def test_int_scalar_and_bf16(pkg):
    out = np.zeros(10, np.int32)
    pkg.fill_i32(out, -7)
    assert (out == -7).all()
    pkg.fill_i32(out, np.int64(3))
    assert (out == 3).all()
    with pytest.raises(R.TLError, match="'value'"):
        pkg.fill_i32(out, 2**40)
    with pytest.raises(TypeError, match="'value'"):
        pkg.fill_i32(out, 1.5)
    bits = np.arange(16, dtype=np.uint16) * 1000
    dst = np.zeros(16, np.uint16)
    pkg.copy_bf16(bits, dst)         # uint16 taken as raw bfloat16 bits
    np.testing.assert_array_equal(dst, bits)
    with pytest.raises(R.TLError, match="argument 'x'.*expected dtype bfloat16, got float32"):
        pkg.copy_bf16(rand(16), dst)


def test_count_grid_and_zero_grid(pkg):
    out = np.zeros(10_000, np.int64)
    pkg.count(out, grid=10_000)
    np.testing.assert_array_equal(out, np.arange(1, 10_001))
    out[:] = 0
    pkg.count(out, grid=(100, 100, 1))
    np.testing.assert_array_equal(out, np.arange(1, 10_001))
    out[:] = 0
    pkg.count(out, grid=(0, 5))       # nothing to run
    pkg.count(out, grid=(5, 0, 3))
    assert not out.any()
    with pytest.raises(R.TLError, match="negative"):
        pkg.count(out, grid=(-1,))
    e = np.zeros((0, 5), np.float32)
    pkg.add(e, e.copy(), np.zeros((0, 5), np.float32))   # empty tensors: grid (1, 0), nothing to do


def test_kernel_failure(pkg):
    with pytest.raises(R.TLError, match="kernel fail failed") as ei:
        pkg.fail(rand(4))
    assert ei.value.status_name == "TL_ERROR_INTERNAL"


def test_dlpack_objects(pkg):
    class Wrapper:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, **kw):
            return self.a.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    a, b = rand(8, 16), rand(8, 16)
    out = np.zeros_like(a)
    pkg.add(Wrapper(a), Wrapper(b), Wrapper(out))
    np.testing.assert_array_equal(out, a + b)


# --- argument errors --------------------------------------------------------------------------

def test_argument_errors(pkg):
    a, b, out = rand(4, 5), rand(4, 5), np.zeros((4, 5), np.float32)
    with pytest.raises(R.TLError, match=r"argument 'b' \(#1\): expected dtype float32, got float64"):
        pkg.add(a, b.astype(np.float64), out)
    with pytest.raises(R.TLError, match=r"argument 'out' \(#2\): expected rank 2, got rank 1"):
        pkg.add(a, b, out.ravel())
    with pytest.raises(R.TLError, match=r"argument 'x' .*expected rank 1, got rank 2"):
        pkg.axpy(a, out, 1.0)
    with pytest.raises(TypeError, match="takes 3 arguments"):
        pkg.add(a, b)
    with pytest.raises(TypeError, match="argument 'a'"):
        pkg.add([[1.0]], b, out)
    with pytest.raises(TypeError, match="'alpha'"):
        pkg.axpy(a[0], out[0], "x")
    ro = np.zeros((4, 5), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="'out'.*read-only"):
        pkg.add(a, b, ro)
    odd = np.ndarray((4,), np.float32, buffer=bytearray(64), strides=(6,))
    with pytest.raises(ValueError, match="'x'.*stride of 6 bytes"):
        pkg.axpy(odd, np.zeros(4, np.float32), 1.0)
    with pytest.raises(R.KernelNotFoundError, match="no kernel 'ghost'"):
        pkg.ghost
    with pytest.raises(KeyError):
        pkg["ghost"]
    assert not hasattr(pkg, "ghost")


def test_aliasing(pkg):
    a = rand(6, 8)
    b = rand(6, 8)
    want = a + b
    pkg.add(a, b, a)                 # the exact same view: allowed (in place)
    np.testing.assert_array_equal(a, want)
    big = rand(7, 8)
    with pytest.raises(R.TLError, match="argument 'out' is written by the kernel and overlaps the memory of argument 'a'"):
        pkg.add(big[:6], b, big[1:])
    with pytest.raises(R.TLError, match="'out'.*overlaps.*'b'"):
        pkg.add(a, big[:, :].reshape(7, 8)[:6], big[1:7])
    x = rand(100)
    with pytest.raises(R.TLError, match="argument 'y' .*overlaps.*argument 'x'"):
        pkg.axpy(x[:50], x[25:75], 1.0)
    with pytest.raises(R.TLError, match="overlaps"):
        pkg.axpy(x[::2], x[1::2], 1.0)
    y = x.copy()
    pkg.axpy(y, y, 1.0)              # y += 1 * y, same view
    np.testing.assert_allclose(y, 2 * x)


def _raw(pkg_obj, name):
    """A raw tl_kernel_t* and the library, for errors the Python layer cannot produce."""
    lib = R._library()
    kh = ctypes.c_void_p()
    assert lib.tl_package_kernel(pkg_obj._handle, name.encode(), ctypes.byref(kh)) == 0
    return lib, kh


def _dl(arr, shape=None, strides=None, device=R.kDLCPU, data=-1):
    shape = arr.shape if shape is None else shape
    sh = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    st = None
    if strides is not None:
        st = (ctypes.c_int64 * max(len(strides), 1))(*strides)
    t = R.DLTensor()
    t.data = arr.ctypes.data if data == -1 else data
    t.device.device_type = device
    t.ndim = len(shape)
    t.dtype.code, t.dtype.bits, t.dtype.lanes = R.kDLFloat, 32, 1
    t.shape = ctypes.cast(sh, ctypes.POINTER(ctypes.c_int64))
    if st is not None:
        t.strides = ctypes.cast(st, ctypes.POINTER(ctypes.c_int64))
    return t, (sh, st, arr)


def test_raw_c_errors(pkg):
    lib, kh = _raw(pkg, "rowsum")
    x = rand(3, 4)
    out = np.zeros(3, np.float32)
    rt = pkg._runtime._handle

    def launch(tx, to):
        vals = (R.tl_value_t * 2)()
        vals[0].tensor = ctypes.pointer(tx)
        vals[1].tensor = ctypes.pointer(to)
        st = lib.tl_kernel_launch(kh, vals, 2, None)
        return st, lib.tl_runtime_last_error(rt).decode()

    to, keep_o = _dl(out)
    tx, keep = _dl(x, shape=(3, -4))
    st, msg = launch(tx, to)
    assert st == 1 and "argument 'x'" in msg and "shape[1] must be >= 0, got -4" in msg
    tx, keep = _dl(x, device=2)
    st, msg = launch(tx, to)
    assert st == 1 and "argument 'x'" in msg and "CPU" in msg
    tx, keep = _dl(x, data=None)
    st, msg = launch(tx, to)
    assert st == 1 and "argument 'x'" in msg and "data is NULL" in msg
    tx, keep = _dl(np.zeros((0, 4), np.float32), data=None)   # no elements: NULL data is fine
    st, msg = launch(tx, to)
    assert st == 0
    tx, keep = _dl(x)
    st, msg = launch(tx, to)             # NULL strides: C-contiguous
    assert st == 0
    np.testing.assert_allclose(out, x.sum(1), rtol=1e-5)
    tx, keep = _dl(x, shape=(4,), strides=(1,))
    tx.ndim = 2
    vals = (R.tl_value_t * 2)()
    assert lib.tl_kernel_launch(kh, vals, 1, None) == 1
    assert "takes 2 arguments, got 1" in lib.tl_runtime_last_error(rt).decode()
    assert lib.tl_kernel_launch(kh, vals, 2, None) == 1
    assert "argument 'x'" in lib.tl_runtime_last_error(rt).decode()
    opts = R.tl_launch_options_t()
    assert lib.tl_kernel_launch(kh, vals, 2, ctypes.byref(opts)) == 4      # struct_size 0: not initialized
    assert "tl_launch_options_initialize" in lib.tl_runtime_last_error(rt).decode()


def test_error_is_per_thread(pkg):
    with pytest.raises(R.TLError):
        pkg.fail(rand(2))
    rt = pkg._runtime._handle
    lib = R._library()
    assert "kernel fail" in lib.tl_runtime_last_error(rt).decode()
    seen = []
    t = threading.Thread(target=lambda: seen.append(lib.tl_runtime_last_error(rt).decode()))
    t.start()
    t.join()
    assert seen == [""]


# --- threads ------------------------------------------------------------------------------------

def test_launches_from_many_python_threads(pkg):
    errors = []

    def work(seed):
        try:
            r = np.random.default_rng(seed)
            for _ in range(30):
                a = r.standard_normal((33, 70)).astype(np.float32)
                b = r.standard_normal((33, 70)).astype(np.float32)
                out = np.empty_like(a)
                pkg.add(a, b, out)
                np.testing.assert_array_equal(out, a + b)
                c = np.zeros(5000, np.int64)
                pkg.count(c, grid=5000)
                np.testing.assert_array_equal(c, np.arange(1, 5001))
                x = a.copy()
                s = np.zeros(33, np.float32)
                pkg.rowsum(x, s)
                np.testing.assert_allclose(s, x.sum(1), rtol=1e-4, atol=1e-4)
                try:
                    pkg.add_nogrid(a, b, out)
                except R.TLError as e:
                    assert "no grid rule" in str(e)
                else:
                    raise AssertionError("no error")
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_set_num_threads(package_path):
    rt = R.Runtime(num_threads=1)
    assert rt.num_threads == 1
    p = rt.load(package_path)
    for n in (1, 4, 3, 1, 0, 16):
        rt.set_num_threads(n)
        assert rt.num_threads == (n or os.cpu_count() or 1) or n == 0
        out = np.zeros(20_000, np.int64)
        p.count(out, grid=20_000)
        np.testing.assert_array_equal(out, np.arange(1, 20_001))
        x = rand(100, 77)
        s = np.zeros(100, np.float32)
        p.rowsum(x, s)
        np.testing.assert_allclose(s, x.sum(1), rtol=1e-4, atol=1e-4)
    with pytest.raises(R.TLError, match="num_threads must be >= 0"):
        rt.set_num_threads(-2)
    p.close()
    with pytest.raises(R.TLError, match="closed"):
        p.count(out, grid=1)
    rt.close()


def test_host_parallel_for(package_path):
    lib = R._library()
    calls = []

    @R.tl_parallel_for_fn_t
    def pfor(user, n, fn, ctx):
        calls.append(n)
        for i in reversed(range(n)):
            fn(ctx, i)

    opts = R.tl_runtime_options_t()
    lib.tl_runtime_options_initialize(ctypes.byref(opts))
    opts.num_threads = 4
    opts.parallel_for = ctypes.cast(pfor, ctypes.c_void_p)
    h = ctypes.c_void_p()
    assert lib.tl_runtime_create(ctypes.byref(opts), ctypes.byref(h)) == 0
    rt = R.Runtime.__new__(R.Runtime)
    rt._lib, rt._handle = lib, h
    p = rt.load(package_path)
    out = np.zeros(1000, np.int64)
    p.count(out, grid=1000)
    np.testing.assert_array_equal(out, np.arange(1, 1001))
    x = rand(50, 10)
    s = np.zeros(50, np.float32)
    p.rowsum(x, s)
    np.testing.assert_allclose(s, x.sum(1), rtol=1e-5, atol=1e-5)
    assert calls and all(c >= 1 for c in calls)
    p.close()
    rt.close()


# --- packages: selection and corruption ---------------------------------------------------------

def test_bundle_selection(tmp_path, bundle_bytes):
    feats = R.cpu_features()
    hi = build_bundle(tmp_path / "hi.so", {"FIXTURE_TARGET": '"x86_64-hi"', "FIXTURE_FEATURES": '"sse2"'})
    m = manifest_for([bundle_entry("base", ["sse2"], 10), bundle_entry("hi", ["sse2"], 20),
                      bundle_entry("future", ["sse2", "no_such_feature"], 99),
                      bundle_entry("other", [], 1000, arch="other_arch")])
    path = tmp_path / "multi.tlpkg"
    write_package(path, m, {"bundles/base.so": bundle_bytes, "bundles/hi.so": hi.read_bytes(),
                            "bundles/future.so": b"not loaded", "bundles/other.so": b"not loaded",
                            "include/fixture.h": b""})
    assert "sse2" in feats
    with R.load(path) as p:
        assert p.target == "x86_64-hi"
        c = np.zeros(3, np.int64)
        p.count(c, grid=3)
        assert list(c) == [1, 2, 3]
    only_other = manifest_for([bundle_entry("other", [], 1, arch="other_arch")])
    write_package(path, only_other, {"bundles/other.so": b"x", "include/fixture.h": b""})
    msg = open_error(path)
    assert "no bundle for this machine" in msg and "other" in msg


def test_bundle_table_checks(tmp_path):
    bad_abi = build_bundle(tmp_path / "abi.so", {"FIXTURE_ABI": "99"})
    with pytest.raises(R.TLError, match="ABI version 99") as ei:
        R.load(bad_abi)
    assert ei.value.status_name == "TL_ERROR_VERSION"
    nofeat = build_bundle(tmp_path / "feat.so", {"FIXTURE_FEATURES": '"sse2,no_such_feature"'})
    with pytest.raises(R.TLError, match="no_such_feature") as ei:
        R.load(nofeat)
    assert ei.value.status_name == "TL_ERROR_UNSUPPORTED"


def test_corrupt_payload_sha256(tmp_path, bundle_bytes):
    path = make_pkg(tmp_path / "p.tlpkg", bundle_bytes)
    data = bytearray(path.read_bytes())
    at = data.find(bundle_bytes)
    assert at > 0
    data[at + len(bundle_bytes) // 2] ^= 0x40
    path.write_bytes(bytes(data))
    msg = open_error(path)
    assert "sha256" in msg and "bundles/base.so" in msg


def test_truncated_empty_dir_nonzip_missing(tmp_path, bundle_bytes):
    path = make_pkg(tmp_path / "p.tlpkg", bundle_bytes)
    data = path.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 30):
        t = tmp_path / f"t{cut}.tlpkg"
        t.write_bytes(data[:cut])
        with pytest.raises(R.TLError) as ei:
            R.load(t)
        assert ei.value.status_name == "TL_ERROR_BAD_PACKAGE", str(ei.value)
    e = tmp_path / "empty.tlpkg"
    e.write_bytes(b"")
    assert "empty file" in open_error(e)
    d = tmp_path / "dir.tlpkg"
    d.mkdir()
    assert "is a directory" in open_error(d)
    n = tmp_path / "text.tlpkg"
    n.write_bytes(b"hello, this is not a zip archive\n" * 10)
    assert "not a valid .tlpkg" in open_error(n)
    with pytest.raises(FileNotFoundError, match="missing.tlpkg"):
        R.load(tmp_path / "missing.tlpkg")


def test_versions(tmp_path, bundle_bytes):
    p = make_pkg(tmp_path / "v.tlpkg", bundle_bytes, manifest_for([bundle_entry("base")], format_version=[2, 0]))
    msg = open_error(p)
    assert "2.0" in msg and "1.0" in msg
    p = make_pkg(tmp_path / "v.tlpkg", bundle_bytes, manifest_for([bundle_entry("base")], format_version=[1, 7]))
    with R.load(p) as ok:                  # a newer minor is accepted
        assert ok.kernels
    p = make_pkg(tmp_path / "v.tlpkg", bundle_bytes,
                 manifest_for([bundle_entry("base")], min_runtime_version=[9, 1, 0]))
    msg = open_error(p)
    assert "9.1.0" in msg and "0.1.0" in msg
    p = make_pkg(tmp_path / "v.tlpkg", bundle_bytes, manifest_for([bundle_entry("base")], format="zip"))
    assert "format" in open_error(p)


def _raw_zip(path, entries):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries:
            zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return path


def test_bad_archives(tmp_path, bundle_bytes):
    good = make_pkg(tmp_path / "g.tlpkg", bundle_bytes)
    with zipfile.ZipFile(good) as zf:
        entries = [(i.filename, zf.read(i)) for i in zf.infolist()]
    p = _raw_zip(tmp_path / "dots.tlpkg", entries + [("../evil.txt", b"x")])
    assert "'../evil.txt'" in open_error(p)
    p = _raw_zip(tmp_path / "abs.tlpkg", entries + [("/etc/evil", b"x")])
    assert "unsafe entry name" in open_error(p)
    p = _raw_zip(tmp_path / "inner.tlpkg", entries + [("include/../../x", b"x")])
    assert "unsafe entry name" in open_error(p)
    with pytest.warns(UserWarning):
        p = _raw_zip(tmp_path / "dup.tlpkg", entries + [entries[1]])
    assert "duplicate entry" in open_error(p)
    p = _raw_zip(tmp_path / "nomanifest.tlpkg", entries[1:])
    assert "no manifest.json" in open_error(p)
    p = _raw_zip(tmp_path / "badjson.tlpkg", [("manifest.json", b"{not json")] + entries[1:])
    assert "not valid JSON" in open_error(p)
    p = _raw_zip(tmp_path / "missing.tlpkg", [e for e in entries if e[0] != "include/fixture.h"])
    assert "include/fixture.h" in open_error(p)


def test_manifest_kernel_mismatch(tmp_path, bundle_bytes):
    kernels = KERNELS[:-1] + [("ghost", [])]
    p = make_pkg(tmp_path / "k.tlpkg", bundle_bytes, manifest_for([bundle_entry("base")], kernels=kernels))
    assert "'ghost' is missing from bundle" in open_error(p)
    p = make_pkg(tmp_path / "k.tlpkg", bundle_bytes, manifest_for([bundle_entry("base")], kernels=KERNELS[:3]))
    assert "manifest lists 3 kernels" in open_error(p)
    bad = [(n, [tuple("float64" if (n == "add" and i == 1 and j == 2) else v for j, v in enumerate(p))
                for i, p in enumerate(ps)]) for n, ps in KERNELS]
    p = make_pkg(tmp_path / "k.tlpkg", bundle_bytes, manifest_for([bundle_entry("base")], kernels=bad))
    assert "kernel 'add' param 1" in open_error(p)


def test_package_is_loaded_from_memory(tmp_path, bundle_bytes):
    path = make_pkg(tmp_path / "m.tlpkg", bundle_bytes)
    before = set(os.listdir(tmp_path))
    pkgs = [R.load(path) for _ in range(3)]       # three independent loads of the same package
    assert set(os.listdir(tmp_path)) == before
    maps = open("/proc/self/maps").read()
    assert "memfd:tl-bundle:base" in maps
    for p in pkgs:
        c = np.zeros(4, np.int64)
        p.count(c, grid=4)
        assert list(c) == [1, 2, 3, 4]
    for p in pkgs:
        p.close()
