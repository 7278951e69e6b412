"""The runtime's device interface (libtl_runtime/src/device.h): manifest bundles name a device and a
payload format (package format 1.1; a 1.0 bundle is cpu / elf-shared-object), bundle selection skips
what this runtime cannot run and says why, tl_package_open_ex picks the device, and tl_kernel_launch
refuses a tensor on another device, naming the argument and both devices. A second, test-only
device (programs/fake_device.c, compiled in with EXTRA_DEVICE_SRC) shows a device plugs in through
the device table and is probed only when a manifest asks for it. Driven by programs/device_use.c."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from rt_helpers import INCLUDE, REPO, SANITIZE, _ensure_runtime, bundle_entry, manifest_for

PROGRAMS = Path(__file__).with_name("programs")
SAN_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]
kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLROCMHost, kDLExtDev, kDLCUDAManaged = 1, 2, 3, 10, 11, 12, 13
TL_OK, TL_ERROR_BAD_PACKAGE, TL_ERROR_VERSION, TL_ERROR_UNSUPPORTED = 0, 3, 4, 5
PLAIN_OPEN, BAD_STRUCT = -1, -2


def _driver(libdir: Path, exe: Path) -> Path:
    cmd = ["gcc", "-std=c11", "-D_GNU_SOURCE", "-O1", "-g", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
           str(PROGRAMS / "device_use.c"), "-o", str(exe), f"-L{libdir}", f"-Wl,-rpath,{libdir}", "-ltl_runtime"]
    if SANITIZE:
        cmd[1:1] = SAN_FLAGS
    subprocess.run(cmd, check=True)
    return exe


@pytest.fixture(scope="module")
def use_cpu(tmp_path_factory):
    """device_use linked with the runtime under test (only the CPU device)."""
    return _driver(Path(_ensure_runtime()).parent, tmp_path_factory.mktemp("device_use") / "device_use")


@pytest.fixture(scope="module")
def use_fake(tmp_path_factory):
    """device_use linked with a runtime built with the fake device compiled in."""
    build = tmp_path_factory.mktemp("fake_runtime")
    cmd = ["make", "-s", "-C", str(REPO / "libtl_runtime"), f"BUILD={build}",
           f"EXTRA_DEVICE_SRC={PROGRAMS / 'fake_device.c'}"]
    if SANITIZE:
        cmd.append("CFLAGS=-O1 -g " + " ".join(SAN_FLAGS))
    subprocess.run(cmd, check=True, capture_output=True)
    return _driver(build, build / "device_use")


def run(exe, package, device_type=PLAIN_OPEN, device_id=0, tensors=(), **env):
    """Runs device_use; returns (open status, open message, device line or None, [(status, message)],
    number of "values ok" lines)."""
    e = dict(os.environ, **env)
    e.pop("LD_PRELOAD", None)
    e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    r = subprocess.run([str(exe), str(package), str(device_type), str(device_id), *tensors], capture_output=True,
                       text=True, env=e, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    st, _, msg = lines[0].removeprefix("open ").partition(" ")
    device = next((ln.removeprefix("device ") for ln in lines if ln.startswith("device ")), None)
    launches = [(int(s), m) for s, _, m in (ln.removeprefix("launch ").partition(" ")
                                            for ln in lines if ln.startswith("launch "))]
    return int(st), msg, device, launches, lines.count("values ok")


def package(tmp_path, bundle_bytes, entries, format_version=(1, 1), name="p.tlpkg"):
    """A package of the fixture bundle under each of entries' paths, with the given manifest entries."""
    from tlc.package.format import write_package
    path = tmp_path / name
    payloads = {e["path"]: bundle_bytes for e in entries}
    payloads["include/fixture.h"] = b"/* fixture */\n"
    write_package(path, manifest_for(entries, format_version=list(format_version)), payloads)
    return path


def cpu_entry(variant="base", priority=10, **fields):
    return {**bundle_entry(variant, priority=priority), "device": "cpu", "format": "elf-shared-object", **fields}


def fake_entry(variant="fakebundle", priority=20):
    return dict(bundle_entry(variant, priority=priority), device="fake", format="fake-elf")


# ---------------------------------------------------------------------------------------------
# manifests: 1.0 and 1.1, unknown devices and formats

def test_format_1_0_bundle_without_device_is_cpu(tmp_path, bundle_bytes, use_cpu):
    p = package(tmp_path, bundle_bytes, [bundle_entry("base")], format_version=(1, 0))
    st, msg, device, launches, ok = run(use_cpu, p, tensors=[f"{kDLCPU}:0"])
    assert (st, msg) == (TL_OK, "")
    assert device == f"cpu {kDLCPU} 0 target x86_64-fixture"
    assert launches == [(TL_OK, "")] and ok == 1


