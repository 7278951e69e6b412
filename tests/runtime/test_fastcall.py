"""The C fast path of kernel calls (tl/_fastcall.c) against the ctypes path (Kernel._call_slow):
the same results and the same errors (type and message) for every kind of argument, the
(rows, cols) views of Kernel._call2d, the package life counter, and the extension's reading of
ndarray fields. Skipped (with the reason) when the extension is not built."""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import tl._runtime as R
from rt_helpers import REPO, load_ctypes, python_env

BUILT = bool(glob.glob(os.path.join(os.path.dirname(R.__file__), "_fastcall*.so")))
pytestmark = [pytest.mark.skipif(not BUILT, reason="tl._fastcall is not built (pip install -e .)"),
              pytest.mark.skipif(os.environ.get("TL_FASTCALL") == "0", reason="TL_FASTCALL=0")]


@pytest.fixture(scope="module")
def pkgs(package_path):
    """(fast, slow): one package on the C path, one forced onto ctypes."""
    assert R.fastcall_enabled()
    fast = R.load(package_path)
    slow = load_ctypes(package_path)
    yield fast, slow
    fast.close()
    slow.close()


def rng(seed=0):
    return np.random.default_rng(seed)


def test_enabled_when_built():
    """With the extension built (and no TL_FASTCALL=0) the fast path is what a process gets."""
    env = python_env()
    env.pop("TL_FASTCALL", None)
    code = "import tl._runtime as R; print(R.fastcall_enabled())"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO)
    assert r.stdout.strip() == "True", (r.stdout, r.stderr)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(env, TL_FASTCALL="0"), cwd=REPO)
    assert r.stdout.strip() == "False", (r.stdout, r.stderr)


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the outcome is compared
        return type(e), re.sub(r"0x[0-9a-f]+", "0x?", str(e)), getattr(e, "status", None)
    return None


def _snapshot(a):
    return a.numpy().copy() if hasattr(a, "numpy") else np.array(a)


