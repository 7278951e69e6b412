"""bfloat16 matmul (ops/matmul_bf16.py) as tl.ops.matmul picks it: the accuracy contract
|c - a @ b (float64 on the bf16 values)| <= K * 2**-23 * (|a| @ |b|) on every edge (partial
tiles, K tails, odd K, few rows), batches, strided and transposed operands, NaN/inf; the
runtime picks the x86_64-avx512bf16 bundle on a CPU with AVX512_BF16, and the x86_64-avx512
bundle of the same source (the float32 path) meets the same contract."""
import os

import numpy as np
import pytest

import tl
import tl.ops as ops
from tl import _runtime
from ops_helpers import PKG, REPO, record_launches

bf16 = ops.bfloat16
HAS_BF16 = "avx512bf16" in _runtime.cpu_features()


def _check(a, b, out):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    k = a.shape[-1]
    want = a64 @ b64
    bound = k * 2.0 ** -23 * (np.abs(a64) @ np.abs(b64))
    err = np.abs(out - want)
    assert (err <= bound).all(), f"max err {err.max()}, where bound {bound[err > bound][:3]}"


def _rand(rng, shape):
    return rng.standard_normal(shape).astype(bf16)


def test_package_picks_bf16_variant():
    if os.environ.get("TL_CROSS_COMMAND") or os.environ.get("TL_OPS_BACKEND", "").lower() == "interp":
        pytest.skip("kernels run under qemu / the interpreter here: the host package's variant is not in play")
    pkg = tl.load(PKG)
    if HAS_BF16:
        assert pkg.target == "x86_64-avx512bf16"
        with open("/proc/cpuinfo") as f:
            assert " avx512_bf16" in f.read()
    else:
        assert pkg.target != "x86_64-avx512bf16"


@pytest.mark.parametrize("mkn", [(1, 1, 1), (1, 300, 17), (5, 7, 3), (16, 64, 256), (17, 33, 257), (64, 255, 100),
                                 (65, 512, 512), (256, 256, 256), (300, 257, 130), (513, 1000, 600),
                                 (1024, 1024, 1024)])
def test_bf16_matmul_contract(mkn, monkeypatch):
    m, k, n = mkn
    launched = record_launches(monkeypatch)
    rng = np.random.default_rng(sum(mkn))
    a, b = _rand(rng, (m, k)), _rand(rng, (k, n))
    out = np.full((m, n), np.nan, np.float32)
    ops.matmul(a, b, out=out)
    _check(a, b, out)
    assert launched == [f"matmul_bf16__BM_{16 if m <= 16 else 64 if m <= 64 else 256}"]


def test_bf16_matmul_positive_sums():
    """All-positive inputs: no cancellation, so rounding errors add up (the worst case of the
    contract's bound), at K = 4096."""
    rng = np.random.default_rng(3)
    a = rng.uniform(0.5, 2, (40, 4096)).astype(bf16)
    b = rng.uniform(0.5, 2, (4096, 48)).astype(bf16)
    _check(a, b, ops.matmul(a, b))


def test_bf16_batch_strided_transposed_vectors():
    rng = np.random.default_rng(11)
    a = _rand(rng, (3, 70, 2 * 130))[:, :, ::2]             # inner stride 2: packed from float32 tiles
    bt = _rand(rng, (3, 90, 130))
    b = bt.transpose(0, 2, 1)                                # (3, 130, 90), column-major
    out = ops.matmul(a, b)
    assert out.shape == (3, 70, 90) and out.dtype == np.float32
    for z in range(3):
        _check(a[z], b[z], out[z])
    ob = ops.matmul(a[0], np.ascontiguousarray(b))           # broadcast a over the batch
    for z in range(3):
        _check(a[0], b[z], ob[z])
    v = ops.matmul(a[1, 0], b[1])                            # 1-D @ 2-D
    _check(a[1, :1], b[1], v[None])


def test_bf16_nan_inf_propagate():
    rng = np.random.default_rng(5)
    a = _rand(rng, (300, 260))
    b = _rand(rng, (260, 270))
    a[3, 7] = np.nan
    a[200, 259] = np.inf
    out = ops.matmul(a, b)
    assert np.isnan(out[3]).all()
    assert (np.isinf(out[200]) | np.isnan(out[200])).all()
    _check(a[:3], b, out[:3])


def test_avx512_fallback_meets_contract(tmp_path):
    """The same source built for x86_64-avx512 only (what a CPU without AVX512_BF16 runs)."""
    from tlc.package import pack
    out = tmp_path / "mm512.tlpkg"
    pack.build_package([f"{REPO}/ops/matmul_bf16.py"], "x86_64-avx512", str(out), jobs=1, progress=False)
    if "avx512f" not in _runtime.cpu_features():
        pytest.skip("this CPU has no AVX-512")
    pkg = tl.load(str(out))
    assert pkg.target == "x86_64-avx512"
    rng = np.random.default_rng(9)
    for m, k, n in [(300, 257, 130), (16, 33, 17), (64, 512, 300)]:
        a, b = _rand(rng, (1, m, k)), _rand(rng, (1, k, n))
        c = np.full((1, m, n), np.nan, np.float32)
        pkg[f"matmul_bf16__BM_{16 if m <= 16 else 64 if m <= 64 else 256}"](a, b, c)
        _check(a[0], b[0], c[0])
        if HAS_BF16:     # the two paths round differently (pairs vs one fma per k), both within the contract
            c2 = ops.matmul(a[0], b[0])
            _check(a[0], b[0], c2)