def test_format_1_1_cpu_bundle_and_newer_minor_open(tmp_path, bundle_bytes, use_cpu):
    for fv in ((1, 1), (1, 9)):
        p = package(tmp_path, bundle_bytes, [cpu_entry()], format_version=fv, name=f"p{fv[1]}.tlpkg")
        st, msg, device, _, _ = run(use_cpu, p)
        assert (st, msg) == (TL_OK, ""), fv
        assert device.startswith("cpu 1 0 ")


def test_newer_major_refused(tmp_path, bundle_bytes, use_cpu):
    p = package(tmp_path, bundle_bytes, [cpu_entry()], format_version=(2, 0))
    st, msg, device, _, _ = run(use_cpu, p)
    assert st == TL_ERROR_VERSION and "package format version 2.0 is not supported" in msg and "format 1.1" in msg
    assert device is None


def test_unknown_device_skipped(tmp_path, bundle_bytes, use_cpu):
    gpu = dict(bundle_entry("gpu", priority=99), device="rocm", format="hsaco")
    p = package(tmp_path, bundle_bytes, [gpu, cpu_entry()])
    st, msg, device, _, _ = run(use_cpu, p)
    assert (st, msg) == (TL_OK, "") and device.startswith("cpu ")
    only = package(tmp_path, bundle_bytes, [gpu], name="only.tlpkg")
    st, msg, device, _, _ = run(use_cpu, only)
    assert st == TL_ERROR_UNSUPPORTED and device is None
    assert "no bundle for this machine" in msg and "package has: gpu" in msg
    assert "bundle 'gpu' needs device 'rocm' which this runtime has no driver for" in msg


def test_unknown_format_skipped(tmp_path, bundle_bytes, use_cpu):
    p = package(tmp_path, bundle_bytes, [cpu_entry("wasm", format="wasm")])
    st, msg, _, _, _ = run(use_cpu, p)
    assert st == TL_ERROR_UNSUPPORTED
    assert "bundle 'wasm' is format 'wasm' which device 'cpu' does not load (it loads: elf-shared-object)" in msg


def test_device_field_must_be_a_string(tmp_path, bundle_bytes, use_cpu):
    p = package(tmp_path, bundle_bytes, [cpu_entry(device=1)])
    st, msg, _, _, _ = run(use_cpu, p)
    assert st == TL_ERROR_BAD_PACKAGE and "manifest bundle 0: 'device' and 'format' must be strings" in msg


def test_open_options(tmp_path, bundle_bytes, use_cpu):
    p = package(tmp_path, bundle_bytes, [cpu_entry()])
    assert run(use_cpu, p, device_type=kDLCPU)[:2] == (TL_OK, "")
    assert run(use_cpu, p, device_type=0)[2].startswith("cpu ")          # any device
    st, msg, _, _, _ = run(use_cpu, p, device_type=kDLROCM)
    assert st == TL_ERROR_UNSUPPORTED and "tl_package_open_ex: this runtime has no driver for DLPack device kDLROCM" in msg
    st, msg, _, _, _ = run(use_cpu, p, device_type=BAD_STRUCT)
    assert st == TL_ERROR_VERSION and "tl_package_open_options_t.struct_size is 4" in msg


# ---------------------------------------------------------------------------------------------
# launch: each tensor's DLPack device against the bundle's

def test_cpu_launch_takes_host_memory_and_names_a_device_tensor(tmp_path, bundle_bytes, use_cpu):
    p = package(tmp_path, bundle_bytes, [cpu_entry()])
    tensors = [f"{kDLCPU}:0", f"{kDLCUDAHost}:0", f"{kDLROCMHost}:1", f"{kDLCUDA}:0", f"{kDLCUDAManaged}:0", "99:0"]
    st, _, _, launches, ok = run(use_cpu, p, tensors=tensors)
    assert st == TL_OK
    assert [s for s, _ in launches[:3]] == [TL_OK] * 3 and ok == 3
    for (s, m), got in zip(launches[3:], ["kDLCUDA:0", "kDLCUDAManaged:0", "device type 99:0"]):
        assert s == 1
        assert m == (f"kernel axpy: argument 'x' (#0): is on device {got} but the kernel's bundle runs on device "
                     "'cpu' (takes kDLCPU, kDLCUDAHost, kDLROCMHost tensors)")


# ---------------------------------------------------------------------------------------------
# a second device through the device table (programs/fake_device.c)

def _log(tmp_path):
    return tmp_path / "fake.log"


def _words(tmp_path):
    return _log(tmp_path).read_text().split() if _log(tmp_path).exists() else []