def _cases(g):
    f32 = lambda *s: g.standard_normal(s).astype(np.float32)  # noqa: E731
    base = f32(40, 90)
    ro = f32(4, 5)
    ro.flags.writeable = False
    odd = np.ndarray((4,), np.float32, buffer=bytearray(64), strides=(6,))
    mis = np.frombuffer(bytearray(4 * 9 + 1), np.uint8)[1:33].view(np.float32)   # misaligned data
    torch = pytest.importorskip("torch")
    aliased = f32(6, 8)
    return [
        # (kernel, args builder -> (args, kwargs), arrays to compare afterwards by index)
        ("add", lambda: ((f32(37, 50), f32(37, 50), np.zeros((37, 50), np.float32)), {}), [2]),
        ("add", lambda: ((f32(1, 1), f32(1, 1), np.zeros((1, 1), np.float32)), {}), [2]),
        ("add", lambda: ((base[::2, 1::3], f32(30, 20).T, np.zeros((20, 60), np.float32)[:, ::2]), {}), [2]),
        ("add", lambda: ((base[::-1, ::-1][:20, :30], f32(20, 30)[:, ::-1],
                          np.zeros((20, 30), np.float32)[::-1]), {}), [2]),
        ("add", lambda: ((np.zeros((0, 5), np.float32),) * 2 + (np.zeros((0, 5), np.float32),), {}), [2]),
        ("add_nogrid", lambda: ((f32(7, 9), f32(7, 9), np.zeros((7, 9), np.float32)), {"grid": (4, 7)}), [2]),
        ("add_nogrid", lambda: ((f32(7, 9), f32(7, 9), np.zeros((7, 9), np.float32)), {"grid": [4, 7]}), [2]),
        ("add_nogrid", lambda: ((f32(7, 9), f32(7, 9), np.zeros((7, 9), np.float32)), {}), [2]),
        ("add_nogrid", lambda: ((f32(7, 9), f32(7, 9), np.zeros((7, 9), np.float32)), {"grid": (1, 2, 3, 4)}), [2]),
        ("add_nogrid", lambda: ((f32(7, 9), f32(7, 9), np.zeros((7, 9), np.float32)), {"grid": "x"}), [2]),
        ("count", lambda: ((np.zeros(100, np.int64),), {"grid": 100}), [0]),
        ("count", lambda: ((np.zeros(100, np.int64),), {"grid": (np.int64(10), 10)}), [0]),
        ("count", lambda: ((np.zeros(100, np.int64),), {"grid": (-1,)}), [0]),
        ("count", lambda: ((np.zeros(100, np.int64),), {"grid": (2**62, 2**62)}), [0]),
        ("count", lambda: ((np.zeros(100, np.int64),), {"grid": (2**70,)}), [0]),
        ("axpy", lambda: ((f32(1000), f32(1000), 2.5), {}), [1]),
        ("axpy", lambda: ((f32(300)[::-3], np.zeros(200, np.float32)[::2], 1), {}), [1]),
        ("axpy", lambda: ((f32(10), f32(10), np.float32(0.5)), {}), [1]),
        ("axpy", lambda: ((f32(10), f32(10), True), {}), [1]),
        ("axpy", lambda: ((f32(10), f32(10), 10**400), {}), [1]),
        ("axpy", lambda: ((f32(10), f32(10), "x"), {}), [1]),
        ("axpy", lambda: ((f32(10), f32(10), None), {}), [1]),
        ("axpy", lambda: ((odd, np.zeros(4, np.float32), 1.0), {}), [1]),
        ("axpy", lambda: ((f32(4, 5), f32(4), 1.0), {}), [1]),
        ("axpy", lambda: ((f32(4), ro[0], 1.0), {}), []),
        ("axpy", lambda: ((f32(1, 1, 1, 1, 1, 1, 1, 1, 1), f32(4), 1.0), {}), [1]),
        ("fill_i32", lambda: ((np.zeros(10, np.int32), -7), {}), [0]),
        ("fill_i32", lambda: ((np.zeros(10, np.int32), np.int64(3)), {}), [0]),
        ("fill_i32", lambda: ((np.zeros(10, np.int32), 2**40), {}), [0]),
        ("fill_i32", lambda: ((np.zeros(10, np.int32), 2**63), {}), [0]),
        ("fill_i32", lambda: ((np.zeros(10, np.int32), 1.5), {}), [0]),
        ("fill_i32", lambda: ((np.zeros(10, np.int32), True), {}), [0]),
        ("fill_i32", lambda: ((np.zeros(10, np.int64), 1), {}), [0]),
        ("copy_bf16", lambda: ((np.arange(16, dtype=np.uint16) * 1000, np.zeros(16, np.uint16)), {}), [1]),
        ("copy_bf16", lambda: ((f32(16), np.zeros(16, np.uint16)), {}), [1]),
        ("rowsum", lambda: ((f32(257, 300), np.zeros(257, np.float32)), {}), [1]),
        ("rowsum", lambda: ((f32(257, 300)[:, ::-2], np.zeros(257, np.float32)), {}), [1]),
        ("rowsum", lambda: ((f32(3, 4), as_strided(np.zeros(1, np.float32), (3,), (0,), writeable=True)), {}), [1]),
        ("add", lambda: ((f32(4, 5), f32(4, 5).astype(np.float64), np.zeros((4, 5), np.float32)), {}), [2]),
        ("add", lambda: ((f32(4, 5), f32(4, 5)), {}), []),
        ("add", lambda: ((f32(4, 5), f32(4, 5), np.zeros((4, 5), np.float32), 1), {}), []),
        ("add", lambda: ((f32(4, 5), f32(4, 5), np.zeros((4, 5), np.float32)), {"stream": 1}), [2]),
        ("add", lambda: (([[1.0]], f32(1, 1), np.zeros((1, 1), np.float32)), {}), [2]),
        ("add", lambda: ((f32(4, 5), f32(4, 5), ro), {}), []),
        ("add", lambda: ((aliased, f32(6, 8), aliased), {}), [0]),
        ("add", lambda: ((aliased, f32(6, 8), aliased[:, :]), {}), [0]),
        ("add", lambda: ((aliased[:, 1:], f32(6, 7), aliased[:, :7]), {}), [0]),
        ("add", lambda: ((torch.ones(3, 4), torch.ones(3, 4), torch.zeros(3, 4)), {}), [2]),
        ("add", lambda: ((f32(3, 4).view(np.recarray), f32(3, 4), np.zeros((3, 4), np.float32)), {}), [2]),
        ("add", lambda: ((f32(3, 4).astype(">f4"), f32(3, 4), np.zeros((3, 4), np.float32)), {}), [2]),
        ("fail", lambda: ((f32(4),), {}), []),
        ("axpy", lambda: ((mis, np.zeros(8, np.float32), 1.0), {}), [1]),
    ]


