"""Fixtures for the operator-library tests.

Backend: the compiled package ``build/ops.tlpkg`` (always brought up to date here with ``python -m
tlc build ops/ -t host -o build/ops.tlpkg``; tlc's content-addressed cache makes that cheap when
nothing changed, and a change to the compiler itself rebuilds), or the NumPy
reference interpreter when ``TL_OPS_BACKEND=interp``. Seeds: fresh per test unless
``TL_TEST_SEED`` is set; every assertion message carries the seed.
"""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import tl.ops as ops

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PKG = os.environ.get("TL_OPS_PACKAGE") or os.path.join(REPO, "build", "ops.tlpkg")
BF16 = ops.bfloat16
FLOATS = [np.float32, np.float16, BF16]
# (rtol, atol per unit of reduction length): docs/testing.md#tolerances
TOL = {np.dtype(np.float32): (1.3e-6, 1e-5), np.dtype(np.float16): (1e-3, 1e-3),
       BF16: (1.6e-2, 1e-2)}


@pytest.fixture(scope="session", autouse=True)
def ops_backend():
    """Makes sure tl.ops has a backend: the interpreter, or an up-to-date compiled package."""
    # TL_OPS_PREBUILT=1: the package is up to date already (tests/seed_sweep.py builds it once
    # before starting its parallel pytest processes, which must not rewrite it under each other)
    if os.environ.get("TL_OPS_BACKEND", "").lower() != "interp" and not os.environ.get("TL_OPS_PREBUILT"):
        os.makedirs(os.path.dirname(PKG), exist_ok=True)
        cmd = [sys.executable, "-m", "tlc", "build", "ops/", "-t", "host", "-o", PKG]
        r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": REPO})
        if r.returncode != 0:
            pytest.exit(f"building the operator package failed: {' '.join(cmd)}\n{r.stdout}\n{r.stderr}", 1)
    ops._reset_package()
    yield


@pytest.fixture
def rng_seed(request):
    """(rng, seed): a fresh generator and its seed (TL_TEST_SEED pins it; under
    ``--seed-sweep N``, tests/seed_sweep.py parametrizes it with N seeds)."""
    seed = getattr(request, "param", None)
    if seed is None:
        seed = int(os.environ.get("TL_TEST_SEED") or int.from_bytes(os.urandom(4), "little"))
    return np.random.default_rng(seed), seed


def rand(rng, shape, dtype, lo=-3.0, hi=3.0):
    """Uniform random values in [lo, hi) rounded to ``dtype``."""
    return rng.uniform(lo, hi, size=shape).astype(np.float32).astype(dtype)


def f64(a):
    return np.asarray(a).astype(np.float64)


def check(got, ref, dtype, msg, n=1, rtol=None, atol=None):
    """Asserts ``got`` (any dtype) matches the float64 reference within the dtype's tolerance
    (atol scaled by the reduction length ``n``); NaNs must match positions."""
    r, a = TOL[np.dtype(dtype)]
    rtol = r if rtol is None else rtol
    atol = a * n if atol is None else atol
    g = f64(got)
    ref = np.asarray(ref, np.float64)
    assert g.shape == ref.shape, f"{msg}: shape {g.shape} != {ref.shape}"
    np.testing.assert_allclose(g, ref, rtol=rtol, atol=atol, equal_nan=True, err_msg=msg)


def poisoned(shape, dtype):
    """An output array filled with NaN (or -1 for integers)."""
    o = np.empty(shape, dtype)
    o[...] = -1 if np.dtype(dtype).kind in "iub" else np.nan
    return o


def ref_layer_norm(x, w, b, eps):
    """float64 layer norm over the last axis (biased variance)."""
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * w + b


def ref_rms_norm(x, w, eps):
    """float64 RMS norm over the last axis."""
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def record_launches(monkeypatch):
    """A list that collects the kernel instance name of every tl.ops launch (the launch still runs)."""
    launched = []
    real = ops._launch
    spy = lambda name, *args: (launched.append(name), real(name, *args))  # noqa: E731
    for mod in [ops] + [m for n, m in sorted(sys.modules.items()) if n.startswith("tl.ops.")]:
        if getattr(mod, "_launch", None) is real:     # each tl.ops module calls its own import of it
            monkeypatch.setattr(mod, "_launch", spy)
    return launched
