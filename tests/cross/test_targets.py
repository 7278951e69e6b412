"""Targets as data, ISA tables and `tlc targets` for aarch64/riscv64, plus small end-to-end
runs under qemu-user (a fused kernel on every variant; float -> int conversions and floor/ceil on
edge values on riscv64, where the RVV bundle must hold no vector rtz conversion), skipped when the
cross toolchain or qemu is missing; `make test-cross` installs them and runs the full conformance
suite, tests/cross/run_cross.py."""
from __future__ import annotations

import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tlc.emit_c import isa
from tlc.backends import resolve
from tlc.backends.cpu.targets import TARGETS, emulator_command

REPO = Path(__file__).resolve().parents[2]


def test_cross_targets_resolve():
    names = [v.name for v in resolve("x86_64,aarch64,riscv64")]
    assert names == ["x86_64-avx512bf16", "x86_64-avx512", "x86_64-avx2", "x86_64-baseline", "aarch64-neon",
                     "riscv64-rvv", "riscv64-baseline"]
    rvv = resolve("riscv64-rvv")[0]
    cmds = [emulator_command(rvv, i) for i in range(len(rvv.emulators))]
    assert [c[-1].split("vlen=")[1] for c in cmds] == ["128", "256", "512"]
    assert all("{sysroot}" not in " ".join(c) for c in cmds)
    with pytest.raises(ValueError):
        emulator_command(resolve("x86_64-avx2")[0])


@pytest.mark.parametrize("key", ["neon", "rvv", "rv64"])
def test_isa_tables_complete(key):
    for entry in isa.REQUIRED:
        isa.entry(key, entry, a="a", b="b", c="c")
    assert isa.table(key)["lanes"] == next(v.lanes for t in TARGETS.values() for v in t.variants if v.isa == key)


def test_tlc_targets_status():
    out = subprocess.run([sys.executable, "-m", "tlc", "targets", "--json"], cwd=REPO, capture_output=True,
                         text=True, check=True, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    data = json.loads(out.stdout)
    status = {v["name"]: v["status"] for t in data["targets"] for v in t["variants"]}
    assert set(status) >= {"aarch64-neon", "riscv64-rvv", "riscv64-baseline"}
    assert set(status.values()) <= {"native", "emulated", "unavailable"}
    if shutil.which("qemu-riscv64") and data["host"]["arch"] == "x86_64":
        assert status["riscv64-rvv"] == "emulated"


KERNEL = '''
import tl

@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 2), tl.cdiv(out.shape[1], 64)))
def fused(x: tl.tensor, y: tl.tensor, out: tl.tensor, BM: tl.constexpr = 2, BN: tl.constexpr = 64):
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN))
    b = tl.load(y + (r, c), (BM, BN))
    tl.store(out + (r, c), tl.exp(a) * tl.sigmoid(b) + tl.sqrt(tl.abs(a)))
'''


_DRIVERS: dict[str, Path] = {}


def _need(v) -> None:
    need = [v.cc.split()[0], f"{v.triple}-gcc", emulator_command(v)[0]]
    if not all(shutil.which(t) for t in need) or not Path(v.sysroot).is_dir():
        pytest.skip(f"needs {', '.join(need)} and {v.sysroot} (make test-cross installs them)")


def _driver(v, tmp_path_factory) -> Path:
    """tl_run for ``v``'s architecture, bare-bundle runtime (PACKAGE_READER=0), linked statically
    (qemu-aarch64 7.2 hangs dynamically linked programs that start threads); built once."""
    if v.arch not in _DRIVERS:
        d = tmp_path_factory.mktemp(f"driver-{v.arch}")
        subprocess.run(["make", "-s", "-C", str(REPO / "libtl_runtime"), f"CROSS={v.triple}-", f"BUILD={d / 'rt'}",
                        "PACKAGE_READER=0", str(d / "rt" / "libtl_runtime.a")], check=True, capture_output=True)
        subprocess.run([f"{v.triple}-gcc", "-O2", "-std=gnu11", f"-I{REPO / 'libtl_runtime/include'}",
                        str(REPO / "tests/cross/tl_run.c"), str(d / "rt" / "libtl_runtime.a"), "-static",
                        "-lpthread", "-ldl", "-o", str(d / "tl_run")], check=True, capture_output=True)
        _DRIVERS[v.arch] = d / "tl_run"
    return _DRIVERS[v.arch]


def _bundle(source: str, variant: str, tmp_path: Path) -> Path:
    src = tmp_path / "k.py"
    src.write_text(source)
    pkg = tmp_path / "k.tlpkg"
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/local/bin:/usr/bin:/bin", "TL_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-m", "tlc", "build", str(src), "-t", variant, "-o", str(pkg), "-q"],
                   cwd=REPO, check=True, env=env)
    import zipfile
    bundle = tmp_path / f"{variant}.so"
    bundle.write_bytes(zipfile.ZipFile(pkg).read(f"bundles/{variant}.so"))
    return bundle


