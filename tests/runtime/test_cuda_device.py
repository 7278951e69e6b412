"""The CUDA device of libtl_runtime (src/device_cuda.c) without a GPU: a stub libcuda
(programs/stub_libcuda.c, built into DIR/libcuda.so.1 and selected with TL_LIBCUDA) records every
driver call and can be told to fail any of them, report no device, another compute capability or no
cuLibrary* entry points. The fixture bundle is programs/cuda_fixture_host.c with any image bytes
(tests/runtime/cuda_fixture.py), driven by programs/cuda_use.c. The real-GPU run of the same fixture
is tests/runtime/gpu/run_cuda_gpu.sh (`make test-cuda-runtime`; logs in tests/runtime/gpu_logs/)."""
from __future__ import annotations

import ctypes
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

import cuda_fixture as F
from rt_helpers import INCLUDE, _ensure_runtime

PROGRAMS = Path(__file__).with_name("programs")
kDLCPU, kDLCUDA = 1, 2
TL_OK, TL_ERROR_INVALID_ARGUMENT, TL_ERROR_BAD_PACKAGE, TL_ERROR_VERSION = 0, 1, 3, 4
TL_ERROR_UNSUPPORTED, TL_ERROR_OUT_OF_MEMORY, TL_ERROR_INTERNAL = 5, 6, 7
LIBDIR = Path(_ensure_runtime()).parent


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    d = tmp_path_factory.mktemp("cuda")
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror",
                    "-Wl,-soname,libcuda.so.1", str(PROGRAMS / "stub_libcuda.c"), "-o", str(d / "libcuda.so.1")],
                   check=True)
    subprocess.run([cc, "-std=c11", "-D_GNU_SOURCE", "-O1", "-g", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                    str(PROGRAMS / "cuda_use.c"), "-o", str(d / "cuda_use"), f"-L{LIBDIR}",
                    f"-Wl,-rpath,{LIBDIR}", "-ltl_runtime", "-ldl"], check=True)
    (d / "image.bin").write_bytes(b"not a real cubin: the stub driver takes any bytes")
    return d


def host(work, name="host", **defines) -> bytes:
    out = work / f"{name}.so"
    if not out.exists():
        F.build_host(out, work / "image.bin", defines.pop("fmt", "cubin"), target=name, **defines)
    return out.read_bytes()


def pkg(work, name, bundles) -> Path:
    return F.write(work / f"{name}.tlpkg", bundles)


@pytest.fixture(scope="module")
def cuda_pkg(work):
    return pkg(work, "cuda", [(F.cuda_entry("cuda-sm90a", "sm_90a"), host(work))])


@pytest.fixture(scope="module")
def mixed_pkg(work):
    return pkg(work, "mixed", [(F.cpu_entry(), F.build_cpu(work / "cpu.so").read_bytes()),
                               (F.cuda_entry("cuda-sm90a", "sm_90a", priority=50), host(work))])


@pytest.fixture(scope="module")
def sm_pkg(work):
    return pkg(work, "sms", [(F.cuda_entry("cuda-sm90a", "sm_90a", priority=60), host(work, "cuda-sm90a")),
                             (F.cuda_entry("cuda-sm80", "sm_80", priority=50), host(work, "cuda-sm80")),
                             (F.cuda_entry("cuda-ptx80", "compute_80", priority=40), host(work, "cuda-ptx80"))])


class Run:
    def __init__(self, out: str, log: list[str]):
        self.lines = out.splitlines()
        self.log = log
        st, _, self.msg = self.lines[0].removeprefix("open ").partition(" ")
        self.status = int(st)
        self.device = next((ln.removeprefix("device ") for ln in self.lines if ln.startswith("device ")), None)
        self.ptr = {ln.split()[1]: int(ln.split()[2], 16) for ln in self.lines if ln.startswith("ptr ")}
        self.launch = {}
        for ln in self.lines:
            if ln.startswith("launch "):
                what, st, msg = (ln.removeprefix("launch ") + " ").split(" ", 2)
                self.launch[what] = (int(st), msg.strip())

    def calls(self, name):
        return [ln for ln in self.log if ln == name or ln.startswith(name + " ")]


