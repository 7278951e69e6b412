"""Targets as data, ISA tables and `tlc targets` for aarch64/riscv64, plus a small end-to-end
smoke under qemu-user (skipped when the cross toolchain or qemu is missing; `make test-cross`
installs them and runs the full conformance suite, tests/cross/run_cross.py)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tlc.emit_c import isa
from tlc.target import TARGETS, emulator_command, resolve

REPO = Path(__file__).resolve().parents[2]


def test_cross_targets_resolve():
    names = [v.name for v in resolve("x86_64,aarch64,riscv64")]
    assert names == ["x86_64-avx512", "x86_64-avx2", "x86_64-baseline", "aarch64-neon", "riscv64-rvv",
                     "riscv64-baseline"]
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


@pytest.mark.parametrize("variant", ["aarch64-neon", "riscv64-rvv", "riscv64-baseline"])
def test_bundle_runs_under_qemu(variant, tmp_path):
    """One kernel (exp, sigmoid, sqrt, a partial tail tile) built for ``variant`` and run by the
    driver under each of its emulator configurations, against float64 NumPy."""
    v = resolve(variant)[0]
    need = [v.cc.split()[0], f"{v.triple}-gcc", emulator_command(v)[0]]
    if not all(shutil.which(t) for t in need) or not Path(v.sysroot).is_dir():
        pytest.skip(f"needs {', '.join(need)} and {v.sysroot} (make test-cross installs them)")
    src = tmp_path / "k.py"
    src.write_text(KERNEL)
    pkg = tmp_path / "k.tlpkg"
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/local/bin:/usr/bin:/bin", "TL_CACHE_DIR": str(tmp_path / "cache")}
    subprocess.run([sys.executable, "-m", "tlc", "build", str(src), "-t", variant, "-o", str(pkg), "-q"],
                   cwd=REPO, check=True, env=env)
    import zipfile
    bundle = tmp_path / f"{variant}.so"
    bundle.write_bytes(zipfile.ZipFile(pkg).read(f"bundles/{variant}.so"))
    rt = tmp_path / "rt"
    subprocess.run(["make", "-s", "-C", str(REPO / "libtl_runtime"), f"CROSS={v.triple}-", f"BUILD={rt}",
                    "PACKAGE_READER=0", str(rt / "libtl_runtime.a")], check=True, capture_output=True)
    driver = tmp_path / "tl_run"
    subprocess.run([f"{v.triple}-gcc", "-O2", "-std=gnu11", f"-I{REPO / 'libtl_runtime/include'}",
                    str(REPO / "tests/cross/tl_run.c"), str(rt / "libtl_runtime.a"), "-lpthread", "-ldl",
                    "-o", str(driver)], check=True)
    rng = np.random.default_rng(5)
    x = rng.uniform(-3, 3, (5, 131)).astype(np.float32)
    y = rng.uniform(-3, 3, (5, 131)).astype(np.float32)
    ref = np.exp(x.astype(np.float64)) / (1 + np.exp(-y.astype(np.float64))) + np.sqrt(np.abs(x.astype(np.float64)))
    for i in range(len(v.emulators)):
        np.save(tmp_path / "x.npy", x)
        np.save(tmp_path / "y.npy", y)
        np.save(tmp_path / "o.npy", np.full_like(x, np.nan))
        cmd = [*emulator_command(v, i), str(driver), str(bundle), "1"]
        r = subprocess.run(cmd, input=f"info\nrun fused 3 t={tmp_path}/x.npy t={tmp_path}/y.npy t={tmp_path}/o.npy\n",
                           capture_output=True, text=True, timeout=120)
        lines = r.stdout.splitlines()
        if "decode_save_opc" in r.stderr:     # QEMU 7.2 RVV translator bug (see run_cross.py)
            pytest.xfail("qemu 7.2 assertion in decode_save_opc while translating RVV code")
        assert lines[:1] and lines[0].startswith(f"ok {variant}"), (cmd, r.stdout, r.stderr)
        assert lines[1:2] == ["ok"], (cmd, r.stdout, r.stderr)
        got = np.load(tmp_path / "o.npy")
        np.testing.assert_allclose(got, ref, rtol=5e-6, atol=1e-6, err_msg=" ".join(cmd))
