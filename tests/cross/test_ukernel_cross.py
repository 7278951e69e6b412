"""The NEON and RVV assembly GEMM microkernels (tlc/emit_asm/gemm_neon.j2, gemm_rvv.j2) under qemu-user.

One TL kernel ``mm`` (a (M, K) x (K, N) float32 ``tl.dot``, optionally accumulating into the loaded
C tile, B either loaded straight from the tensor (packed from it) or computed as ``b * 1.0`` (packed
from the tile copy)) is specialized over every edge of the register block: M from 1 to past 2x the
largest mr, N across 1..2x the panel width plus odd sizes, K across the unroll of 4 and odd sizes.
It is built twice per variant: with the microkernel (``Variant.ukernel``) and with the portable
loops (``ukernel=""``), and both bundles run through tests/cross/tl_run.c under every emulator
configuration of the variant (aarch64; RVV at VLEN 128, 256 and 512). Checks: the microkernel
bundle contains fmla / vfmacc.vf and the portable one none of its kind; results equal float64
NumPy to fp32 accuracy (rtol 1e-5, atol 1e-5 * (K + 1)) and the portable loops bit for bit
(both are one fused multiply-add per k, k ascending). Skipped without the cross toolchain and qemu
(`make test-cross` installs them).

    .venv/bin/python -m pytest -q tests/cross/test_ukernel_cross.py
"""
from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tlc import driver
from tlc.emit_asm import gemm
from tlc.backends.cpu import build
from tlc.backends import resolve
from tlc.backends.cpu.targets import emulator_command

REPO = Path(__file__).resolve().parents[2]

SHAPES = ([(m, 5, 45) for m in range(1, 26)]
          + [(11, 7, n) for n in (1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 24, 25, 31, 32, 33, 40, 47, 48, 49, 64, 65)]
          + [(14, k, 32) for k in (1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 31)]
          + [(37, 33, 61), (64, 64, 64), (25, 129, 80), (2, 300, 16)]
          # loop count K // 4 equal to a stride constant (ldb or ldc in bytes): the asm's in-out
          # operands must be early-clobber or the compiler may share one register for both
          + [(11, 129, 16), (13, 128, 8), (7, 256, 16)])

SOURCE_HEAD = '''
import tl


@tl.kernel(grid=lambda a, b, c: (1,), specializations=[{specs}])
def mm(a: tl.tensor(tl.float32, 2), b: tl.tensor(tl.float32, 2), c: tl.tensor(tl.float32, 2),
       M: tl.constexpr = 1, K: tl.constexpr = 1, N: tl.constexpr = 1, ACC: tl.constexpr = 0,
       BX: tl.constexpr = 0):
    at = tl.load(a + (0, 0), (M, K))
    bt = tl.load(b + (0, 0), (K, N))
    if BX:
        bt = bt * 1.0
    if ACC:
        tl.store(c + (0, 0), tl.dot(at, bt, tl.load(c + (0, 0), (M, N))))
    else:
        tl.store(c + (0, 0), tl.dot(at, bt))
'''