def _run(v, i: int, driver: Path, bundle: Path, commands: str) -> list[str]:
    """The driver's answers to ``commands`` under ``v``'s i-th emulator configuration, 2 threads."""
    cmd = [*emulator_command(v, i), str(driver), str(bundle), "2"]
    r = subprocess.run(cmd, input=f"info\n{commands}", capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    assert lines[:1] and lines[0].startswith(f"ok {v.name}"), (cmd, r.stdout, r.stderr)
    return lines[1:]


@pytest.mark.parametrize("variant", ["aarch64-neon", "riscv64-rvv", "riscv64-baseline"])
def test_bundle_runs_under_qemu(variant, tmp_path, tmp_path_factory):
    """One kernel (exp, sigmoid, sqrt, a partial tail tile) built for ``variant`` and run by the
    driver (2 runtime threads) under each of its emulator configurations, against float64 NumPy."""
    v = resolve(variant)[0]
    _need(v)
    bundle = _bundle(KERNEL, variant, tmp_path)
    driver = _driver(v, tmp_path_factory)
    rng = np.random.default_rng(5)
    x = rng.uniform(-3, 3, (5, 131)).astype(np.float32)
    y = rng.uniform(-3, 3, (5, 131)).astype(np.float32)
    ref = np.exp(x.astype(np.float64)) / (1 + np.exp(-y.astype(np.float64))) + np.sqrt(np.abs(x.astype(np.float64)))
    for i in range(len(v.emulators)):
        np.save(tmp_path / "x.npy", x)
        np.save(tmp_path / "y.npy", y)
        np.save(tmp_path / "o.npy", np.full_like(x, np.nan))
        out = _run(v, i, driver, bundle, f"run fused 3 t={tmp_path}/x.npy t={tmp_path}/y.npy t={tmp_path}/o.npy\n")
        assert out[:1] == ["ok"], out
        got = np.load(tmp_path / "o.npy")
        np.testing.assert_allclose(got, ref, rtol=5e-6, atol=1e-6, err_msg=f"{variant} configuration {i}")


CONVERT = '''
import tl

@tl.kernel(grid=lambda x, oi, ol, of: (tl.cdiv(x.shape[0], 1), tl.cdiv(x.shape[1], 32)))
def convert(x: tl.tensor(tl.float32, 2), oi: tl.tensor(tl.int32, 2), ol: tl.tensor(tl.int64, 2),
            of: tl.tensor(tl.float32, 2), BN: tl.constexpr = 32):
    c = tl.program_id(1) * BN
    a = tl.load(x + (tl.program_id(0), c), (1, BN))
    tl.store(oi + (tl.program_id(0), c), a.to(tl.int32))
    tl.store(ol + (tl.program_id(0), c), a.to(tl.int64))
    tl.store(of + (tl.program_id(0), c), tl.floor(a) * 4.0 + tl.ceil(a))
'''


def _riscv_trunc(x: np.ndarray, dtype) -> np.ndarray:
    """float32 -> ``dtype`` as RISC-V's fcvt/vfcvt with rtz: toward zero, saturating, NaN -> max
    (RISC-V ISA manual, "Single-Precision Floating-Point Conversion and Move Instructions")."""
    info = np.iinfo(dtype)
    out = [info.max if math.isnan(f) else max(info.min, min(info.max, math.trunc(f))) if math.isfinite(f)
           else (info.max if f > 0 else info.min) for f in x.ravel().astype(np.float64)]
    return np.array(out, dtype).reshape(x.shape)


@pytest.mark.parametrize("variant", ["riscv64-rvv", "riscv64-baseline"])
def test_float_to_int_conversions_riscv(variant, tmp_path, tmp_path_factory):
    """float32 -> int32/int64 (truncation) and floor/ceil on edge values, under every emulator
    configuration. The RVV variant converts on the IEEE bits (QEMU 7.2 aborts on vfcvt.rtz /
    vfwcvt.rtz), so its bundle must hold no vector FP-to-int conversion and agree bit for bit
    with RISC-V's scalar fcvt (the baseline variant): truncation, saturation, NaN -> max."""
    v = resolve(variant)[0]
    _need(v)
    bundle = _bundle(CONVERT, variant, tmp_path)
    if v.isa == "rvv" and shutil.which("llvm-objdump"):
        dis = subprocess.run(["llvm-objdump", "-d", "--mattr=+v", str(bundle)], capture_output=True, text=True,
                             check=True).stdout
        assert "vfcvt.f.x.v" in dis or "vfncvt.f.x.w" in dis, "disassembly without RVV conversions"
        assert not re.search(r"vf[wn]?cvt\.rtz", dis), "RVV bundle holds an rtz vector conversion"
    edges = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 0.99999994, -0.99999994, 1.0, -1.0, 1.5, -2.5,
             8388607.5, 8388609.0, -16777216.0, 2147483520.0, -2147483648.0, 2147483648.0, -2147483904.0,
             1e10, -1e10, 2.0 ** 40 + 2.0 ** 17, 9.2233715e18, -(2.0 ** 63), 2.0 ** 63, -1e19, 1e-40, -1e-45,
             3.4e38, -3.4e38, -np.nan]
    rng = np.random.default_rng(7)
    vals = np.concatenate([np.array(edges, np.float32), rng.uniform(-1e5, 1e5, 40).astype(np.float32),
                           (rng.standard_normal(17) * 2.0 ** rng.integers(0, 70, 17)).astype(np.float32)])
    x = vals.reshape(1, -1)                     # 89 columns: 2 full tiles of 32 and a tail
    with np.errstate(over="ignore"):      # |x| near 3.4e38: 4 floor(x) is inf in float32, as in the kernel
        ref_f = (np.floor(x.astype(np.float64)) * 4.0 + np.ceil(x.astype(np.float64))).astype(np.float32)
    for i in range(len(v.emulators)):
        np.save(tmp_path / "x.npy", x)
        np.save(tmp_path / "oi.npy", np.zeros(x.shape, np.int32))
        np.save(tmp_path / "ol.npy", np.zeros(x.shape, np.int64))
        np.save(tmp_path / "of.npy", np.zeros(x.shape, np.float32))
        driver = _driver(v, tmp_path_factory)
        out = _run(v, i, driver, bundle,
                   f"run convert 4 t={tmp_path}/x.npy t={tmp_path}/oi.npy t={tmp_path}/ol.npy t={tmp_path}/of.npy\n")
        assert out[:1] == ["ok"], (out, driver)
        msg = f"{variant} configuration {i}"
        np.testing.assert_array_equal(np.load(tmp_path / "oi.npy"), _riscv_trunc(x, np.int32), err_msg=msg)
        np.testing.assert_array_equal(np.load(tmp_path / "ol.npy"), _riscv_trunc(x, np.int64), err_msg=msg)
        np.testing.assert_array_equal(np.load(tmp_path / "of.npy"), ref_f, err_msg=msg)


