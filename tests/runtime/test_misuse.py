"""Handle lifetimes under misuse (issue 21): the C driver programs/misuse.c runs one scenario per
child process on the fixture package -- a release racing launcher threads, calls with a released
package's or runtime's handles, double releases, the runtime released before its package, retain,
NULL and wrong-kind handles with the freshness of tl_runtime_last_error, a 0-program grid, and the
message for a truncated or non-ZIP package -- and the test compares every status and message.

The driver is linked with the library under test ($TL_RUNTIME_LIB: the ASan+UBSan build under
`make test-sanitize`, the driver then compiled with ASan+UBSan too), and, when
$TL_TSAN_RUNTIME_LIB names a ThreadSanitizer build of the runtime (`make test-sanitize` builds
build/runtime-tsan), a second time with -fsanitize=thread against that one. A signal, a sanitizer
report, a non-zero exit or a hang fails."""
from __future__ import annotations

import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

from rt_helpers import INCLUDE, SANITIZE, _ensure_runtime

PROGRAMS = Path(__file__).with_name("programs")
ASAN_FLAGS = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]
TSAN_LIB = os.environ.get("TL_TSAN_RUNTIME_LIB", "")

RELEASED_KERNEL = ("tl_kernel_launch: kernel 'axpy' (PTR): its package was released (tl_package_release dropped "
                   "its last reference), and its kernel handles with it; call refused")


def _released_package(fn):
    return f"{fn}: package PTR was released (tl_package_release dropped its last reference); call refused"


def _released_runtime(fn):
    return f"{fn}: runtime PTR was released (tl_runtime_release dropped its last reference); call refused"


DOUBLE_PACKAGE = ("tl_package_release: package PTR was already released (a double release, or a release without a "
                  "matching tl_package_open/tl_package_retain)")
DOUBLE_RUNTIME = ("tl_runtime_release: runtime PTR was already released (a double release, or a release without a "
                  "matching tl_runtime_create/tl_runtime_retain)")


@pytest.fixture(scope="module", params=["default", "tsan"])
def misuse_exe(request, tmp_path_factory):
    if request.param == "tsan":
        if not TSAN_LIB:
            pytest.skip("TL_TSAN_RUNTIME_LIB is not set (make test-sanitize builds build/runtime-tsan)")
        lib, flags = Path(TSAN_LIB), ["-fsanitize=thread", "-fno-omit-frame-pointer"]
    else:
        lib, flags = Path(_ensure_runtime()), ASAN_FLAGS if SANITIZE else []
    exe = tmp_path_factory.mktemp("misuse") / f"misuse-{request.param}"
    subprocess.run(["gcc", *flags, "-std=c11", "-D_GNU_SOURCE", "-O1", "-g", "-Wall", "-Wextra", "-Werror",
                    f"-I{INCLUDE}", str(PROGRAMS / "misuse.c"), "-o", str(exe), f"-L{lib.parent}",
                    f"-Wl,-rpath,{lib.parent}", "-ltl_runtime", "-pthread"], check=True)
    return exe


def run(exe, package_path, scenario, *extra) -> dict:
    """Runs one scenario in a child; checks it exited 0 on its own with no sanitizer report and
    returns {name: (status, message with pointers as PTR)}."""
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1",
               TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1")
    env.pop("LD_PRELOAD", None)
    r = subprocess.run([str(exe), str(package_path), scenario, *map(str, extra)], capture_output=True, text=True,
                       env=env, timeout=120)
    out = r.stdout + r.stderr
    assert r.returncode >= 0, f"killed by {signal.Signals(-r.returncode).name}:\n{out}"
    assert r.returncode == 0 and r.stdout.rstrip().endswith("all passed"), out
    for bad in ("ERROR: AddressSanitizer", "LeakSanitizer", "runtime error", "WARNING: ThreadSanitizer"):
        assert bad not in r.stderr, out
    results = {}
    for line in r.stdout.splitlines():
        m = re.fullmatch(r"(\w+): status=(-?\d+) message=(.*)", line)
        if m:
            results[m[1]] = (int(m[2]), re.sub(r"0x[0-9a-f]+", "PTR", m[3]))
    return results


def test_release_racing_launchers(misuse_exe, package_path):
    """4 threads launch while the package is released: the launches before it are right, every
    later one (2000 per thread, and the next one) a clean TL_ERROR_INVALID_ARGUMENT."""
    got = run(misuse_exe, package_path, "race")
    assert got == {"race_refused": (1, RELEASED_KERNEL), "race_next": (1, RELEASED_KERNEL)}