def _flags(n: int) -> tuple[int, int]:
    """(ACC, BX) of shape number n: all four combinations cycle."""
    return n % 2, (n // 2) % 2


def _instance(M, K, N, acc, bx) -> str:
    return f"mm__ACC_{acc}__BX_{bx}__K_{K}__M_{M}__N_{N}"


def _bundle(src: Path, variant, out: Path) -> Path:
    unit = driver.compile_unit(str(src), variant)
    c = out.with_suffix(".c")
    c.write_text(unit.c_source)
    build.compile_object(c, out.with_suffix(".o"), variant, unit="mm")
    build.link_bundle([out.with_suffix(".o")], [("mm", len(SHAPES))], variant, out, out.parent / (out.stem + "_link"))
    return out


def _tools(v) -> list[str]:
    return [v.cc.split()[0], f"{v.triple}-gcc", f"{v.triple}-objdump", emulator_command(v)[0]]


@pytest.fixture(scope="module", params=["aarch64-neon", "riscv64-rvv"])
def built(request, tmp_path_factory):
    v = resolve(request.param)[0]
    if not all(shutil.which(t) for t in _tools(v)) or not Path(v.sysroot).is_dir():
        pytest.skip(f"needs {', '.join(_tools(v))} and {v.sysroot} (make test-cross installs them)")
    tmp = tmp_path_factory.mktemp(v.name)
    specs = ", ".join(f"dict(M={M}, K={K}, N={N}, ACC={_flags(n)[0]}, BX={_flags(n)[1]})"
                      for n, (M, K, N) in enumerate(SHAPES))
    src = tmp / "mm.py"
    src.write_text(SOURCE_HEAD.format(specs=specs))
    so_uk = _bundle(src, v, tmp / "uk.so")
    so_port = _bundle(src, dataclasses.replace(v, ukernel=""), tmp / "port.so")
    rt = tmp / "rt"
    subprocess.run(["make", "-s", "-C", str(REPO / "libtl_runtime"), f"CROSS={v.triple}-", f"BUILD={rt}",
                    "PACKAGE_READER=0", str(rt / "libtl_runtime.a")], check=True, capture_output=True)
    drv = tmp / "tl_run"
    subprocess.run([f"{v.triple}-gcc", "-O2", "-std=gnu11", f"-I{REPO / 'libtl_runtime/include'}",
                    str(REPO / "tests/cross/tl_run.c"), str(rt / "libtl_runtime.a"), "-lpthread", "-ldl",
                    "-o", str(drv)], check=True)
    return v, tmp, so_uk, so_port, drv


def _disasm(v, so: Path) -> str:
    return subprocess.run([f"{v.triple}-objdump", "-d", str(so)], capture_output=True, text=True, check=True).stdout


def test_bundles_use_the_microkernel(built):
    v, _, so_uk, so_port, _ = built
    fma = {"neon": "fmla\t", "rvv": "vfmacc.vf"}[v.ukernel]
    uk, port = _disasm(v, so_uk), _disasm(v, so_port)
    assert uk.count(fma) >= 100, f"{v.name}: {uk.count(fma)} x {fma!r} in the microkernel bundle"
    if v.ukernel == "neon":      # only the microkernel indexes A lanes 1..3 (4 k per A register)
        by_lane3 = [sum("fmla" in ln and ".s[3]" in ln for ln in d.splitlines()) for d in (uk, port)]
        assert by_lane3[0] >= 100 and by_lane3[1] == 0, by_lane3
    else:                        # only the microkernel saves the caller's vtype (csrr) around its vsetivli
        saves = [d.count("vtype") for d in (uk, port)]
        assert saves[0] >= 20 and saves[1] == 0 and uk.count(fma) > 2 * port.count(fma), saves
    used = sum(gemm.choose(v.ukernel, v.vregs, v.lanes, M, K, N) is not None for M, K, N in SHAPES)
    assert used == sum(N >= v.lanes for _, _, N in SHAPES)


def _run_all(cmd: list[str], tmp: Path, tag: str, inputs) -> tuple[list[np.ndarray], str]:
    lines = ["info"]
    for n, ((M, K, N), (A, B, C0)) in enumerate(zip(SHAPES, inputs)):
        acc, bx = _flags(n)
        np.save(tmp / f"a{n}.npy", A)
        np.save(tmp / f"b{n}.npy", B)
        np.save(tmp / f"{tag}{n}.npy", C0 if acc else np.full((M, N), np.nan, np.float32))
        lines.append(f"run {_instance(M, K, N, acc, bx)} 3 t={tmp}/a{n}.npy t={tmp}/b{n}.npy t={tmp}/{tag}{n}.npy")
    r = subprocess.run(cmd, input="\n".join(lines + ["quit"]) + "\n", capture_output=True, text=True, timeout=600)
    out = r.stdout.splitlines()
    assert len(out) == len(SHAPES) + 1 and all(ln == "ok" for ln in out[1:]), (cmd, r.stdout[-3000:], r.stderr[-3000:])
    return [np.load(tmp / f"{tag}{n}.npy") for n in range(len(SHAPES))], out[0]


def test_ukernel_matches_reference_and_portable(built):
    v, tmp, so_uk, so_port, drv = built
    rng = np.random.default_rng(11)
    inputs = [(rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32),
               rng.standard_normal((M, N)).astype(np.float32)) for M, K, N in SHAPES]
    for i in range(len(v.emulators)):
        emu = emulator_command(v, i)
        got_uk, info = _run_all([*emu, str(drv), str(so_uk), "1"], tmp, "u", inputs)
        assert info.startswith(f"ok {v.name}"), info
        got_port, _ = _run_all([*emu, str(drv), str(so_port), "1"], tmp, "p", inputs)
        for n, ((M, K, N), (A, B, C0)) in enumerate(zip(SHAPES, inputs)):
            acc = _flags(n)[0]
            want = A.astype(np.float64) @ B + (C0 if acc else 0)
            where = f"{v.name} [{' '.join(emu[3:]) or emu[0]}] {M}x{K}x{N} acc={acc}"
            np.testing.assert_allclose(got_uk[n], want, rtol=1e-5, atol=1e-5 * (K + 1), err_msg=where)
            assert np.array_equal(got_uk[n], got_port[n]), f"{where}: microkernel != portable loops"
