"""tl/dlpack_compat.h next to real DLPack headers: upstream 1.3 (apache-tvm-ffi's wheel, the test
extra), torch's ATen/dlpack.h (1.3 in torch 2.13, the test extra) and upstream 0.6 (Debian's
libdlpack-dev, tools/deps.py test). For each: static asserts that every enumerator, macro, struct
size and field offset tl/dlpack_compat.h defines has the real header's value (C11 and C++17), both
include orders with tl/runtime.h (-Wall -Wextra -Werror), and tl_value_from_dlpack driving the
fixture package's add kernel with DLManagedTensorVersioned tensors built from the real header, and
from the capsules torch and NumPy export (__dlpack__(max_version=(1, 0)))."""
from __future__ import annotations

import ctypes
import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from rt_helpers import INCLUDE, REPO

PROGRAMS = Path(__file__).with_name("programs")
LIBDIR = REPO / "build" / "runtime"
STRICT = ["-Wall", "-Wextra", "-Werror"]
STDS = ["c11", "c++17"]


def _module_dir(name: str) -> Path | None:
    spec = importlib.util.find_spec(name)
    return Path(list(spec.submodule_search_locations)[0]) if spec and spec.submodule_search_locations else None


def _real_headers() -> dict:
    """name -> (include dir, #include line, path), or a skip reason string."""
    out = {}
    tvm = _module_dir("tvm_ffi")
    h = tvm / "include" / "dlpack" / "dlpack.h" if tvm else None
    out["tvm-ffi"] = (tvm / "include", "<dlpack/dlpack.h>", h) if h and h.is_file() else \
        "apache-tvm-ffi (the test extra: make venv) is not installed"
    torch = _module_dir("torch")
    h = torch / "include" / "ATen" / "dlpack.h" if torch else None
    out["torch"] = (torch / "include", "<ATen/dlpack.h>", h) if h and h.is_file() else \
        "torch (the test extra: make venv) is not installed"
    h = Path("/usr/include/dlpack/dlpack.h")
    out["debian-0.6"] = (None, "<dlpack/dlpack.h>", h) if h.is_file() else \
        "libdlpack-dev is not installed (tools/deps.py test installs it)"
    return out


HEADERS = _real_headers()


def _header(name):
    h = HEADERS[name]
    if isinstance(h, str):
        pytest.skip(h)
    return h


def _version(path: Path) -> tuple[int, int]:
    text = path.read_text()
    major = re.search(r"#define DLPACK_MAJOR_VERSION (\d+)", text)
    if major:
        return int(major.group(1)), int(re.search(r"#define DLPACK_MINOR_VERSION (\d+)", text).group(1))
    v = int(re.search(r"#define DLPACK_VERSION (\d+)", text).group(1))  # 0.x: 60 = 0.6, 80 = 0.8
    return 0, v // 10


