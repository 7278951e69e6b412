"""ctypes binding of libtl_runtime (libtl_runtime/include/tl/runtime.h).

    pkg = tl.load("build/ops.tlpkg")       # a Package; verifies and picks the best bundle
    pkg.softmax(x, y)                      # Kernel objects, called with arrays in signature order
    pkg["matmul"](a, b, c, grid=(4, 6))    # an explicit grid overrides the kernel's grid rule

The structures below mirror the C headers field by field; tests/runtime/test_ctypes_header.py
checks them (and every function's parameter count) against the headers with pycparser.
Library lookup (tl._resources.runtime_library): $TL_RUNTIME_LIB, else the wheel's
tl/_lib/libtl_runtime.so, else a source checkout's build/runtime/libtl_runtime.so.

Kernel calls take the C fast path of the extension tl._fastcall (tl/_fastcall.c, built by
`pip install -e .`) when it is built and passes its self-check at first library load; otherwise
(or with TL_FASTCALL=0) every call goes through ctypes (Kernel._call_slow). Both give the same
results and the same errors: the fast path hands any argument it does not take as-is to
_call_slow. ``fastcall_enabled()`` says which one this process uses.
"""
from __future__ import annotations

import ctypes
import json
import os
import threading
from collections import namedtuple
from ctypes import (POINTER, Structure, Union, c_char_p, c_double, c_int32, c_int64, c_uint8, c_uint16,
                    c_uint32, c_uint64, c_void_p)

import numpy as np

try:  # the optional C extension (tl/_fastcall.c); None when not built
    from tl import _fastcall as _FASTCALL_MODULE
except ImportError:  # pragma: no cover - depends on the build
    _FASTCALL_MODULE = None

__all__ = ["TLError", "KernelNotFoundError", "ScalarRangeError",
           "Package", "Kernel", "Runtime", "Param", "load", "default_runtime",
           "set_num_threads", "num_threads", "cpu_features", "version", "library_path", "fastcall_enabled"]

# ---------------------------------------------------------------------------------------------
# constants (bundle_abi.h, dlpack_compat.h, runtime.h)

TL_BUNDLE_ABI_VERSION = 1
TL_MAX_RANK = 8
TL_MAX_GRID = 3
TL_WORKSPACE_ALIGN = 64
TL_DIM_NONE = -1
TL_MAX_DIM_SYMBOLS = 64

DTYPE_NAMES = ("bool", "int8", "int32", "int64", "float16", "bfloat16", "float32")
(TL_DTYPE_BOOL, TL_DTYPE_INT8, TL_DTYPE_INT32, TL_DTYPE_INT64, TL_DTYPE_FLOAT16, TL_DTYPE_BFLOAT16,
 TL_DTYPE_FLOAT32) = range(7)
TL_PARAM_TENSOR, TL_PARAM_SCALAR = 0, 1
ACCESS_NAMES = ("none", "read", "write", "readwrite")
TL_ACCESS_WRITE = 2

kDLCPU = 1
kDLInt, kDLUInt, kDLFloat, kDLBfloat, kDLBool = 0, 1, 2, 4, 6

STATUS_NAMES = {0: "TL_OK", 1: "TL_ERROR_INVALID_ARGUMENT", 2: "TL_ERROR_NOT_FOUND", 3: "TL_ERROR_BAD_PACKAGE",
                4: "TL_ERROR_VERSION", 5: "TL_ERROR_UNSUPPORTED", 6: "TL_ERROR_OUT_OF_MEMORY",
                7: "TL_ERROR_INTERNAL"}
TL_OK, TL_ERROR_INVALID_ARGUMENT, TL_ERROR_NOT_FOUND = 0, 1, 2
TL_MAX_THREADS = 1024


class TLError(RuntimeError):
    """An error reported by libtl_runtime; ``status`` is the tl_status_t code (0 when raised in Python)."""

    def __init__(self, message: str, status: int = 0):
        super().__init__(message)
        self.status = status

    @property
    def status_name(self) -> str:
        return STATUS_NAMES.get(self.status, str(self.status))


class KernelNotFoundError(TLError, AttributeError, KeyError):
    """No kernel of that name in the package (also an AttributeError and a KeyError)."""

    def __str__(self):
        return self.args[0] if self.args else ""


class PackageNotFoundError(TLError, FileNotFoundError):
    """The package path does not exist."""

    def __str__(self):
        return self.args[0] if self.args else ""


# ---------------------------------------------------------------------------------------------
# structures (field names and order as in the C headers)

