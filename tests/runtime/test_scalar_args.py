"""Scalar kernel arguments from Python: each wrong type (TypeError) and each integer outside the
declared dtype's range (tl.ScalarRangeError, an OverflowError) is refused before any launch, with
a message naming the kernel and the argument, identically on the ctypes path and on the C fast
path (tl/_fastcall.c); floats take Python ints/floats and NumPy numbers. Also the argument check
of set_num_threads. The kernel is scalar_bundle.c: scalars(out, b: bool, i8, i32, i64, f: float32)."""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest

import tl
import tl._runtime as R
from rt_helpers import bundle_entry, build_bundle, load_ctypes, manifest_for

FAST_BUILT = bool(glob.glob(os.path.join(os.path.dirname(R.__file__), "_fastcall*.so")))
KERNELS = [("scalars", [("out", "tensor", "int64", 1, "readwrite"), ("b", "scalar", "bool", 0, "none"),
                        ("i8", "scalar", "int8", 0, "none"), ("i32", "scalar", "int32", 0, "none"),
                        ("i64", "scalar", "int64", 0, "none"), ("f", "scalar", "float32", 0, "none")])]
GOOD = (True, 1, 2, 3, 1.25)     # b, i8, i32, i64, f


@pytest.fixture(scope="module")
def scalar_pkg_path(tmp_path_factory):
    from tlc.package.format import write_package
    d = tmp_path_factory.mktemp("scalars")
    so = build_bundle(d / "scalars.so", source=os.path.join(os.path.dirname(__file__), "scalar_bundle.c"))
    path = d / "scalars.tlpkg"
    write_package(path, manifest_for([bundle_entry("base")], kernels=KERNELS),
                  {"bundles/base.so": so.read_bytes(), "include/fixture.h": b"/* scalars */\n"})
    return path


def _open(path, fast):
    if fast:
        if not (FAST_BUILT and R.fastcall_enabled()):
            pytest.skip("tl._fastcall is not built or TL_FASTCALL=0")
        p = R.load(path)
        assert not isinstance(p._life, R._Life)
        return p
    return load_ctypes(path)


@pytest.fixture(scope="module", params=["fast", "ctypes"])
def spkg(request, scalar_pkg_path):
    p = _open(scalar_pkg_path, request.param == "fast")
    yield p
    p.close()


def _call(p, **over):
    names = ("b", "i8", "i32", "i64", "f")
    args = dict(zip(names, GOOD), **over)
    out = np.zeros(6, np.int64)
    p.scalars(out, *(args[n] for n in names))
    return out


def test_good_values(spkg):
    np.testing.assert_array_equal(_call(spkg), [1, 1, 2, 3, 5, 1])
    lim = dict(i8=-128, i32=2**31 - 1, i64=-2**63)
    np.testing.assert_array_equal(_call(spkg, **lim)[1:4], [-128, 2**31 - 1, -2**63])
    np.testing.assert_array_equal(_call(spkg, i8=127, i32=-2**31, i64=2**63 - 1)[1:4], [127, -2**31, 2**63 - 1])
    # NumPy integers, bools for ints and floats, NumPy floats; float32 rounds (not an error)
    out = _call(spkg, b=0, i8=np.int8(-5), i32=np.int64(7), i64=True, f=np.float32(2.5))
    np.testing.assert_array_equal(out, [0, -5, 7, 1, 10, 1])
    assert _call(spkg, f=3)[4] == 12
    assert _call(spkg, f=np.float64(0.25))[4] == 1
    assert _call(spkg, f=True)[4] == 4
    assert _call(spkg, f=np.int32(-2))[4] == -8
    assert _call(spkg, b=2.5)[0] == 1 and _call(spkg, b=np.bool_(False))[0] == 0


RANGE_CASES = [
    ("i64", 2**70, "(int64) out of range [-2**63, (2**63 - 1)]: 2**70"),
    ("i64", 2**63, "(int64) out of range [-2**63, (2**63 - 1)]: 2**63"),
    ("i64", -2**63 - 1, "(int64) out of range"),
    ("i64", 2**64, ": 2**64"),                      # wrapped to 0 before the fix
    ("i32", 2**31, "(int32) out of range [-2147483648, 2147483647]: 2147483648"),
    ("i32", -2**31 - 1, "(int32) out of range"),
    ("i32", 2**40, "(int32) out of range"),
    ("i32", 2**64 + 5, "(int32) out of range"),     # wrapped to 5 before the fix
    ("i32", 2**70, ": 2**70"),
    ("i8", 128, "(int8) out of range [-128, 127]: 128"),
    ("i8", -129, "(int8) out of range"),
    ("i8", np.int64(300), "(int8) out of range"),
]