DIVMOD = '''
import tl

@tl.kernel(grid=lambda x, y, oq, orr: (1, tl.cdiv(x.shape[1], 32)))
def divmod_f(x: tl.tensor(tl.float32, 2), y: tl.tensor(tl.float32, 2), oq: tl.tensor(tl.float32, 2),
             orr: tl.tensor(tl.float32, 2), BN: tl.constexpr = 32):
    c = tl.program_id(1) * BN
    a = tl.load(x + (0, c), (1, BN))
    b = tl.load(y + (0, c), (1, BN))
    tl.store(oq + (0, c), a // b)
    tl.store(orr + (0, c), a % b)
'''


@pytest.mark.parametrize("variant", ["aarch64-neon", "riscv64-rvv", "riscv64-baseline"])
def test_float_divmod_cross(variant, tmp_path, tmp_path_factory):
    """Float `//` and `%` bit for bit as np.floor_divide / np.remainder on float32 (exact fmod,
    npy_divmod): large quotients (1e8 % 3 = 1), zero/inf/NaN divisors, -0.0, random values."""
    v = resolve(variant)[0]
    _need(v)
    bundle = _bundle(DIVMOD, variant, tmp_path)
    sa = np.array([1e8, 5e8, 1e9, -1e8, 7.0, -7.0, 0.0, -0.0, 0.1, 3.4e38, np.inf, -np.inf, np.nan, 1e-45],
                  np.float32)
    sb = np.array([3.0, -3.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 0.1, 1e-38], np.float32)
    a, b = (m.ravel() for m in np.meshgrid(sa, sb))
    rng = np.random.default_rng(9)
    a = np.concatenate([a, (rng.standard_normal(300) * 1e9).astype(np.float32)]).reshape(1, -1)
    b = np.concatenate([b, (rng.standard_normal(300) * 10).astype(np.float32)]).reshape(1, -1)
    with np.errstate(all="ignore"):
        wq, wr = np.floor_divide(a, b), np.remainder(a, b)
    driver = _driver(v, tmp_path_factory)
    for i in range(len(v.emulators)):
        for n, arr in (("x", a), ("y", b), ("q", np.zeros_like(a)), ("r", np.zeros_like(a))):
            np.save(tmp_path / f"{n}.npy", arr)
        out = _run(v, i, driver, bundle, "run divmod_f 4 " + " ".join(f"t={tmp_path}/{n}.npy" for n in "xyqr") + "\n")
        assert out[:1] == ["ok"], out
        for n, want in (("q", wq), ("r", wr)):
            got = np.load(tmp_path / f"{n}.npy")
            same = (got.view(np.uint32) == want.view(np.uint32)) | (np.isnan(got) & np.isnan(want))
            assert same.all(), (variant, i, n, a[~same][:5], b[~same][:5], got[~same][:5], want[~same][:5])


