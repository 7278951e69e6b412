"""Bad arguments at the C boundary (raw tl_kernel_launch through ctypes): each class is refused
with TL_ERROR_INVALID_ARGUMENT and a message naming the argument and what was expected."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import tl._runtime as R


def _tensor(arr, *, data=None, shape=None, strides=None, code=R.kDLFloat, bits=32, byte_offset=0):
    shape = arr.shape if shape is None else shape
    sh = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    t = R.DLTensor()
    t.data = arr.ctypes.data if data is None else data
    t.device.device_type = R.kDLCPU
    t.ndim = len(shape)
    t.dtype.code, t.dtype.bits, t.dtype.lanes = code, bits, 1
    t.shape = ctypes.cast(sh, ctypes.POINTER(ctypes.c_int64))
    keep = [sh, arr]
    if strides is not None:
        st = (ctypes.c_int64 * len(strides))(*strides)
        t.strides = ctypes.cast(st, ctypes.POINTER(ctypes.c_int64))
        keep.append(st)
    t.byte_offset = byte_offset
    return t, keep


def _launch(pkg, name, tensors):
    lib = R._library()
    kh = ctypes.c_void_p()
    assert lib.tl_package_kernel(pkg._handle, name.encode(), ctypes.byref(kh)) == 0
    vals = (R.tl_value_t * len(tensors))()
    for i, t in enumerate(tensors):
        vals[i].tensor = ctypes.pointer(t)
    st = lib.tl_kernel_launch(kh, vals, len(tensors), None)
    return st, lib.tl_runtime_last_error(pkg._runtime._handle).decode()


x = np.arange(12, dtype=np.float32).reshape(3, 4)
out = np.zeros(3, np.float32)
raw = np.zeros(64, np.uint8)

CASES = [
    ("wrong dtype", lambda: _tensor(x.astype(np.int32), code=R.kDLInt), "x", "expected dtype float32, got int32"),
    ("wrong rank", lambda: _tensor(x.ravel()), "x", "expected rank 2, got rank 1"),
    ("null data", lambda: _tensor(x, data=0), "x", "data is NULL but the tensor has elements"),
    ("negative shape", lambda: _tensor(x, shape=(3, -1)), "x", "shape[1] must be >= 0"),
    ("misaligned data", lambda: _tensor(raw, data=raw.ctypes.data + 1, shape=(3, 4)), "x",
     "data is misaligned"),
    ("misaligned byte_offset", lambda: _tensor(x, byte_offset=2), "x", "data is misaligned"),
    ("strides outside the address space", lambda: _tensor(x, strides=(2 ** 62, 1)), "x",
     "strides reach outside the address space"),
]


@pytest.mark.parametrize("what,make,arg,expect", CASES, ids=[c[0] for c in CASES])
def test_bad_argument(pkg, what, make, arg, expect):
    tx, keep = make()
    to, keep_o = _tensor(out)
    st, msg = _launch(pkg, "rowsum", [tx, to])
    assert st == 1, (what, msg)
    assert f"kernel rowsum: argument '{arg}'" in msg and expect in msg, msg
    assert np.all(out == 0)                    # nothing ran


def test_aliasing_output_names_both(pkg):
    buf = np.zeros(16, np.float32)
    tx, k1 = _tensor(buf, shape=(2, 4))
    to, k2 = _tensor(buf, data=buf.ctypes.data + 4, shape=(2,))
    st, msg = _launch(pkg, "rowsum", [tx, to])
    assert st == 1 and "argument 'out' is written by the kernel and overlaps the memory of argument 'x'" in msg


def test_options_struct_size_names_both_versions():
    lib = R._library()
    opts = R.tl_runtime_options_t()
    lib.tl_runtime_options_initialize(ctypes.byref(opts))
    assert opts.struct_size == ctypes.sizeof(R.tl_runtime_options_t)
    rt = ctypes.c_void_p()
    opts.struct_size = 12345
    assert lib.tl_runtime_create(ctypes.byref(opts), ctypes.byref(rt)) == 4 and not rt.value
    msg = lib.tl_runtime_last_error(None).decode()
    assert "struct_size is 12345" in msg and "runtime 0.1.0 takes 24 or 48" in msg, msg
    opts.struct_size = 24                      # a 0.1.0 caller without the allocator fields
    assert lib.tl_runtime_create(ctypes.byref(opts), ctypes.byref(rt)) == 0
    lib.tl_runtime_release(rt)
    lib.tl_runtime_options_initialize(ctypes.byref(opts))
    opts.alloc_fn = 1                          # alloc without free
    assert lib.tl_runtime_create(ctypes.byref(opts), ctypes.byref(rt)) == 1
    assert "alloc_fn and free_fn" in lib.tl_runtime_last_error(None).decode()