def run(work, package, device_type=kDLCUDA, device_id=0, mode="run", libcuda=None, **env) -> Run:
    log = work / "calls.log"
    log.unlink(missing_ok=True)
    e = {k: v for k, v in os.environ.items() if not k.startswith("TL_STUB_CUDA")}
    e.pop("LD_PRELOAD", None)
    e.update(TL_LIBCUDA=str(libcuda or work / "libcuda.so.1"), TL_STUB_CUDA_LOG=str(log), **env)
    r = subprocess.run([str(work / "cuda_use"), str(package), str(device_type), str(device_id), mode],
                       capture_output=True, text=True, env=e, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    calls = [ln for ln in log.read_text().splitlines() if not ln.startswith("cuGetProcAddress")] \
        if log.exists() else []
    return Run(r.stdout, calls)


# ---------------------------------------------------------------------------------------------
# loading libcuda: never linked, never loaded for CPU work, a sentence when absent

def test_runtime_has_no_libcuda_needed_entry():
    readelf = shutil.which("readelf")
    if readelf is None:
        pytest.skip("no readelf")
    dyn = subprocess.run([readelf, "-d", str(LIBDIR / "libtl_runtime.so")], capture_output=True, text=True,
                         check=True).stdout
    assert "NEEDED" in dyn and "libcuda" not in dyn


def test_cpu_open_never_loads_libcuda(work, mixed_pkg):
    r = run(work, mixed_pkg, device_type=kDLCPU)
    assert (r.status, r.device) == (TL_OK, "cpu 1 0 target cpu-base")
    assert r.launch["cpu-axpy"] == (TL_OK, "") and "check cpu-axpy ok" in r.lines
    assert r.log == []                                   # not even dlopened (the stub logs "loaded")


def test_cpu_only_package_with_any_device_never_loads_libcuda(work):
    p = pkg(work, "cpuonly", [(F.cpu_entry(), F.build_cpu(work / "cpu2.so").read_bytes())])
    r = run(work, p, device_type=0)
    assert r.status == TL_OK and r.device.startswith("cpu ") and r.log == []


def test_mixed_package_without_libcuda_runs_the_cpu_bundle(work, mixed_pkg):
    r = run(work, mixed_pkg, device_type=0, libcuda=work / "nowhere" / "libcuda.so.1")
    assert (r.status, r.device) == (TL_OK, "cpu 1 0 target cpu-base")
    assert "check cpu-axpy ok" in r.lines and r.launch["cpu-sync"] == (TL_OK, "")


def test_mixed_package_prefers_cuda_when_present(work, mixed_pkg):
    r = run(work, mixed_pkg, device_type=0, mode="open")
    assert (r.status, r.device) == (TL_OK, "cuda 2 0 target host")


def test_missing_libcuda_names_why(work, cuda_pkg):
    missing = work / "nowhere" / "libcuda.so.1"
    r = run(work, cuda_pkg, libcuda=missing)
    assert r.status == TL_ERROR_UNSUPPORTED and r.device is None
    assert "no bundle for this machine" in r.msg and "package has: cuda-sm90a" in r.msg
    assert (f"bundle 'cuda-sm90a' needs device 'cuda' which is not present on this host: the NVIDIA driver library "
            f"{missing} cannot be loaded ({missing}: cannot open shared object file") in r.msg


@pytest.mark.parametrize("env, why", [
    ({"TL_STUB_CUDA_DEVICES": "0"}, "the NVIDIA driver reports no CUDA device on this host"),
    ({"TL_STUB_CUDA_FAIL": "cuInit", "TL_STUB_CUDA_FAIL_CODE": "100"},
     "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)"),
    ({"TL_STUB_CUDA_FAIL": "cuDeviceGetCount"}, "cuDeviceGetCount failed: CUDA_ERROR_INVALID_VALUE (invalid argument)"),
    ({"TL_STUB_CUDA_FAIL": "cuGetProcAddress"}, "cuGetProcAddress found no cuInit in libcuda (driver version 13000)"),
])
def test_probe_failures_name_why(work, cuda_pkg, env, why):
    r = run(work, cuda_pkg, **env)
    assert r.status == TL_ERROR_UNSUPPORTED
    assert f"bundle 'cuda-sm90a' needs device 'cuda' which is not present on this host: {why}" in r.msg


# ---------------------------------------------------------------------------------------------
# selection by compute capability

@pytest.mark.parametrize("cc, chosen", [("9.0", "cuda-sm90a"), ("8.0", "cuda-sm80"), ("8.9", "cuda-sm80"),
                                        ("10.0", "cuda-ptx80"), ("12.1", "cuda-ptx80")])
def test_selection_by_compute_capability(work, sm_pkg, cc, chosen):
    r = run(work, sm_pkg, mode="open", TL_STUB_CUDA_CC=cc)
    assert (r.status, r.device) == (TL_OK, f"cuda 2 0 target {chosen}")


def test_selection_refusal_names_each_rule(work, sm_pkg):
    r = run(work, sm_pkg, mode="open", TL_STUB_CUDA_CC="7.5")
    assert r.status == TL_ERROR_UNSUPPORTED
    assert ("bundle 'cuda-sm90a' does not run on cuda device 0: sm_90a needs compute capability exactly 9.0, "
            "the device has 7.5") in r.msg
    assert ("bundle 'cuda-sm80' does not run on cuda device 0: sm_80 needs compute capability 8.x with x >= 0 "
            "(a cubin runs on the same major version with at least minor), the device has 7.5") in r.msg
    assert ("bundle 'cuda-ptx80' does not run on cuda device 0: compute_80 needs compute capability >= 8.0 "
            "(PTX runs on newer GPUs too), the device has 7.5") in r.msg


def test_device_id_out_of_range(work, cuda_pkg):
    r = run(work, cuda_pkg, device_id=1, mode="open")
    assert r.status == TL_ERROR_UNSUPPORTED
    assert "bundle 'cuda-sm90a' does not run on cuda device 1: the driver reports 1 CUDA device (ids 0..0)" in r.msg
    assert run(work, cuda_pkg, device_id=1, mode="open", TL_STUB_CUDA_DEVICES="2").device == "cuda 2 1 target host"


@pytest.mark.parametrize("sm, why", [(None, "its manifest entry has no 'sm'"),
                                     ("sm90", "its 'sm' \"sm90\" is not sm_XY[a|f] or compute_XY[a]"),
                                     ("sm_9x", "its 'sm' \"sm_9x\" is not sm_XY[a|f] or compute_XY[a]")])
def test_bad_sm(work, sm, why):
    p = pkg(work, f"badsm{sm}", [(F.cuda_entry("gpu", sm), host(work))])
    r = run(work, p, mode="open")
    assert r.status == TL_ERROR_UNSUPPORTED and f"bundle 'gpu' does not run on cuda device 0: {why}" in r.msg


def test_sm_must_be_a_string(work):
    p = pkg(work, "smint", [(F.cuda_entry("gpu", 90), host(work))])
    r = run(work, p, mode="open")
    assert r.status == TL_ERROR_BAD_PACKAGE and "manifest bundle 0: 'sm' must be a string" in r.msg


# ---------------------------------------------------------------------------------------------
# launches: the parameter block, grid, block, stream, context

def launches(r):
    out = []
    for ln in r.calls("launch"):
        m = re.match(r"launch grid (\d+) (\d+) (\d+) block (\d+) 1 1 shared (\d+) stream (\S+) params NULL extra (\w*)$", ln)
        assert m, ln
        g = tuple(int(v) for v in m.group(1, 2, 3))
        out.append((g, int(m.group(4)), int(m.group(5)), m.group(6), bytes.fromhex(m.group(7))))
    return out


def test_argument_marshalling_exact_bytes(work, cuda_pkg):
    r = run(work, cuda_pkg)
    assert r.status == TL_OK and r.device == "cuda 2 0 target host"
    for what in ("axpy", "copy2d", "sync-stream", "fill", "sync-all"):
        assert r.launch[what] == (TL_OK, ""), what
    (g1, b1, s1, st1, p1), (g2, b2, s2, st2, p2), (g3, b3, s3, st3, p3) = launches(r)
    q = lambda *v: struct.pack(f"<{len(v)}q", *v)                      # noqa: E731
    u = lambda v: struct.pack("<Q", v)                                 # noqa: E731
    # axpy(x: stride 2, y: byte_offset 16, alpha 2.5): 1000 elements, 128 threads -> 8 blocks
    assert (g1, b1, s1, st1) == ((8, 1, 1), 128, 0, "(nil)")
    assert p1 == u(r.ptr["x"]) + q(1000, 2) + u(r.ptr["y"] + 16) + q(1000, 1) + struct.pack("<d", 2.5) + q(8, 1, 1)
    # copy2d(x: (33, 300) strides (1, 33), out: contiguous): grid rule (cdiv(300, 128), 33)
    assert (g2, b2, s2) == ((3, 33, 1), 128, 0) and st2 != "(nil)"
    assert p2 == u(r.ptr["src"]) + q(33, 300, 1, 33) + u(r.ptr["out"]) + q(33, 300, 300, 1) + q(3, 33, 1)
    # fill_i64(out, value -7) on the caller's grid (2, 1, 1), 64 threads
    assert (g3, b3, s3, st3) == ((2, 1, 1), 64, 0, "(nil)")
    assert p3 == u(r.ptr["fill"]) + q(100, 1) + q(-7) + q(2, 1, 1)
    assert (len(p1), len(p2), len(p3)) == (2 * 24 + 8 + 24, 2 * 40 + 24, 24 + 8 + 24)   # TL_CUDA_ARG_BYTES


def test_stream_passed_through_and_synchronized(work, cuda_pkg):
    r = run(work, cuda_pkg)
    stream = r.lines[[ln.startswith("ptr stream ") for ln in r.lines].index(True)].split()[2]
    (_, _, _, st1, _), (_, _, _, st2, _), (_, _, _, st3, _) = launches(r)
    assert (st1, st2, st3) == ("(nil)", stream, "(nil)")    # blocking launch, launch_ex on a stream, legacy
    assert r.calls("cuStreamSynchronize") == ["cuStreamSynchronize", f"cuStreamSynchronize {stream}"]
    assert len(r.calls("cuCtxSynchronize")) == 2            # the blocking axpy and tl_package_synchronize(NULL)


def test_primary_context_pushed_around_calls_and_released(work, cuda_pkg):
    r = run(work, cuda_pkg)
    assert len(r.calls("cuCtxPushCurrent")) == len(r.calls("cuCtxPopCurrent")) >= 6
    for i, ln in enumerate(r.log):
        if ln == "cuLaunchKernel":
            assert r.log[i - 1] == "cuCtxPushCurrent" and r.log[i + 2] == "cuCtxPopCurrent"
    assert r.calls("cuDevicePrimaryCtxRetain")[:1] == ["cuDevicePrimaryCtxRetain"]
    assert r.calls("cuDevicePrimaryCtxRelease") == ["cuDevicePrimaryCtxRelease"]   # the package's, at release
    assert r.calls("cuLibraryUnload") == ["cuLibraryUnload"] and r.calls("cuModuleLoadDataEx") == []
    assert r.calls("kernel") == ["kernel tl_axpy", "kernel tl_copy2d", "kernel tl_fill_i64"]


def test_module_loading_without_cuLibrary(work, cuda_pkg):
    r = run(work, cuda_pkg, TL_STUB_CUDA_NO_LIBRARY="1")
    assert r.status == TL_OK and r.launch["axpy"] == (TL_OK, "")
    assert r.calls("cuLibraryLoadData") == [] and r.calls("cuModuleLoadDataEx") == ["cuModuleLoadDataEx"]
    assert r.calls("function") == ["function tl_axpy", "function tl_copy2d", "function tl_fill_i64"]
    assert r.calls("cuModuleUnload") == ["cuModuleUnload"]


def test_refusals_host_tensor_device_id_grid_limit(work, cuda_pkg):
    r = run(work, cuda_pkg)
    assert r.launch["host-tensor"] == (TL_ERROR_INVALID_ARGUMENT, (
        "kernel axpy: argument 'x' (#0): is on device kDLCPU:0 but the kernel's bundle runs on device 'cuda' "
        "(device id 0, takes kDLCUDA, kDLCUDAManaged tensors)"))
    assert r.launch["other-device"][0] == TL_ERROR_INVALID_ARGUMENT
    assert "is on device kDLCUDA:1 but the kernel's bundle runs on device 'cuda' (device id 0" in r.launch["other-device"][1]
    assert r.launch["grid-limit"] == (TL_ERROR_INVALID_ARGUMENT, (
        "kernel fill_i64: grid (1, 70000, 1) exceeds the CUDA device's limit on axis y (at most 65535 blocks; "
        "device limits 2147483647, 65535, 65535)"))
    assert len(r.calls("cuLaunchKernel")) == 3             # none of the refused launches reached the driver


def test_fork_child_refuses_cuda_launches(work, cuda_pkg):
    r = run(work, cuda_pkg)
    assert r.launch["fork-child"] == (TL_ERROR_UNSUPPORTED, (
        "kernel axpy: this CUDA package was opened before fork(); CUDA cannot be used in the child process "
        "(open the package in the child)"))
    assert "fork child exit 0" in r.lines
    assert r.calls("cuDevicePrimaryCtxRelease") == ["cuDevicePrimaryCtxRelease"]   # the parent's only


# ---------------------------------------------------------------------------------------------
# every driver error path, named

@pytest.mark.parametrize("call, env", [
    ("cuDeviceGet", {}), ("cuDevicePrimaryCtxRetain", {}), ("cuCtxPushCurrent", {}), ("cuLibraryLoadData", {}),
    ("cuLibraryGetKernel", {}), ("cuKernelGetFunction", {}),
    ("cuModuleLoadDataEx", {"TL_STUB_CUDA_NO_LIBRARY": "1"}), ("cuModuleGetFunction", {"TL_STUB_CUDA_NO_LIBRARY": "1"}),
])
def test_load_errors_named(work, cuda_pkg, call, env):
    r = run(work, cuda_pkg, TL_STUB_CUDA_FAIL=call, **env)
    if call == "cuDeviceGet":      # fits() reads the compute capability first
        assert r.status == TL_ERROR_UNSUPPORTED and "reading its compute capability failed: CUDA_ERROR_INVALID_VALUE" in r.msg
        return
    assert r.status == TL_ERROR_INTERNAL, r.msg
    assert f"{call} failed: CUDA_ERROR_INVALID_VALUE (invalid argument)" in r.msg
    assert f"{cuda_pkg}: CUDA bundle 'cuda-sm90a'" in r.msg
    if call in ("cuLibraryGetKernel", "cuKernelGetFunction", "cuModuleGetFunction"):
        assert "kernel axpy (entry tl_axpy)" in r.msg
    # what was acquired is given back: a retained context is released (a failed retain holds none)
    retained = len(r.calls("cuDevicePrimaryCtxRetain")) - (call == "cuDevicePrimaryCtxRetain")
    assert len(r.calls("cuDevicePrimaryCtxRelease")) == retained


@pytest.mark.parametrize("code, status, name", [(2, TL_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"),
                                                (209, TL_ERROR_UNSUPPORTED, "CUDA_ERROR_NO_BINARY_FOR_GPU")])
def test_load_error_statuses(work, cuda_pkg, code, status, name):
    r = run(work, cuda_pkg, TL_STUB_CUDA_FAIL="cuLibraryLoadData", TL_STUB_CUDA_FAIL_CODE=str(code))
    assert r.status == status and f"cuLibraryLoadData failed: {name}" in r.msg


def test_launch_and_synchronize_errors_named(work, cuda_pkg):
    r = run(work, cuda_pkg, TL_STUB_CUDA_FAIL="cuLaunchKernel")
    assert r.launch["axpy"] == (TL_ERROR_INTERNAL, "kernel axpy (entry tl_axpy): cuLaunchKernel failed: "
                                                   "CUDA_ERROR_INVALID_VALUE (invalid argument)")
    assert r.launch["copy2d"][0] == TL_ERROR_INTERNAL and "kernel copy2d (entry tl_copy2d)" in r.launch["copy2d"][1]
    r = run(work, cuda_pkg, TL_STUB_CUDA_FAIL="cuCtxSynchronize", TL_STUB_CUDA_FAIL_CODE="700")
    assert r.launch["axpy"] == (TL_ERROR_INTERNAL, "kernel axpy: cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS "
                                                   "(an illegal memory access was encountered)")
    assert r.launch["sync-all"] == (TL_ERROR_INTERNAL, "tl_package_synchronize (device 0): cuCtxSynchronize failed: "
                                                       "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)")
    r = run(work, cuda_pkg, TL_STUB_CUDA_FAIL="cuStreamSynchronize")
    assert r.launch["sync-stream"] == (TL_ERROR_INTERNAL, "tl_package_synchronize (device 0): cuStreamSynchronize "
                                                          "failed: CUDA_ERROR_INVALID_VALUE (invalid argument)")
    r = run(work, cuda_pkg, TL_STUB_CUDA_FAIL="cuCtxPushCurrent")
    assert r.status == TL_ERROR_INTERNAL and "cuCtxPushCurrent failed" in r.msg


# ---------------------------------------------------------------------------------------------
# the bundle's device fields

@pytest.mark.parametrize("defines, status, text", [
    ({"TL_OLD_LAYOUT": "1"}, TL_ERROR_VERSION, "CUDA bundle 'b' has ABI version 1 and struct sizes"),
    ({"TL_BLOCK_THREADS": "2048"}, TL_ERROR_BAD_PACKAGE, "kernel 'axpy': block_threads 2048 is not in 1..1024"),
    ({"TL_WORKSPACE": "256"}, TL_ERROR_UNSUPPORTED, "kernel 'axpy' asks for 256 bytes of workspace"),
    ({"TL_SHARED_BYTES": "300000"}, TL_ERROR_UNSUPPORTED, "needs 300000 bytes of shared memory, the device has at most 232448"),
])
def test_bundle_checks(work, defines, status, text):
    name = "b"
    p = pkg(work, "chk" + "".join(defines), [(F.cuda_entry(name, "sm_90a"), host(work, "h" + "".join(defines), **defines))])
    r = run(work, p, mode="open")
    assert r.status == status and text in r.msg, r.msg


def test_large_dynamic_shared_memory_opts_in(work):
    p = pkg(work, "smem", [(F.cuda_entry("b", "sm_90a"), host(work, "hsmem", TL_SHARED_BYTES=100000))])
    r = run(work, p)
    assert r.status == TL_OK and r.calls("cuFuncSetAttribute") == ["cuFuncSetAttribute", "cuFuncSetAttribute 8 100000"]
    assert launches(r)[0][2] == 100000


def test_ptx_image_counts_its_nul(work):
    p = pkg(work, "ptx", [(F.cuda_entry("b", "compute_80"), host(work, "hptx", fmt="ptx"))])
    assert run(work, p).launch["axpy"] == (TL_OK, "")


# ---------------------------------------------------------------------------------------------
# tl_kernel_launch_ex / tl_package_synchronize on the CPU, through the ctypes mirror

def test_launch_ex_on_cpu(package_path):
    import tl._runtime as R
    lib = R._library()
    rt, handle, k = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.tl_runtime_create(None, ctypes.byref(rt)) == TL_OK
    try:
        assert lib.tl_package_open(rt, str(package_path).encode(), ctypes.byref(handle)) == TL_OK
        assert lib.tl_package_kernel(handle, b"count", ctypes.byref(k)) == TL_OK
        out = (ctypes.c_int64 * 6)()
        shape = (ctypes.c_int64 * 1)(6)
        t = R.DLTensor(ctypes.cast(out, ctypes.c_void_p), R.DLDevice(kDLCPU, 0), 1, R.DLDataType(0, 64, 1),
                       ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)), None, 0)
        args = (R.tl_value_t * 1)()
        args[0].tensor = ctypes.pointer(t)
        opts = R.tl_launch_ex_options_t()
        lib.tl_launch_ex_options_initialize(ctypes.byref(opts))
        assert (opts.struct_size, opts.flags, opts.stream) == (ctypes.sizeof(opts), 0, None)
        opts.stream = 0x1234                                   # ignored by the CPU
        grid = (ctypes.c_int64 * 3)(6, 1, 1)
        assert lib.tl_kernel_launch_ex(k, args, 1, grid, ctypes.byref(opts)) == TL_OK
        assert list(out) == [1, 2, 3, 4, 5, 6]
        assert lib.tl_package_synchronize(handle, None) == TL_OK
        opts.flags = 1
        assert lib.tl_kernel_launch_ex(k, args, 1, grid, ctypes.byref(opts)) == TL_ERROR_INVALID_ARGUMENT
        assert b"tl_launch_ex_options_t.flags is 1, must be 0" in lib.tl_runtime_last_error(rt)
        opts.flags, opts.struct_size = 0, 8
        assert lib.tl_kernel_launch_ex(k, args, 1, grid, ctypes.byref(opts)) == TL_ERROR_VERSION
        assert lib.tl_kernel_launch_ex(k, args, 1, None, None) == TL_ERROR_INVALID_ARGUMENT   # count has no grid rule
        assert b"has no grid rule" in lib.tl_runtime_last_error(rt)
        assert lib.tl_package_release(handle) == TL_OK
        assert lib.tl_package_synchronize(handle, None) == TL_ERROR_INVALID_ARGUMENT
    finally:
        lib.tl_runtime_release(rt)


def test_python_reader_checks_the_1_1_bundle_fields(work):
    from tlc.package.format import PackageError, read_package
    good = pkg(work, "readok", [(F.cuda_entry("gpu", "sm_90a"), host(work))])
    manifest, _ = read_package(good)
    assert manifest["bundles"][0]["sm"] == "sm_90a" and manifest["bundles"][0]["format"] == F.FORMAT
    bad = pkg(work, "readbad", [(F.cuda_entry("gpu", 90), host(work))])
    with pytest.raises(PackageError, match="manifest bundle 'gpu': 'sm' must be a string"):
        read_package(bad)