def test_calls_after_package_release(misuse_exe, package_path):
    got = run(misuse_exe, package_path, "after_release")
    assert got == {
        "launch": (1, RELEASED_KERNEL),
        "kernel": (1, _released_package("tl_package_kernel")),
        "kernel_count": (0, _released_package("tl_package_kernel_count")),
        "kernel_name_is_null": (1, _released_package("tl_package_kernel_name")),
        "target_is_empty": (1, _released_package("tl_package_target")),
        "desc_is_null": (1, RELEASED_KERNEL.replace("tl_kernel_launch", "tl_kernel_desc")),
        "check": (1, RELEASED_KERNEL.replace("tl_kernel_launch", "tl_kernel_check")),
        "from_dlpack": (1, RELEASED_KERNEL.replace("tl_kernel_launch", "tl_value_from_dlpack")),
        "retain": (1, _released_package("tl_package_retain")),
    }


def test_double_package_release(misuse_exe, package_path):
    got = run(misuse_exe, package_path, "double_package_release")
    assert got == {"second": (1, DOUBLE_PACKAGE), "third": (1, DOUBLE_PACKAGE)}


def test_double_runtime_release(misuse_exe, package_path):
    got = run(misuse_exe, package_path, "double_runtime_release")
    assert got == {
        "second": (1, DOUBLE_RUNTIME),
        "set_num_threads": (1, _released_runtime("tl_runtime_set_num_threads")),
        "open": (1, _released_runtime("tl_package_open")),
        "num_threads": (0, _released_runtime("tl_runtime_num_threads")),
        "retain": (1, _released_runtime("tl_runtime_retain")),
    }


def test_runtime_released_before_its_package(misuse_exe, package_path):
    """The package keeps the runtime alive: launches still run (right values, messages on the
    runtime), calls on the released runtime itself are refused, and it goes with the package."""
    got = run(misuse_exe, package_path, "runtime_first")
    assert got == {
        "launch": (0, ""),
        "bad_launch": (1, "kernel axpy takes 3 arguments, got 0"),
        "set_num_threads": (1, _released_runtime("tl_runtime_set_num_threads")),
        "open": (1, _released_runtime("tl_package_open")),
        "launch_after": (1, RELEASED_KERNEL),
        "runtime_again": (1, DOUBLE_RUNTIME),
    }


def test_retain(misuse_exe, package_path):
    """A retained package outlives one release; a retained runtime too. tl_runtime_retain does not
    clear the last error (only the successes runtime.h lists do), so the refusal before it shows."""
    got = run(misuse_exe, package_path, "retain")
    assert got == {
        "package_retain": (0, ""),
        "launch_one_left": (0, ""),
        "launch_none_left": (1, RELEASED_KERNEL),
        "runtime_retain": (0, RELEASED_KERNEL),
        "set_threads_one_left": (0, ""),
        "num_threads": (2, ""),
        "set_threads_none_left": (1, _released_runtime("tl_runtime_set_num_threads")),
    }


def test_null_handles_and_last_error_freshness(misuse_exe, package_path):
    got = run(misuse_exe, package_path, "null_handles")
    assert got["missing"][0] == 2 and got["missing"][1].startswith("no kernel 'nope' in package")
    assert got == {
        "missing": got["missing"],
        "launch_null": (1, "tl_kernel_launch: kernel is NULL"),              # not the older 'no kernel nope'
        "open_null_runtime": (1, "tl_package_open: runtime is NULL"),
        "kernel_null_package": (1, "tl_package_kernel: package is NULL"),
        "kernel_null_out": (1, "tl_package_kernel: out_kernel is NULL"),
        "threads_null": (1, "tl_runtime_set_num_threads: runtime is NULL"),
        "retain_null": (1, "tl_runtime_retain: runtime is NULL"),
        "release_null": (0, "tl_runtime_retain: runtime is NULL"),         # a no-op, not a failure
        "kernel_count_null": (0, "tl_package_kernel_count: package is NULL"),
        "launch_package_as_kernel": (1, "tl_kernel_launch: PTR is a live tl_package_t, not a kernel handle"),
        "release_runtime_as_package": (1, "tl_package_release: PTR is a live tl_runtime_t, not a package handle"),
        "last_error_of_package": (0, "tl_runtime_last_error: PTR is a live tl_package_t, not a runtime handle"),
        "success_clears": (0, ""),
        "handle_less_kept": (0, "tl_runtime_last_error: PTR is a live tl_package_t, not a runtime handle"),
        "runtime_error": (1, "kernel axpy takes 3 arguments, got 0"),
        "newer_handle_less": (1, "tl_kernel_launch: kernel is NULL"),
    }