def test_same_results_and_errors(pkgs):
    """Each case runs on fresh copies of the same inputs through both paths."""
    fast, slow = pkgs
    for n, (kname, build, check) in enumerate(_cases(rng())):
        outcomes, outputs = [], []
        for p in (fast, slow):
            args, kwargs = build_same(build, n)
            outcomes.append(_outcome(lambda: p.kernel(kname)(*args, **kwargs)))
            outputs.append([_snapshot(args[i]) for i in check])
        assert outcomes[0] == outcomes[1], (n, kname, outcomes)
        for a, b in zip(*outputs):
            np.testing.assert_array_equal(a, b, err_msg=f"case {n} ({kname})")
    # the cases reach both outcomes: successful launches and every error class
    kinds = {o[0] if o else None for o in (_outcome_of(fast, c, i) for i, c in enumerate(_cases(rng())))}
    assert {None, R.TLError, TypeError, ValueError} <= kinds, kinds


def build_same(build, n):
    """Inputs of case n, identical for both paths (seeded per case)."""
    return _cases(rng(1000 + n))[n][1]()


def _outcome_of(p, case, i):
    kname, _, _ = case
    args, kwargs = build_same(case[1], i)
    return _outcome(lambda: p.kernel(kname)(*args, **kwargs))


def test_results_are_right(pkgs):
    """Not only equal between paths: right (the add, axpy and count kernels on the fast path)."""
    fast, _ = pkgs
    g = rng(3)
    a, b = g.standard_normal((37, 50)).astype(np.float32), g.standard_normal((37, 50)).astype(np.float32)
    out = np.full_like(a, np.nan)
    fast.add(a, b, out)
    np.testing.assert_array_equal(out, a + b)
    x, y = g.standard_normal(1001).astype(np.float32), g.standard_normal(1001).astype(np.float32)
    want = np.float32(2.5) * x + y
    fast.axpy(x, y, 2.5)
    np.testing.assert_allclose(y, want, rtol=1e-6)
    c = np.zeros(64, np.int64)
    fast.count(c, grid=(8, 8))
    np.testing.assert_array_equal(c, np.arange(1, 65))


def test_call2d_views(pkgs):
    """_call2d views each tensor as (rows, cols) like tl.ops._to2d, and declines (False, nothing
    written) when that would need a copy; the ctypes package always declines."""
    fast, slow = pkgs
    g = rng(4)
    k = fast.kernel("add")
    for shape in ((), (7,), (1, 1), (3, 4), (2, 3, 5), (2, 1, 3, 1, 4), (0, 3), (3, 0), (4, 0, 2)):
        a = g.standard_normal(shape).astype(np.float32)
        b = g.standard_normal(shape).astype(np.float32)
        out = np.full(shape, np.nan, np.float32)
        assert k._call2d(a, b, out) is True
        np.testing.assert_array_equal(out, a + b)
    big = g.standard_normal((4, 6, 10)).astype(np.float32)
    views = [big, big[:, :3, :], big[::2], big[:, :, 1:4], big[:, ::2, :], big.transpose(1, 0, 2),
             big[::-1, ::-1], big[:, :1, :], big[1:2, ::-1, ::3], big.transpose(2, 1, 0), big[None, :, 2:3]]
    for v in views:
        rows = int(np.prod(v.shape[:-1]))
        try:
            np.reshape(v, (rows, v.shape[-1]), copy=False)
            mergeable = True
        except ValueError:
            mergeable = False
        out = np.zeros(v.shape, np.float32)
        assert k._call2d(v, v, out) is mergeable, (v.shape, v.strides)
        if mergeable:
            np.testing.assert_array_equal(out, v + v)
        else:
            assert not out.any()
    assert {k._call2d(v, v, np.zeros(v.shape, np.float32)) for v in views} == {True, False}
    with pytest.raises(R.TLError, match=r"argument 'a' \(#0\): expected dtype float32, got float64"):
        k._call2d(big.astype(np.float64), big, np.zeros_like(big))   # the runtime's own checks still apply
    assert k._call2d(big.astype(">f4"), big, np.zeros_like(big)) is False   # not a table dtype: declined
    ro = np.zeros((2, 2), np.float32)
    ro.flags.writeable = False
    assert k._call2d(ro, ro, ro) is False
    assert fast.kernel("axpy")._call2d(big[0, 0], big[0, 1].copy(), 1.0) is False   # rank-1 params
    assert slow.kernel("add")._call2d(big, big, np.zeros_like(big)) is False
    with pytest.raises(R.TLError, match="overlaps"):
        k._call2d(big[:, :, 1:], big[:, :, 1:].copy(), big[:, :, :9])