GELU = '''
import tl

@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[1], 64),))
def gelu_k(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2), BN: tl.constexpr = 64):
    c = tl.program_id(0) * BN
    tl.store(out + (0, c), tl.gelu(tl.load(x + (0, c), (1, BN))))
'''


@pytest.mark.parametrize("variant", ["aarch64-neon", "riscv64-rvv", "riscv64-baseline"])
def test_gelu_cross(variant, tmp_path, tmp_path_factory):
    """tl.gelu (vmath tl_v_gelu, the non-AVX-512 2^n scaling path) under qemu: <= 6 ulp against
    float64 over a dense sweep of [-15, 6] (the underflowing tail included), specials exact."""
    from scipy.special import erfc
    v = resolve(variant)[0]
    _need(v)
    bundle = _bundle(GELU, variant, tmp_path)
    sp = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-40, 20.0, -20.0, 3e38, -3e38], np.float32)
    x = np.concatenate([sp, np.linspace(-15, 6, 20011).astype(np.float32)]).reshape(1, -1)
    xd = x.astype(np.float64)
    with np.errstate(all="ignore"):
        want = np.where(np.isneginf(xd), 0.0, 0.5 * xd * erfc(-xd / np.sqrt(2.0)))
    driver = _driver(v, tmp_path_factory)
    for i in range(len(v.emulators)):
        np.save(tmp_path / "x.npy", x)
        np.save(tmp_path / "o.npy", np.full_like(x, 7.0))
        out = _run(v, i, driver, bundle, f"run gelu_k 2 t={tmp_path}/x.npy t={tmp_path}/o.npy\n")
        assert out[:1] == ["ok"], out
        got = np.load(tmp_path / "o.npy")
        assert np.isnan(got[0, 0]) and got[0, 1] == np.inf and got[0, 2] == 0 and np.signbit(got[0, 3])
        spacing = np.spacing(np.abs(want[0, 4:]).astype(np.float32)).astype(np.float64)
        spacing = np.maximum(spacing, 2.0 ** -149)
        err = np.abs(got[0, 4:] - want[0, 4:]) / spacing
        assert err.max() <= 6, (variant, i, err.max(), x[0, 4 + int(np.argmax(err))])