def test_quarantine_detects_then_reuses(misuse_exe, package_path):
    """runtime.h's bound: a released package is still recognised after 1000 more died (fewer than
    TL_QUARANTINE_PACKAGES = 1024), and dead shells are reused beyond that, so 2100 open/release
    cycles use about 1024 distinct package shells, not 2100."""
    got = run(misuse_exe, package_path, "quarantine")
    distinct = got.pop("distinct_packages")
    assert got == {"double_release_after_1000": (1, DOUBLE_PACKAGE), "launch_after_1000": (1, RELEASED_KERNEL)}
    assert 1024 <= distinct[0] <= 1026, distinct


def test_zero_program_grid_is_ok(misuse_exe, package_path):
    assert run(misuse_exe, package_path, "zero_grid") == {"zero_grid": (0, "")}


def _truncated(tmp_path, package_path, n):
    data = package_path.read_bytes()
    path = tmp_path / f"cut{n}.tlpkg"
    path.write_bytes(data[:n] if n >= 0 else data[:len(data) + n])
    return path


def test_truncated_package_says_where(misuse_exe, package_path, tmp_path):
    import zipfile
    with zipfile.ZipFile(package_path) as z:
        infos = z.infolist()
    bundle = next(i for i in infos if i.filename == "bundles/base.so")
    last = max(infos, key=lambda i: i.header_offset)
    cd_start = last.header_offset + 30 + len(last.filename.encode()) + len(last.extra) + last.compress_size
    cut = bundle.header_offset + 100
    path = _truncated(tmp_path, package_path, cut)
    end = bundle.header_offset + 30 + len(bundle.filename.encode()) + len(bundle.extra) + bundle.compress_size
    status, msg = run(misuse_exe, package_path, "open", path)["open"]
    assert status == 3
    assert msg == (f"{path}: not a valid .tlpkg (zip) archive: the file is truncated at {cut} bytes: entry "
                   f"'bundles/base.so' (local header at byte {bundle.header_offset}) needs "
                   f"{end - bundle.header_offset} bytes, up to byte {end}, and the ZIP end-of-central-directory "
                   f"record is missing (libarchive: Unrecognized archive format)")
    path = _truncated(tmp_path, package_path, -10)
    status, msg = run(misuse_exe, package_path, "open", path)["open"]
    assert status == 3 and msg == (
        f"{path}: not a valid .tlpkg (zip) archive: the file is truncated at {path.stat().st_size} bytes: its "
        f"central directory begins at byte {cd_start} but the ZIP end-of-central-directory record is missing "
        f"(libarchive: Unrecognized archive format)")


def test_not_a_zip_says_what_it_is(misuse_exe, package_path, tmp_path, bundle_so):
    text = tmp_path / "text.tlpkg"
    text.write_bytes(b"hello world\n")
    status, msg = run(misuse_exe, package_path, "open", text)["open"]
    assert status == 3 and msg == (
        f"{text}: not a valid .tlpkg (zip) archive: the file (12 bytes) is not a ZIP archive: it starts with bytes "
        f'68 65 6c 6c, not a ZIP local file header (50 4b 03 04, "PK\\3\\4") (libarchive: Unrecognized archive format)')
    status, msg = run(misuse_exe, package_path, "open", bundle_so)["open"]
    assert status == 3 and msg.startswith(f"{bundle_so}: not a valid .tlpkg (zip) archive: the file "
                                          f"({bundle_so.stat().st_size} bytes) is an ELF file, not a ZIP archive (a "
                                          "bundle .so? open it with tl_package_open_bundle)"), msg


def test_python_runtime_closed_before_its_package(package_path):
    """tl._runtime: closing the Runtime first (its C handle released) leaves the package working,
    on both call paths; the runtime goes with the package."""
    import numpy as np

    import tl._runtime as R
    rt = R.Runtime(num_threads=2)
    fast = rt.load(package_path)
    saved, R._FAST = R._FAST, None
    try:
        slow = rt.load(package_path)
    finally:
        R._FAST = saved
    assert isinstance(slow._life, R._Life)        # the ctypes call path
    rt.close()
    for p in (fast, slow):
        x = np.arange(1000, dtype=np.float32)
        y = np.ones(1000, np.float32)
        p.axpy(x, y, 2.0)
        np.testing.assert_array_equal(y, 2 * x + 1)
        p.close()