def test_close_refuses_calls_on_both_paths(package_path):
    for fast in (True, False):
        saved = R._FAST
        if not fast:
            R._FAST = None
        try:
            p = R.load(package_path)
        finally:
            R._FAST = saved
        k = p.kernel("add")
        a = np.ones((2, 2), np.float32)
        k(a, a, np.zeros_like(a))
        assert p._life.inflight == 0 and not p._life.closing
        p.close()
        p.close()                                  # twice: no-op
        assert p._handle is None and p._life.closing
        for call in (lambda: k(a, a, np.zeros_like(a)), lambda: k(a, a, np.zeros_like(a), grid=(1, 1))):
            with pytest.raises(R.TLError, match="kernel add: its package is closed"):
                call()
        assert k._call2d(a, a, np.zeros_like(a)) is False
        with pytest.raises(R.TLError, match="is closed"):
            p.kernel("axpy")
        assert "closed" in repr(p)


def test_close_inside_a_running_call_defers_release(package_path):
    """A Python-level close while a C-path call is in flight (simulated by entering the life
    counter) releases only when the last running call leaves."""
    p = R.load(package_path)
    assert p._life.enter()
    p.close()
    assert p._handle is not None           # still loaded: one call is running
    assert not p._life.enter()             # new calls refused
    p._leave()                              # the running call returns: released now
    assert p._handle is None


def test_array_fields_match_numpy():
    """What the extension reads from ndarrays equals NumPy's own view of them (random views)."""
    assert R.fastcall_enabled()
    fc = R._FAST
    g = rng(5)
    for _ in range(200):
        nd = int(g.integers(0, 5))
        shape = tuple(int(s) for s in g.integers(0, 5, nd))
        dt = [np.float32, np.float16, np.int8, np.int32, np.int64, np.bool_, np.uint16][int(g.integers(0, 7))]
        a = np.zeros(shape, dt)
        sl = tuple(slice(None, None, int(g.choice([-2, -1, 1, 2]))) for _ in range(nd))
        v = a[sl] if nd else a[...]
        if nd > 1 and g.random() < 0.5:
            v = v.T
        if g.random() < 0.3:
            v = v.view()
            v.flags.writeable = False
        data, vnd, vshape, vstrides, descr, writeable = fc.array_fields(v)
        assert data == v.__array_interface__["data"][0]
        assert (vnd, vshape, vstrides, writeable) == (v.ndim, v.shape, v.strides, v.flags.writeable)
        assert descr is v.dtype


def test_one_program_launches_from_threads_share_the_inline_workspace():
    """Single-program launches of a kernel with a workspace over the 4 KiB stack buffer (row max
    of one row: 14 KiB) from 8 threads at once: each launch takes the runtime's cached block or its
    own (pool.c run_inline); every result must be right."""
    import threading
    import tl.ops as ops
    path = os.environ.get("TL_OPS_PACKAGE") or os.path.join(REPO, "build", "ops.tlpkg")
    if not os.path.exists(path):
        pytest.skip(f"no operator package at {path}")
    ops._reset_package()
    k = ops.package().kernel("row_max__DT_float32")
    assert k.workspace_bytes > 4096
    errors = []

    def work(seed):
        g = rng(seed)
        try:
            for _ in range(300):
                x = g.standard_normal((1, int(g.integers(1, 300)))).astype(np.float32)
                np.testing.assert_array_equal(ops.max(x), x.max(axis=-1))
        except Exception as e:  # noqa: BLE001 - reported by the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:2]
