"""Fixes from a fresh user's report, at the runtime boundary: closing a package while another
thread runs its kernels, written tensors that overlap themselves, huge grids, the thread cap,
the last error cleared by a successful call, keyword arguments."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import tl._runtime as R
from rt_helpers import python_env


def test_close_while_another_thread_launches(package_path):
    """Each run: a thread launches axpy in a loop while the main thread closes the package. No
    crash; the thread's late calls raise TLError('... closed'), earlier ones computed the right values."""
    # a private copy: a concurrent pytest run may prune this session's basetemp
    own = Path(tempfile.mkdtemp(prefix="tl-close-race-")) / "fixture.tlpkg"
    shutil.copyfile(package_path, own)
    script = textwrap.dedent(f"""
        import threading, time, numpy as np, tl._runtime as R
        for trial in range(6):
            p = R.load({str(own)!r})
            x = (np.arange(200000) % 7).astype(np.float32); y = np.zeros_like(x)
            seen = []
            def work():
                try:
                    for _ in range(300):
                        p.axpy(x, y, 1.0)
                        seen.append(1)
                except R.TLError as e:
                    assert "closed" in str(e), e
            t = threading.Thread(target=work); t.start()
            time.sleep(0.002 * trial)
            p.close()
            t.join()
            assert np.array_equal(y, x * len(seen)), (len(seen), y[:4])
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=python_env(), timeout=120)
    shutil.rmtree(own.parent, ignore_errors=True)
    assert r.returncode == 0 and "ok" in r.stdout, (r.returncode, r.stdout, r.stderr)


@pytest.mark.parametrize("fastcall", ["1", "0"])
def test_close_races_the_first_kernel_lookup(package_path, fastcall):
    """A thread's first ``p.axpy`` (the kernel lookup, a ctypes call that drops the GIL) races the
    main thread's close(), 300 times. The lookup used to run outside the running-call count, so
    close() released the package under it: a segfault in nearly every run of this loop (seen in
    a fresh-root ``make test``). Now a lookup counts as a running call."""
    own = Path(tempfile.mkdtemp(prefix="tl-close-lookup-")) / "fixture.tlpkg"
    shutil.copyfile(package_path, own)
    script = textwrap.dedent(f"""
        import threading, numpy as np, tl._runtime as R
        x = np.ones(64, np.float32)
        for trial in range(300):
            p = R.load({str(own)!r})
            y = np.zeros_like(x)
            def work():
                try:
                    p.axpy(x, y, 1.0)
                    assert np.array_equal(y, x), y[:4]
                except R.TLError as e:
                    assert "closed" in str(e), e
            t = threading.Thread(target=work); t.start()
            p.close()
            t.join()
        print("ok")
    """)
    env = python_env(TL_FASTCALL=fastcall)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    shutil.rmtree(own.parent, ignore_errors=True)
    assert r.returncode == 0 and "ok" in r.stdout, (r.returncode, r.stdout, r.stderr)


def test_written_tensor_with_stride_zero_is_refused(pkg):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    base = np.zeros(1, np.float32)
    out = as_strided(base, shape=(3,), strides=(0,), writeable=True)
    with pytest.raises(R.TLError) as e:
        pkg.rowsum(x, out)
    msg = str(e.value)
    assert "argument 'out'" in msg and "stride 0 on axis 0" in msg, msg
    assert base[0] == 0


def test_written_tensor_with_aliasing_strides_is_refused(pkg):
    a = np.ones((4, 4), np.float32)
    base = np.zeros(10, np.float32)
    out = as_strided(base, shape=(4, 4), strides=(8, 4), writeable=True)   # rows overlap
    with pytest.raises(R.TLError) as e:
        pkg.add(a, a, out)
    assert "argument 'out'" in str(e.value) and "alias" in str(e.value), str(e.value)
    ok = as_strided(np.zeros(32, np.float32), shape=(4, 4), strides=(32, 4), writeable=True)  # gaps are fine
    pkg.add(a, a, ok)
    assert np.all(ok == 2)
    bcast_read = as_strided(np.ones(4, np.float32), shape=(4, 4), strides=(0, 4))   # read-only stride 0 is fine
    out2 = np.zeros((4, 4), np.float32)
    pkg.add(bcast_read, a, out2)
    assert np.all(out2 == 2)


@pytest.mark.parametrize("grid", [(2 ** 30, 2 ** 30, 2), (2 ** 62, 4, 1), (2 ** 49, 1, 1)])
def test_huge_grid_is_refused(pkg, grid):
    x = np.zeros(4, np.float32)
    with pytest.raises(R.TLError) as e:
        pkg.count(x.astype(np.int64), grid=grid)
    assert "too many programs" in str(e.value) and "2^48" in str(e.value), str(e.value)


def test_num_threads_cap():
    rt = R.Runtime(2)
    with pytest.raises(R.TLError) as e:
        rt.set_num_threads(100000)
    assert "at most 1024" in str(e.value)
    assert rt.num_threads == 2
    with pytest.raises(R.TLError):
        R.Runtime(5000)


def test_success_clears_last_error(pkg):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(R.TLError):
        pkg.rowsum(x.astype(np.float32).ravel(), np.zeros(3, np.float32))
    lib = pkg._lib
    assert lib.tl_runtime_last_error(pkg._runtime._handle).decode() != ""
    out = np.zeros(3, np.float32)
    pkg.rowsum(x, out)
    assert lib.tl_runtime_last_error(pkg._runtime._handle).decode() == ""


def test_keyword_arguments_are_refused(pkg):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.raises(TypeError) as e:
        pkg.rowsum(x=x, out=np.zeros(3, np.float32))
    assert "kernel arguments are positional: rowsum(x, out)" in str(e.value)


def test_tl_exports_thread_controls():
    import tl
    n = tl.num_threads()
    tl.set_num_threads(n)
    assert tl.num_threads() == n