@pytest.mark.parametrize("arg,value,expect", RANGE_CASES, ids=[f"{c[0]}={c[1]}" for c in RANGE_CASES])
def test_int_out_of_range(spkg, arg, value, expect):
    out = np.zeros(6, np.int64)
    args = dict(zip(("b", "i8", "i32", "i64", "f"), GOOD), **{arg: value})
    with pytest.raises(OverflowError) as e:
        spkg.scalars(out, *args.values())
    assert isinstance(e.value, R.ScalarRangeError) and isinstance(e.value, R.TLError)
    assert tl.ScalarRangeError is R.ScalarRangeError
    msg = str(e.value)
    assert msg.startswith(f"kernel scalars: argument '{arg}' ") and expect in msg, msg
    assert not out.any()                       # nothing launched


TYPE_CASES = [
    ("f", "2"), ("f", None), ("f", b"2"), ("f", np.array([2.0])), ("f", np.array(2.0)), ("f", 1j), ("f", [1.0]),
    ("i64", "2"), ("i64", None), ("i64", 2.0), ("i64", np.float64(2)), ("i64", np.array([3])), ("i64", np.array(3)),
    ("i32", "7"), ("i32", 1.5), ("i8", None),
    ("b", "yes"), ("b", None), ("b", np.array([True])), ("b", []),
]


@pytest.mark.parametrize("arg,value", TYPE_CASES, ids=[f"{c[0]}={c[1]!r}" for c in TYPE_CASES])
def test_wrong_type(spkg, arg, value):
    out = np.zeros(6, np.int64)
    args = dict(zip(("b", "i8", "i32", "i64", "f"), GOOD), **{arg: value})
    with pytest.raises(TypeError) as e:
        spkg.scalars(out, *args.values())
    msg = str(e.value)
    assert msg.startswith(f"kernel scalars: argument '{arg}' expects a "), msg
    assert f"got {type(value).__name__}" in msg, msg
    assert not out.any()


def test_float_too_large_for_a_double(spkg):
    out = np.zeros(6, np.int64)
    with pytest.raises(OverflowError, match=r"kernel scalars: argument 'f' \(float32\) out of range"):
        spkg.scalars(out, True, 1, 2, 3, 10**400)
    assert not out.any()


def test_both_paths_raise_the_same(scalar_pkg_path):
    """The same exception type and message from the C fast path and from ctypes."""
    fast, slow = _open(scalar_pkg_path, True), _open(scalar_pkg_path, False)
    try:
        for arg, value, _ in RANGE_CASES + [(a, v, None) for a, v in TYPE_CASES] + [("f", 10**400, None)]:
            got = []
            for p in (fast, slow):
                args = dict(zip(("b", "i8", "i32", "i64", "f"), GOOD), **{arg: value})
                with pytest.raises(Exception) as e:
                    p.scalars(np.zeros(6, np.int64), *args.values())
                got.append((type(e.value), str(e.value)))
            assert got[0] == got[1], (arg, value, got)
    finally:
        fast.close()
        slow.close()


@pytest.mark.parametrize("n", [1.5, 2.0, "2", None, True, np.float64(1)])
def test_set_num_threads_type(n):
    rt = R.Runtime(num_threads=2)
    try:
        with pytest.raises(TypeError, match="set_num_threads: expects an int"):
            rt.set_num_threads(n)
        assert rt.num_threads == 2
    finally:
        rt.close()


def test_set_num_threads_range():
    rt = R.Runtime(num_threads=2)
    try:
        for n in (2**32 + 1, 2**70, -2**40):   # 2**32 + 1 was taken as 1 before
            with pytest.raises(ValueError, match="set_num_threads: num_threads must be >= 0"):
                rt.set_num_threads(n)
            assert rt.num_threads == 2
        with pytest.raises(R.TLError, match="num_threads must be >= 0"):
            rt.set_num_threads(-1)
        rt.set_num_threads(np.int64(3))
        assert rt.num_threads == 3
    finally:
        rt.close()


def test_tl_set_num_threads_checks_too():
    n = tl.num_threads()
    with pytest.raises(TypeError):
        tl.set_num_threads(1.5)
    assert tl.num_threads() == n