def test_fake_device_not_probed_for_cpu_packages(tmp_path, bundle_bytes, use_fake):
    both = package(tmp_path, bundle_bytes, [cpu_entry(), fake_entry()])
    st, msg, device, launches, ok = run(use_fake, both, tensors=[f"{kDLCPU}:0"], TL_FAKE_DEVICE_LOG=str(_log(tmp_path)))
    assert (st, msg) == (TL_OK, "") and device.startswith("cpu 1 0 ")   # tl_package_open: the CPU
    assert launches == [(TL_OK, "")] and ok == 1
    assert _words(tmp_path) == []       # a CPU open never touches the other device: not even its probe


def test_fake_device_runs_its_bundle(tmp_path, bundle_bytes, use_fake):
    both = package(tmp_path, bundle_bytes, [cpu_entry(), fake_entry()])
    tensors = [f"{kDLExtDev}:0", f"{kDLCPU}:0", f"{kDLExtDev}:1"]
    st, msg, device, launches, ok = run(use_fake, both, device_type=kDLExtDev, tensors=tensors,
                                        TL_FAKE_DEVICE_LOG=str(_log(tmp_path)))
    assert (st, msg) == (TL_OK, "")
    assert device == f"fake {kDLExtDev} 0 target x86_64-fixture"
    assert launches[0] == (TL_OK, "") and ok == 1
    assert launches[1] == (1, "kernel axpy: argument 'x' (#0): is on device kDLCPU:0 but the kernel's bundle runs on "
                              "device 'fake' (device id 0, takes kDLExtDev tensors)")
    assert launches[2][0] == 1 and "is on device kDLExtDev:1 but" in launches[2][1]
    assert _words(tmp_path) == ["probe", "load", "launch", "synchronize", "release"]


def test_fake_device_any_prefers_priority_and_checks_device_id(tmp_path, bundle_bytes, use_fake):
    both = package(tmp_path, bundle_bytes, [cpu_entry(), fake_entry()])
    st, _, device, launches, ok = run(use_fake, both, device_type=0, device_id=3, tensors=[f"{kDLExtDev}:3"])
    assert st == TL_OK and device.startswith(f"fake {kDLExtDev} 3 ")
    assert launches == [(TL_OK, "")] and ok == 1


def test_fake_device_absent(tmp_path, bundle_bytes, use_fake):
    both = package(tmp_path, bundle_bytes, [cpu_entry(), fake_entry()])
    st, msg, device, _, _ = run(use_fake, both, device_type=kDLExtDev, TL_FAKE_DEVICE_ABSENT="1",
                                TL_FAKE_DEVICE_LOG=str(_log(tmp_path)))
    assert st == TL_ERROR_UNSUPPORTED and device is None
    assert "bundle 'base' runs on device 'cpu', not the requested kDLExtDev" in msg
    assert ("bundle 'fakebundle' needs device 'fake' which is not present on this host: "
            "TL_FAKE_DEVICE_ABSENT=1 hides the fake device") in msg
    assert _words(tmp_path) == ["probe"]
    # with any device allowed the CPU bundle is the fallback
    st, _, device, _, _ = run(use_fake, both, device_type=0, TL_FAKE_DEVICE_ABSENT="1")
    assert st == TL_OK and device.startswith("cpu ")


def test_fake_device_format_is_per_device(tmp_path, bundle_bytes, use_fake):
    wrong = dict(fake_entry(), format="elf-shared-object")
    p = package(tmp_path, bundle_bytes, [wrong])
    st, msg, _, _, _ = run(use_fake, p, device_type=kDLExtDev)
    assert st == TL_ERROR_UNSUPPORTED
    assert "bundle 'fakebundle' is format 'elf-shared-object' which device 'fake' does not load (it loads: fake-elf)" in msg


def test_ctypes_device_queries(package_path):
    """tl_package_open_ex and tl_package_device (a DLDevice by value) through the ctypes mirror of
    tl/_runtime.py."""
    import ctypes
    import tl._runtime as R
    lib = R._library()
    rt, handle = ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.tl_runtime_create(None, ctypes.byref(rt)) == TL_OK
    opts = R.tl_package_open_options_t()
    lib.tl_package_open_options_initialize(ctypes.byref(opts))
    assert (opts.struct_size, opts.device_type, opts.device_id) == (ctypes.sizeof(opts), kDLCPU, 0)
    try:
        assert lib.tl_package_open_ex(rt, str(package_path).encode(), ctypes.byref(opts), ctypes.byref(handle)) == TL_OK
        d = lib.tl_package_device(handle)
        assert (d.device_type, d.device_id) == (kDLCPU, 0)
        assert lib.tl_package_device_name(handle) == b"cpu"
        assert lib.tl_package_release(handle) == TL_OK
        gone = lib.tl_package_device(handle)            # released: {0, 0} and a message
        assert (gone.device_type, gone.device_id) == (0, 0)
        assert lib.tl_package_device_name(None) == b""
        assert b"tl_package_device_name: package is NULL" in lib.tl_runtime_last_error(None)
    finally:
        lib.tl_runtime_release(rt)