class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLPackVersion(Structure):
    _fields_ = [("major", c_uint32), ("minor", c_uint32)]


class DLManagedTensor(Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", c_void_p)]


class DLManagedTensorVersioned(Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", c_void_p), ("deleter", c_void_p),
                ("flags", c_uint64), ("dl_tensor", DLTensor)]


class tl_param_t(Structure):
    _fields_ = [("name", c_char_p), ("kind", c_uint32), ("dtype", c_uint32), ("rank", c_uint32),
                ("access", c_uint32)]


class tl_tensor_t(Structure):
    _fields_ = [("data", c_void_p), ("shape", c_int64 * TL_MAX_RANK), ("strides", c_int64 * TL_MAX_RANK)]


class tl_arg_t(Union):
    _fields_ = [("tensor", POINTER(tl_tensor_t)), ("i64", c_int64), ("f64", c_double)]


class tl_grid_t(Structure):
    _fields_ = [("size", c_int64 * TL_MAX_GRID)]


tl_kernel_entry_t = ctypes.CFUNCTYPE(c_int32, POINTER(tl_arg_t), POINTER(tl_grid_t), c_int64, c_int64, c_void_p)
tl_grid_fn_t = ctypes.CFUNCTYPE(c_int32, POINTER(tl_arg_t), POINTER(tl_grid_t))


class tl_kernel_desc_t(Structure):
    _fields_ = [("name", c_char_p), ("num_params", c_uint32), ("params", POINTER(tl_param_t)),
                ("entry", c_void_p), ("grid", c_void_p), ("workspace_bytes", c_uint64),
                ("constexprs", c_char_p), ("source", c_char_p),
                ("dims", POINTER(c_int32)), ("dim_names", POINTER(c_char_p)), ("num_dim_names", c_uint32),
                ("device_entry", c_char_p), ("block_threads", c_uint32), ("shared_bytes", c_uint32)]


class tl_host_env_t(Structure):
    _fields_ = [("struct_size", c_uint32), ("abi_version", c_uint32), ("user_context", c_void_p)]


class tl_bundle_t(Structure):
    _fields_ = [("abi_version", c_uint32), ("struct_size", c_uint32), ("kernel_desc_size", c_uint32),
                ("param_size", c_uint32), ("tensor_size", c_uint32), ("num_kernels", c_uint32),
                ("kernels", POINTER(tl_kernel_desc_t)), ("target", c_char_p), ("features", c_char_p),
                ("device_image", POINTER(c_uint8)), ("device_image_size", c_uint64), ("device_image_format", c_char_p)]


tl_parallel_task_fn_t = ctypes.CFUNCTYPE(None, c_void_p, c_int64)
tl_parallel_for_fn_t = ctypes.CFUNCTYPE(None, c_void_p, c_int64, tl_parallel_task_fn_t, c_void_p)


class tl_runtime_options_t(Structure):
    _fields_ = [("struct_size", c_uint32), ("num_threads", c_int32), ("parallel_for", c_void_p),
                ("user_context", c_void_p), ("alloc_fn", c_void_p), ("free_fn", c_void_p),
                ("alloc_context", c_void_p)]


class tl_launch_options_t(Structure):
    _fields_ = [("struct_size", c_uint32), ("has_grid", c_int32), ("grid", c_int64 * TL_MAX_GRID)]


class tl_launch_ex_options_t(Structure):
    _fields_ = [("struct_size", c_uint32), ("flags", c_uint32), ("stream", c_void_p)]


class tl_package_open_options_t(Structure):
    _fields_ = [("struct_size", c_uint32), ("device_type", c_int32), ("device_id", c_int32)]


class tl_value_t(Structure):
    _fields_ = [("tensor", POINTER(DLTensor)), ("i64", c_int64), ("f64", c_double)]


STRUCTS = {c.__name__: c for c in (DLDevice, DLDataType, DLTensor, DLPackVersion, DLManagedTensor,
                                   DLManagedTensorVersioned, tl_param_t, tl_tensor_t, tl_arg_t, tl_grid_t,
                                   tl_kernel_desc_t, tl_host_env_t, tl_bundle_t, tl_runtime_options_t,
                                   tl_launch_options_t, tl_launch_ex_options_t, tl_package_open_options_t,
                                   tl_value_t)}

_rt_p, _pkg_p, _kernel_p = c_void_p, c_void_p, c_void_p
# name -> (restype, argtypes), every function of runtime.h
FUNCTIONS = {
    "tl_runtime_options_initialize": (None, [POINTER(tl_runtime_options_t)]),
    "tl_launch_options_initialize": (None, [POINTER(tl_launch_options_t)]),
    "tl_launch_ex_options_initialize": (None, [POINTER(tl_launch_ex_options_t)]),
    "tl_runtime_create": (c_int32, [POINTER(tl_runtime_options_t), POINTER(_rt_p)]),
    "tl_runtime_retain": (c_int32, [_rt_p]),
    "tl_runtime_release": (c_int32, [_rt_p]),
    "tl_runtime_last_error": (c_char_p, [_rt_p]),
    "tl_runtime_set_num_threads": (c_int32, [_rt_p, c_int32]),
    "tl_runtime_num_threads": (c_int32, [_rt_p]),
    "tl_runtime_cpu_features": (c_char_p, [_rt_p]),
    "tl_runtime_version": (c_char_p, []),
    "tl_package_open": (c_int32, [_rt_p, c_char_p, POINTER(_pkg_p)]),
    "tl_package_open_options_initialize": (None, [POINTER(tl_package_open_options_t)]),
    "tl_package_open_ex": (c_int32, [_rt_p, c_char_p, POINTER(tl_package_open_options_t), POINTER(_pkg_p)]),
    "tl_package_open_bundle": (c_int32, [_rt_p, c_char_p, POINTER(_pkg_p)]),
    "tl_package_retain": (c_int32, [_pkg_p]),
    "tl_package_release": (c_int32, [_pkg_p]),
    "tl_package_target": (c_char_p, [_pkg_p]),
    "tl_package_device": (DLDevice, [_pkg_p]),
    "tl_package_device_name": (c_char_p, [_pkg_p]),
    "tl_package_kernel_count": (c_uint32, [_pkg_p]),
    "tl_package_kernel_name": (c_char_p, [_pkg_p, c_uint32]),
    "tl_package_kernel": (c_int32, [_pkg_p, c_char_p, POINTER(_kernel_p)]),
    "tl_kernel_desc": (POINTER(tl_kernel_desc_t), [_kernel_p]),
    "tl_kernel_launch": (c_int32, [_kernel_p, POINTER(tl_value_t), c_uint32, POINTER(tl_launch_options_t)]),
    "tl_kernel_launch_ex": (c_int32, [_kernel_p, POINTER(tl_value_t), c_uint32, POINTER(c_int64),
                                      POINTER(tl_launch_ex_options_t)]),
    "tl_package_synchronize": (c_int32, [_pkg_p, c_void_p]),
    "tl_value_from_dlpack": (c_int32, [_kernel_p, c_uint32, POINTER(DLManagedTensorVersioned), POINTER(tl_value_t)]),
    "tl_kernel_check": (c_int32, [_kernel_p, c_char_p, c_uint64]),
}

# ---------------------------------------------------------------------------------------------
# the library

_lib = None
_lib_lock = threading.Lock()


def library_path() -> str:
    """Where the runtime library is looked for: $TL_RUNTIME_LIB, else the wheel's tl/_lib, else a
    source checkout's build/runtime (tl._resources.runtime_library)."""
    from tl._resources import runtime_library
    return runtime_library()


def _library():
    global _lib
    if _lib is not None:
        return _lib
    with _lib_lock:
        if _lib is None:
            path = library_path()
            if not os.path.exists(path):
                raise TLError(f"libtl_runtime not found at {path}: in a source checkout run `make runtime`, "
                              f"an installed wheel carries it in tl/_lib (reinstall tl-compiler), "
                              f"or set TL_RUNTIME_LIB to the library's path")
            lib = ctypes.CDLL(path)
            for name, (restype, argtypes) in FUNCTIONS.items():
                fn = getattr(lib, name)
                fn.restype = restype
                fn.argtypes = argtypes
            _configure_fastcall(lib)
            _lib = lib
    return _lib


_FAST = None   # tl._fastcall once configured and self-checked, else None (ctypes path)


def fastcall_enabled() -> bool:
    """True when kernel calls of packages opened from now on use the C extension tl._fastcall."""
    _library()
    return _FAST is not None


def _configure_fastcall(lib) -> None:
    """Hands tl_kernel_launch and the dtype table to tl._fastcall, then checks that it reads
    ndarrays (data, shape, strides, dtype, writeable) exactly as NumPy reports them."""
    global _FAST
    _FAST = None
    fc = _FASTCALL_MODULE
    if fc is None or os.environ.get("TL_FASTCALL", "1") == "0":
        return
    table = tuple((dt, code, bits, dt.itemsize, dt == _UINT16) for dt, (code, bits) in _NP_TO_DL.items())
    try:
        fc.configure(np.ndarray, ctypes.cast(lib.tl_kernel_launch, c_void_p).value, table)
        base = np.arange(24, dtype=np.float32).reshape(4, 6)
        ro = np.ones((2, 3), np.int64)
        ro.flags.writeable = False
        samples = (base, base.T, base[::2, 1::3], base[1:, ::-1], np.ones((), np.float32),
                   ro, np.zeros((1, 2, 3, 4, 5, 6, 7, 8), np.bool_), np.empty((0, 5), np.float16))
        for a in samples:
            data, nd, shape, strides, descr, writeable = fc.array_fields(a)
            if (data != a.__array_interface__["data"][0] or nd != a.ndim or shape != a.shape
                    or strides != a.strides or descr is not a.dtype or writeable != a.flags.writeable):
                return
    except Exception:  # noqa: BLE001 - a mismatching build: stay on the ctypes path
        return
    _FAST = fc


def _text(b) -> str:
    return b.decode("utf-8", "replace") if b is not None else ""


# ---------------------------------------------------------------------------------------------
# runtime

class Runtime:
    """A libtl_runtime runtime handle (a thread pool and the per-thread error messages)."""

    def __init__(self, num_threads: int = 0):
        lib = _library()
        self._lib = lib
        opts = tl_runtime_options_t()
        lib.tl_runtime_options_initialize(ctypes.byref(opts))
        opts.num_threads = int(num_threads)
        handle = c_void_p()
        status = lib.tl_runtime_create(ctypes.byref(opts), ctypes.byref(handle))
        if status != TL_OK:
            raise TLError(f"tl_runtime_create failed ({STATUS_NAMES.get(status, status)})", status)
        self._handle = handle

    def _error(self, status: int, cls=TLError):
        msg = _text(self._lib.tl_runtime_last_error(self._handle)) or STATUS_NAMES.get(status, str(status))
        return cls(msg, status)

    @property
    def num_threads(self) -> int:
        return self._lib.tl_runtime_num_threads(self._handle)

    def set_num_threads(self, n: int) -> None:
        """n threads (0: one per online CPU); TypeError unless n is an int (not a bool, not a float)."""
        if isinstance(n, (bool, np.bool_)) or not hasattr(type(n), "__index__"):
            raise TypeError(f"set_num_threads: expects an int number of threads, got {type(n).__name__} {n!r}")
        n = n.__index__()
        if not -2 ** 31 <= n <= 2 ** 31 - 1:     # else the runtime's own check (TLError) says why
            raise ValueError(f"set_num_threads: num_threads must be >= 0 (0: one per online CPU) and "
                             f"at most {TL_MAX_THREADS}, got {_show_int(n)}")
        status = self._lib.tl_runtime_set_num_threads(self._handle, n)
        if status != TL_OK:
            raise self._error(status)

    @property
    def cpu_features(self) -> list:
        return [f for f in _text(self._lib.tl_runtime_cpu_features(self._handle)).split(",") if f]

    def load(self, path) -> "Package":
        return Package(path, runtime=self)

    def close(self) -> None:
        h, self._handle = getattr(self, "_handle", None), None
        if h and h.value:
            self._lib.tl_runtime_release(h)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


_default_runtime = None
_default_lock = threading.Lock()


def default_runtime() -> Runtime:
    """The process-wide runtime, created at first use (one thread per online CPU)."""
    global _default_runtime
    if _default_runtime is None:
        with _default_lock:
            if _default_runtime is None:
                _default_runtime = Runtime()
    return _default_runtime


def set_num_threads(n: int) -> None:
    default_runtime().set_num_threads(n)


def num_threads() -> int:
    return default_runtime().num_threads


def cpu_features() -> list:
    return default_runtime().cpu_features


def version() -> str:
    return _text(_library().tl_runtime_version())


# ---------------------------------------------------------------------------------------------
# packages and kernels

Param = namedtuple("Param", "name kind dtype rank access")

_NP_TO_DL = {
    np.dtype(np.bool_): (kDLBool, 8),
    np.dtype(np.int8): (kDLInt, 8), np.dtype(np.int16): (kDLInt, 16),
    np.dtype(np.int32): (kDLInt, 32), np.dtype(np.int64): (kDLInt, 64),
    np.dtype(np.uint8): (kDLUInt, 8), np.dtype(np.uint16): (kDLUInt, 16),
    np.dtype(np.uint32): (kDLUInt, 32), np.dtype(np.uint64): (kDLUInt, 64),
    np.dtype(np.float16): (kDLFloat, 16), np.dtype(np.float32): (kDLFloat, 32),
    np.dtype(np.float64): (kDLFloat, 64),
}
try:  # bfloat16 arrays from ml_dtypes, when installed
    import ml_dtypes as _ml_dtypes
    _NP_TO_DL[np.dtype(_ml_dtypes.bfloat16)] = (kDLBfloat, 16)
except ImportError:  # pragma: no cover - optional
    _ml_dtypes = None
_UINT16 = np.dtype(np.uint16)
_ndarray = np.ndarray


class Package:
    """An opened .tlpkg (or bundle .so). Kernels are attributes (``pkg.softmax``) and items
    (``pkg["softmax"]``); ``kernels`` lists their names, ``target`` is the chosen bundle variant."""

    def __init__(self, path, runtime: Runtime | None = None):
        self._runtime = runtime if runtime is not None else default_runtime()
        self._lib = self._runtime._lib
        self._handle = None
        self._kernels = {}
        self.path = os.fspath(path)
        if isinstance(self.path, bytes):
            self.path = self.path.decode()
        # running calls (enter/leave) vs close(): the C counter when calls take the fast path
        self._life = _FAST.Life() if _FAST is not None else _Life()
        rt = self._runtime._handle
        handle = c_void_p()
        opener = (self._lib.tl_package_open_bundle if self.path.endswith(".so")
                  else self._lib.tl_package_open)
        status = opener(rt, self.path.encode(), ctypes.byref(handle))
        if status != TL_OK:
            raise self._runtime._error(status, PackageNotFoundError if status == TL_ERROR_NOT_FOUND else TLError)
        self._handle = handle
        self.target = _text(self._lib.tl_package_target(handle))
        n = self._lib.tl_package_kernel_count(handle)
        self.kernels = [_text(self._lib.tl_package_kernel_name(handle, i)) for i in range(n)]

    def kernel(self, name: str) -> "Kernel":
        k = self._kernels.get(name)
        if k is not None:
            return k
        # the lookup counts as a running call: the ctypes call drops the GIL, and a close() from
        # another thread must not release the package under it
        if self._handle is None or not self._life.enter():
            raise TLError(f"package {self.path} is closed")
        try:
            kh = c_void_p()
            status = self._lib.tl_package_kernel(self._handle, name.encode(), ctypes.byref(kh))
            if status != TL_OK:
                raise self._runtime._error(status, KernelNotFoundError if status == TL_ERROR_NOT_FOUND else TLError)
            k = self._kernels.setdefault(name, Kernel(self, kh))
            if self._life.closing:      # close() ran meanwhile and did not see this kernel
                k._handle = None
        finally:
            self._leave()
        return k

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self.kernel(name)

    def __getitem__(self, name):
        return self.kernel(name)

    def __contains__(self, name):
        return name in self.kernels

    def __iter__(self):
        return (self.kernel(n) for n in self.kernels)

    def __len__(self):
        return len(self.kernels)

    def __dir__(self):
        return list(super().__dir__()) + list(self.kernels)

    def __repr__(self):
        state = "closed" if self._handle is None or self._life.closing else self.target
        return f"<tl.Package {self.path!r} [{state}] kernels={self.kernels}>"

    def close(self) -> None:
        """Releases the package; its kernels can no longer be called. Safe while other threads run
        its kernels: new calls raise TLError, and the release happens when the last running call
        returns (here when none is running)."""
        life = getattr(self, "_life", None)
        if life is None:
            return
        state = life.close()   # 0: already closing; 1: the last running call releases; 2: release now
        if state == 0:
            return
        for k in list(self._kernels.values()):
            k._handle = None
        if state == 2:
            self._release()

    def _release(self) -> None:
        h, self._handle = self._handle, None
        if h is not None and h.value:
            self._lib.tl_package_release(h)

    def _enter(self, kname: str) -> None:
        if not self._life.enter():
            raise TLError(f"kernel {kname}: its package is closed")

    def _leave(self) -> None:
        if self._life.leave():
            self._release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


class _Life:
    """The running-call counter of a package for the ctypes path (tl._fastcall.Life is the same
    under the GIL): enter() -> False once closing; leave() -> True when the package must now be
    released; close() -> 0 already closing, 1 released by the last running call, 2 release now."""

    def __init__(self):
        self._lock = threading.Lock()
        self.inflight = 0
        self.closing = 0

    def enter(self) -> bool:
        with self._lock:
            if self.closing:
                return False
            self.inflight += 1
            return True

    def leave(self) -> bool:
        with self._lock:
            self.inflight -= 1
            return bool(self.closing and self.inflight == 0)

    def close(self) -> int:
        with self._lock:
            if self.closing:
                return 0
            self.closing = 1
            return 2 if self.inflight == 0 else 1


class _Buffers:
    """Per-thread launch buffers of one kernel, wired once: values[i].tensor -> tensors[j],
    tensors[j].shape/strides -> dims."""

    def __init__(self, num_params, tensor_slots):
        n = max(num_params, 1)
        self.values = (tl_value_t * n)()
        nt = max(len(tensor_slots), 1)
        self.tensors = (DLTensor * nt)()
        self.dims = (c_int64 * (nt * 2 * TL_MAX_RANK))()
        base = ctypes.addressof(self.dims)
        for j, i in enumerate(tensor_slots):
            t = self.tensors[j]
            t.device.device_type = kDLCPU
            t.device.device_id = 0
            t.dtype.lanes = 1
            t.shape = ctypes.cast(base + 16 * j * 8, POINTER(c_int64))
            t.strides = ctypes.cast(base + (16 * j + 8) * 8, POINTER(c_int64))
            self.values[i].tensor = ctypes.pointer(t)
        self.options = tl_launch_options_t()
        self.options.struct_size = ctypes.sizeof(tl_launch_options_t)
        self.options.has_grid = 1
        self.options_p = ctypes.byref(self.options)
        self.values_p = ctypes.cast(self.values, POINTER(tl_value_t))


_KernelBase = _FASTCALL_MODULE.KernelBase if _FASTCALL_MODULE is not None else object


class Kernel(_KernelBase):
    """A kernel of a package: ``k(*args, grid=None)`` with args in signature order (NumPy arrays
    or objects with ``__dlpack__`` for tensors, Python numbers for scalars). Calls run in C
    (tl/_fastcall.c) when the extension is in use, else through ctypes (``_call_slow``)."""

    def __init__(self, package: Package, handle):
        self._package = package
        self._lib = package._lib
        self._launch = package._lib.tl_kernel_launch
        self._runtime = package._runtime
        self._handle = handle
        d = self._lib.tl_kernel_desc(handle).contents
        self.name = _text(d.name)
        self.source = _text(d.source)
        try:
            self.constexprs = json.loads(_text(d.constexprs) or "{}")
        except ValueError:
            self.constexprs = {}
        self.has_grid = bool(d.grid)
        self.workspace_bytes = int(d.workspace_bytes)
        params = []
        for i in range(d.num_params):
            p = d.params[i]
            params.append(Param(_text(p.name), "tensor" if p.kind == TL_PARAM_TENSOR else "scalar",
                                DTYPE_NAMES[p.dtype] if p.dtype < len(DTYPE_NAMES) else str(p.dtype),
                                int(p.rank), ACCESS_NAMES[p.access] if p.access < 4 else str(p.access)))
        self.params = params
        self._num_params = len(params)
        slots = [i for i in range(len(params)) if d.params[i].kind == TL_PARAM_TENSOR]
        self._slots = slots
        # per param: (index, is_tensor, tensor slot, dtype code, writes, name)
        plan, j = [], 0
        for i in range(len(params)):
            p = d.params[i]
            if p.kind == TL_PARAM_TENSOR:
                plan.append((i, True, j, int(p.dtype), bool(p.access & TL_ACCESS_WRITE), params[i].name))
                j += 1
            else:
                plan.append((i, False, -1, int(p.dtype), False, params[i].name))
        self._plan = plan
        self._tls = threading.local()
        if _KernelBase is not object:   # the C call path: on when the package got a C Life
            self._fast_init(package, self._runtime, package._life,
                            tuple((is_t, dt, writes, params[i].rank) for i, is_t, _, dt, writes, _ in plan))

    def __repr__(self):
        sig = ", ".join(f"{p.name}: {p.dtype}" + (f"[{p.rank}d]" if p.kind == "tensor" else "") for p in self.params)
        return f"<tl.Kernel {self.name}({sig})>"

    @property
    def signature(self) -> str:
        return f"{self.name}(" + ", ".join(p.name for p in self.params) + ")"

    def _buffers(self):
        try:
            return self._tls.buf
        except AttributeError:
            buf = self._tls.buf = _Buffers(self._num_params, self._slots)
            return buf

    def _call_slow(self, *args, grid=None, **kwargs):
        """The ctypes call path (and every argument the C fast path does not take as-is)."""
        if kwargs:
            raise TypeError(f"kernel arguments are positional: {self.signature} "
                            f"(got keyword argument{'s' if len(kwargs) > 1 else ''} {', '.join(kwargs)})")
        if len(args) != self._num_params:
            raise TypeError(f"kernel {self.name} takes {self._num_params} arguments "
                            f"({', '.join(p.name for p in self.params)}), got {len(args)}")
        handle = self._handle
        if handle is None:
            raise TLError(f"kernel {self.name}: its package is closed")
        buf = self._buffers()
        values = buf.values
        tensors = buf.tensors
        dims = buf.dims
        keep = None
        for i, is_tensor, j, dt, writes, name in self._plan:
            a = args[i]
            if is_tensor:
                if type(a) is not _ndarray:
                    a = _as_array(a, name, self.name)
                    if keep is None:
                        keep = []
                    keep.append(a)
                t = tensors[j]
                dl = _NP_TO_DL.get(a.dtype)
                if dl is None:
                    raise TypeError(f"kernel {self.name}: argument '{name}' has unsupported dtype {a.dtype}")
                if dt == TL_DTYPE_BFLOAT16 and a.dtype == _UINT16:
                    dl = (kDLBfloat, 16)
                if writes and not a.flags.writeable:
                    raise ValueError(f"kernel {self.name}: argument '{name}' is written by the kernel "
                                     f"but the array is read-only")
                t.dtype.code, t.dtype.bits = dl
                nd = a.ndim
                if nd > TL_MAX_RANK:
                    raise TLError(f"kernel {self.name}: argument '{name}' (#{i}): expected rank "
                                  f"{self.params[i].rank}, got rank {nd}", 1)
                t.ndim = nd
                t.data = a.__array_interface__["data"][0]
                if nd:
                    o = 16 * j
                    dims[o:o + nd] = a.shape
                    isz = a.itemsize
                    st = a.strides
                    for d in range(nd):
                        s = st[d]
                        if s % isz and a.shape[d] > 1:
                            raise ValueError(f"kernel {self.name}: argument '{name}' has a stride of {s} bytes, "
                                             f"not a multiple of its itemsize {isz}")
                        dims[o + 8 + d] = s // isz
            else:
                v = values[i]
                if dt <= TL_DTYPE_INT64:
                    v.i64 = _int_scalar(a, dt, name, self.name)
                else:
                    v.f64 = _float_scalar(a, dt, name, self.name)
        if grid is None:
            opts = None
        else:
            g = _grid(grid, self.name)
            o = buf.options.grid
            o[0], o[1], o[2] = g
            opts = buf.options_p
        package = self._package
        package._enter(self.name)
        try:
            status = self._launch(handle, buf.values_p, self._num_params, opts)
        finally:
            package._leave()
        if status:
            raise self._runtime._error(status)
        del keep
        return None

    if _KernelBase is object:
        __call__ = _call_slow

        def _call2d(self, *args) -> bool:
            """With tl._fastcall: the call with every tensor viewed as (rows, cols) like
            tl.ops._to2d, or False (nothing run) to use the general path. Without it: False."""
            return False


_INT_RANGES = {TL_DTYPE_INT8: (-2 ** 7, 2 ** 7 - 1), TL_DTYPE_INT32: (-2 ** 31, 2 ** 31 - 1),
               TL_DTYPE_INT64: (-2 ** 63, 2 ** 63 - 1)}
_FLOAT_SCALAR_TYPES = (int, float, np.integer, np.floating, np.bool_)   # bool is an int


class ScalarRangeError(TLError, OverflowError):
    """A kernel's integer scalar argument outside the range of its declared dtype (raised before
    any launch; an OverflowError and, as the runtime's own range check was, a TLError)."""


def _scalar_type_error(a, dt, name, kname):
    r = repr(a)
    if len(r) > 60:
        r = r[:57] + "..."
    return TypeError(f"kernel {kname}: argument '{name}' expects a {DTYPE_NAMES[dt]} scalar, "
                     f"got {type(a).__name__} {r}")


def _show_int(n: int) -> str:
    m = -n if n < 0 else n
    if m.bit_length() > 32 and m & (m - 1) == 0:
        return f"{'-' if n < 0 else ''}2**{m.bit_length() - 1}"
    if m.bit_length() > 32 and m & (m + 1) == 0:
        return f"{'-' if n < 0 else ''}(2**{m.bit_length()} - 1)"
    s = str(n)
    return s if len(s) <= 40 else f"{s[:20]}...({n.bit_length()} bits)"


def _int_scalar(a, dt, name, kname) -> int:
    """The value of an integer (or bool) kernel scalar; TypeError for a non-number (str, None,
    arrays, floats for int dtypes) and ScalarRangeError outside the dtype's range. The C fast
    path (tl/_fastcall.c) takes the in-range Python ints and leaves everything else to this."""
    if isinstance(a, _ndarray):
        raise _scalar_type_error(a, dt, name, kname)
    if dt == TL_DTYPE_BOOL:
        if isinstance(a, _FLOAT_SCALAR_TYPES):
            return 1 if a else 0
        raise _scalar_type_error(a, dt, name, kname)
    try:
        n = a.__index__()
    except (TypeError, AttributeError, ValueError):
        raise _scalar_type_error(a, dt, name, kname) from None
    lo, hi = _INT_RANGES[dt]
    if not lo <= n <= hi:
        raise ScalarRangeError(f"kernel {kname}: argument '{name}' ({DTYPE_NAMES[dt]}) out of range "
                               f"[{_show_int(lo)}, {_show_int(hi)}]: {_show_int(n)}", TL_ERROR_INVALID_ARGUMENT)
    return n


def _float_scalar(a, dt, name, kname) -> float:
    """The value of a floating kernel scalar: Python ints/floats and NumPy numbers (float32
    rounds later, not an error); TypeError for anything else, OverflowError for an int too
    large for a double."""
    if not isinstance(a, _FLOAT_SCALAR_TYPES):
        raise _scalar_type_error(a, dt, name, kname)
    try:
        return float(a)
    except OverflowError:
        raise OverflowError(f"kernel {kname}: argument '{name}' ({DTYPE_NAMES[dt]}) out of range: "
                            f"{_show_int(int(a))}") from None


def _bf16_view(a, where):
    """An ``ml_dtypes.bfloat16`` NumPy view of a CPU torch bfloat16 tensor ``a`` (NumPy has no
    bfloat16, so ``np.from_dlpack`` / ``np.asarray`` reject it): the tensor's bits are viewed as
    int16 through DLPack and reinterpreted, with no copy (writes through the view reach the
    tensor). None when ``a`` is not a torch bfloat16 tensor (detected by its dtype; torch is
    never imported here). TypeError, prefixed with ``where``, for a tensor not on the CPU or
    when ml_dtypes is missing."""
    if str(getattr(a, "dtype", "")) != "torch.bfloat16" or not hasattr(a, "__dlpack__"):
        return None
    import sys
    torch = sys.modules.get("torch")
    if torch is None or _ml_dtypes is None:
        raise TypeError(f"{where}: bfloat16 tensors need torch and ml_dtypes")
    if a.device.type != "cpu":
        raise TypeError(f"{where}: the bfloat16 tensor is on {a.device}; tl works on CPU tensors")
    try:
        bits = np.from_dlpack(a.view(torch.int16))
    except (TypeError, RuntimeError, BufferError, ValueError) as e:
        raise TypeError(f"{where}: cannot view the bfloat16 tensor through DLPack on the CPU: {e}") from None
    return bits.view(_ml_dtypes.bfloat16)


def _as_array(a, name, kname):
    if isinstance(a, np.ndarray):
        return a
    v = _bf16_view(a, f"kernel {kname}: argument '{name}'")
    if v is not None:
        return v
    if hasattr(a, "__dlpack__"):
        try:
            return np.from_dlpack(a)
        except (TypeError, RuntimeError, BufferError, ValueError) as e:
            raise TypeError(f"kernel {kname}: argument '{name}': cannot view {type(a).__name__} "
                            f"through DLPack on the CPU: {e}") from None
    if hasattr(a, "__array_interface__"):
        return np.asarray(a)
    raise TypeError(f"kernel {kname}: argument '{name}' expects a tensor (NumPy array or an object with "
                    f"__dlpack__), got {type(a).__name__}")


def _grid(grid, kname):
    if isinstance(grid, int):
        grid = (grid,)
    try:
        g = tuple(int(x.__index__()) for x in grid)
    except (TypeError, AttributeError):
        raise TypeError(f"kernel {kname}: grid must be an int or a tuple of 1 to 3 ints, got {grid!r}") from None
    if not 1 <= len(g) <= TL_MAX_GRID:
        raise TypeError(f"kernel {kname}: grid must have 1 to 3 axes, got {len(g)}")
    return g + (1,) * (TL_MAX_GRID - len(g))


def load(path, runtime: Runtime | None = None) -> Package:
    """Opens a .tlpkg (or a bundle .so) with the default runtime unless one is given."""
    return Package(path, runtime=runtime)