# The enumerators of tl/dlpack_compat.h with the DLPack version that introduced each (spec values).
ENUMS = {
    "kDLCPU": (1, (0, 6)), "kDLCUDA": (2, (0, 6)), "kDLCUDAHost": (3, (0, 6)), "kDLOpenCL": (4, (0, 6)),
    "kDLVulkan": (7, (0, 6)), "kDLMetal": (8, (0, 6)), "kDLVPI": (9, (0, 6)), "kDLROCM": (10, (0, 6)),
    "kDLROCMHost": (11, (0, 6)), "kDLExtDev": (12, (0, 6)), "kDLCUDAManaged": (13, (0, 6)),
    "kDLOneAPI": (14, (0, 7)), "kDLWebGPU": (15, (0, 7)), "kDLHexagon": (16, (0, 7)), "kDLMAIA": (17, (1, 0)),
    "kDLInt": (0, (0, 6)), "kDLUInt": (1, (0, 6)), "kDLFloat": (2, (0, 6)), "kDLOpaqueHandle": (3, (0, 6)),
    "kDLBfloat": (4, (0, 6)), "kDLComplex": (5, (0, 6)), "kDLBool": (6, (0, 8)),
    "kDLFloat8_e3m4": (7, (1, 1)), "kDLFloat8_e4m3": (8, (1, 1)), "kDLFloat8_e4m3b11fnuz": (9, (1, 1)),
    "kDLFloat8_e4m3fn": (10, (1, 1)), "kDLFloat8_e4m3fnuz": (11, (1, 1)), "kDLFloat8_e5m2": (12, (1, 1)),
    "kDLFloat8_e5m2fnuz": (13, (1, 1)), "kDLFloat8_e8m0fnu": (14, (1, 1)), "kDLFloat6_e2m3fn": (15, (1, 1)),
    "kDLFloat6_e3m2fn": (16, (1, 1)), "kDLFloat4_e2m1fn": (17, (1, 1)),
    "DLPACK_FLAG_BITMASK_READ_ONLY": (1, (1, 0)), "DLPACK_FLAG_BITMASK_IS_COPIED": (2, (1, 0)),
    "DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED": (4, (1, 1)),
}
STRUCTS = {
    "DLDevice": (["device_type", "device_id"], (0, 6)),
    "DLDataType": (["code", "bits", "lanes"], (0, 6)),
    "DLTensor": (["data", "device", "ndim", "dtype", "shape", "strides", "byte_offset"], (0, 6)),
    "DLManagedTensor": (["dl_tensor", "manager_ctx", "deleter"], (0, 6)),
    "DLPackVersion": (["major", "minor"], (1, 0)),
    "DLManagedTensorVersioned": (["version", "manager_ctx", "deleter", "flags", "dl_tensor"], (1, 0)),
}


def _cc(std):
    cc = "g++" if std.startswith("c++") else "gcc"
    if shutil.which(cc) is None:
        pytest.skip(f"no {cc}")
    return cc


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    """Sizes and offsets of tl/dlpack_compat.h's structs on this machine, by a probe compiled against it."""
    d = tmp_path_factory.mktemp("probe")
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <tl/dlpack_compat.h>", "int main(void) {"]
    keys = []
    for s, (fields, _) in STRUCTS.items():
        lines.append(f'  printf("%zu\\n", sizeof({s}));')
        keys.append((s, None))
        for f in fields:
            lines.append(f'  printf("%zu\\n", offsetof({s}, {f}));')
            keys.append((s, f))
    lines += ['  printf("%d %d\\n", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);', "  return 0;", "}"]
    (d / "p.c").write_text("\n".join(lines) + "\n")
    subprocess.run(["gcc", "-std=c11", *STRICT, f"-I{INCLUDE}", str(d / "p.c"), "-o", str(d / "p")], check=True)
    out = subprocess.run([str(d / "p")], check=True, capture_output=True, text=True).stdout.split("\n")
    assert out[len(keys)] == "1 1", out[len(keys)]
    return dict(zip(keys, (int(x) for x in out)))


def _asserts(ours, version, std) -> str:
    sa = "static_assert" if std.startswith("c++") else "_Static_assert"
    lines = [f"{sa}({n} == {v}, \"{n}\");" for n, (v, since) in ENUMS.items() if since <= version]
    for s, (fields, since) in STRUCTS.items():
        if since > version:
            continue
        lines.append(f"{sa}(sizeof({s}) == {ours[(s, None)]}, \"sizeof {s}\");")
        lines += [f"{sa}(offsetof({s}, {f}) == {ours[(s, f)]}, \"{s}.{f}\");" for f in fields]
    if version >= (1, 0):   # the device type is a 4-byte enum in both C and C++
        lines.append(f"{sa}(sizeof(DLDeviceType) == 4, \"sizeof DLDeviceType\");")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("std", STDS)
@pytest.mark.parametrize("name", list(HEADERS))
def test_real_header_has_our_values(name, std, ours, tmp_path):
    inc, line, path = _header(name)
    version = _version(path)
    assert version >= (0, 6), version
    cc = _cc(std)
    src = tmp_path / ("t.cpp" if std.startswith("c++") else "t.c")
    src.write_text(f"#include <stddef.h>\n#include {line}\n" + _asserts(ours, version, std))
    flags = [f"-I{inc}"] if inc else []
    subprocess.run([cc, f"-std={std}", *STRICT, *flags, "-c", str(src), "-o", str(tmp_path / "t.o")], check=True)
    # and the same asserts hold against tl/dlpack_compat.h alone (its own version: 1.1)
    src.write_text("#include <stddef.h>\n#include <tl/dlpack_compat.h>\n" + _asserts(ours, (1, 1), std))
    subprocess.run([cc, f"-std={std}", *STRICT, f"-I{INCLUDE}", "-c", str(src), "-o", str(tmp_path / "t.o")],
                   check=True)


def test_asserts_can_fail(ours, tmp_path):
    """The generated asserts are real: a wrong value is a compile error."""
    src = tmp_path / "bad.c"
    src.write_text("#include <stddef.h>\n#include <tl/dlpack_compat.h>\n" +
                   _asserts(ours, (1, 1), "c11").replace("kDLBool == 6", "kDLBool == 7"))
    r = subprocess.run(["gcc", "-std=c11", f"-I{INCLUDE}", "-c", str(src), "-o", str(tmp_path / "bad.o")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "kDLBool" in r.stderr, r.stderr


def _build_dlpack_use(tmp_path, std, defines, inc) -> Path:
    cc = _cc(std)
    cxx = std.startswith("c++")
    src = tmp_path / ("dlpack_use.cpp" if cxx else "dlpack_use.c")
    src.write_text((PROGRAMS / "dlpack_use.c").read_text())
    exe = tmp_path / "dlpack_use"
    flags = [f"-I{inc}"] if inc else []
    subprocess.run([cc, f"-std={std}", *STRICT, *defines, f"-I{INCLUDE}", *flags, str(src), "-o", str(exe),
                    f"-L{LIBDIR}", f"-Wl,-rpath,{LIBDIR}", "-ltl_runtime"], check=True)
    return exe


def _run_dlpack_use(exe, package_path) -> str:
    r = subprocess.run([str(exe), str(package_path)], capture_output=True, text=True)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    assert "FAIL" not in r.stdout and sum(ln.startswith("ok ") for ln in r.stdout.splitlines()) == 9, r.stdout
    return r.stdout


@pytest.mark.parametrize("std", STDS)
def test_helper_with_compat_header_alone(std, tmp_path, package_path):
    out = _run_dlpack_use(_build_dlpack_use(tmp_path, std, [], None), package_path)
    assert "dlpack 1.1" in out


@pytest.mark.parametrize("std", STDS)
@pytest.mark.parametrize("order", ["real-first", "tl-first"])
@pytest.mark.parametrize("name", ["tvm-ffi", "torch"])
def test_helper_with_real_1x_header(name, order, std, tmp_path, package_path):
    inc, line, path = _header(name)
    defines = [f"-DTL_DLPACK_HEADER={1 if 'dlpack/' in line else 2}"] + (["-DTL_DLPACK_AFTER"] if order == "tl-first" else [])
    out = _run_dlpack_use(_build_dlpack_use(tmp_path, std, defines, inc), package_path)
    major, minor = _version(path)
    # whichever header came first defined the types
    assert (f"dlpack {major}.{minor}" if order == "real-first" else "dlpack 1.1") in out, out


@pytest.mark.parametrize("std", STDS)
@pytest.mark.parametrize("order", ["real-first", "tl-first"])
def test_pre_1_0_header_both_orders(order, std, tmp_path):
    """Upstream 0.6 has no DLManagedTensorVersioned: tl/runtime.h still compiles next to it in both
    orders and a plain DLTensor goes into a tl_value_t."""
    _inc, line, _path = _header("debian-0.6")
    cc = _cc(std)
    first, second = (f"#include {line}", "#include <tl/runtime.h>")[:: 1 if order == "real-first" else -1]
    src = tmp_path / ("t.cpp" if std.startswith("c++") else "t.c")
    src.write_text(f"{first}\n{second}\n"
                   "int main(void) {\n  DLTensor t;\n  tl_value_t v;\n  t.ndim = 0;\n  v.tensor = &t;\n"
                   "  return v.tensor->ndim + (int)tl_kernel_launch(NULL, &v, 1, NULL) - 1;\n}\n")
    subprocess.run([cc, f"-std={std}", *STRICT, f"-I{INCLUDE}", str(src), "-o", str(tmp_path / "t"),
                    f"-L{LIBDIR}", f"-Wl,-rpath,{LIBDIR}", "-ltl_runtime"], check=True)
    assert subprocess.run([str(tmp_path / "t")]).returncode == 0


def _producer_arrays(producer):
    """(a, b, out, read-only) 2x3 float32 arrays of producer, out zero; the last one not writable."""
    import numpy as np
    if producer == "numpy":
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        ro = a.copy()
        ro.flags.writeable = False
        return a, a * 10, np.zeros((2, 3), np.float32), ro
    torch = pytest.importorskip("torch")
    a = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    return a, a * 10, torch.zeros(2, 3), None


@pytest.mark.parametrize("producer", ["numpy", "torch"])
def test_helper_takes_producer_capsules(producer, package_path):
    """DLManagedTensorVersioned from real producers' capsules, through ctypes: the launch adds them;
    NumPy's read-only array (DLPACK_FLAG_BITMASK_READ_ONLY) is refused for the written 'out'."""
    import tl._runtime as R
    lib = ctypes.CDLL(str(LIBDIR / "libtl_runtime.so"))
    for name, (restype, argtypes) in R.FUNCTIONS.items():
        getattr(lib, name).restype, getattr(lib, name).argtypes = restype, argtypes
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    rt, pkg, k = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.tl_runtime_create(None, ctypes.byref(rt)) == 0
    try:
        assert lib.tl_package_open(rt, str(package_path).encode(), ctypes.byref(pkg)) == 0
        assert lib.tl_package_kernel(pkg, b"add", ctypes.byref(k)) == 0
        a, b, out, ro = _producer_arrays(producer)
        caps = [x.__dlpack__(max_version=(1, 0)) for x in (a, b, out)]   # kept alive over the launch
        args = (R.tl_value_t * 3)()
        for i, cap in enumerate(caps):
            ptr = ctypes.cast(get(cap, b"dltensor_versioned"), ctypes.POINTER(R.DLManagedTensorVersioned))
            assert ptr.contents.version.major == 1
            assert lib.tl_value_from_dlpack(k, i, ptr, ctypes.byref(args[i])) == 0, lib.tl_runtime_last_error(rt)
        assert lib.tl_kernel_launch(k, args, 3, None) == 0, lib.tl_runtime_last_error(rt)
        assert out.tolist() == (a + b).tolist() == [[0, 11, 22], [33, 44, 55]]
        if ro is not None:
            cap = ro.__dlpack__(max_version=(1, 0))
            ptr = ctypes.cast(get(cap, b"dltensor_versioned"), ctypes.POINTER(R.DLManagedTensorVersioned))
            assert ptr.contents.flags & 1
            v = R.tl_value_t()
            assert lib.tl_value_from_dlpack(k, 0, ptr, ctypes.byref(v)) == 0     # read: fine
            assert lib.tl_value_from_dlpack(k, 2, ptr, ctypes.byref(v)) == 1     # written: refused
            assert b"argument 'out' (#2): the kernel writes this parameter, the tensor is read-only" in \
                lib.tl_runtime_last_error(rt)
    finally:
        lib.tl_package_release(pkg)
        lib.tl_runtime_release(rt)
