"""Register plans of the NEON and RVV GEMM microkernel families (tlc/emit_asm/gemm_neon_rvv.py):
block choice, register budgets, the RVV vector-length-agnostic vsetivli (vl = W at every
VLEN >= 128), and that the targets select them. Runs without a cross toolchain; the kernels
themselves run under qemu in tests/cross/test_ukernel_cross.py."""
import re

import pytest

from tlc.emit_asm import gemm, gemm_neon_rvv
from tlc.backends import resolve


def test_targets_select_families():
    neon, rvv = resolve("aarch64-neon")[0], resolve("riscv64-rvv")[0]
    assert (neon.ukernel, neon.vregs, neon.lanes) == ("neon", 32, gemm.LANES["neon"])
    assert (rvv.ukernel, rvv.vregs, rvv.lanes) == ("rvv", 32, gemm.LANES["rvv"])
    assert resolve("riscv64-baseline")[0].ukernel == ""


def test_choose_blocks():
    assert gemm.choose("neon", 32, 4, 64, 32, 64) == (8, 2)
    assert gemm.choose("neon", 32, 4, 37, 32, 64) == (10, 2)
    assert gemm.choose("neon", 32, 4, 64, 32, 4) == (12, 1)
    assert gemm.choose("neon", 32, 4, 60, 32, 4) == (12, 1)
    assert gemm.choose("neon", 32, 4, 3, 5, 4) == (3, 1)
    assert gemm.choose("neon", 32, 4, 64, 32, 3) is None
    assert gemm.choose("neon", 32, 8, 64, 32, 64) is None       # lanes must match the family
    assert gemm.choose("rvv", 32, 8, 64, 32, 64) == (6, 2)
    assert gemm.choose("rvv", 32, 8, 64, 32, 8) == (12, 1)
    assert gemm.choose("rvv", 32, 8, 66, 32, 40) == (6, 2)
    assert gemm.choose("rvv", 32, 8, 64, 32, 7) is None


@pytest.mark.parametrize("nv", [1, 2, 3, 4])
def test_neon_register_budget(nv):
    mr = gemm.max_rows("neon", 32, nv)
    _, src = gemm.function("neon", mr, nv, 9, 36, 4 * 4 * nv, 4 * 4 * nv, True)
    used = {int(r) for r in re.findall(r"\bv(\d+)\.", src)}
    assert max(used) <= 31 and len(used) == mr * nv + mr + nv
    # K = 9: the loop body (4 k) once, then one tail step
    assert src.count("fmla") == 5 * mr * nv and len(re.findall(r"\.s\[[1-3]\]", src)) == 3 * mr * nv


@pytest.mark.parametrize("nv", [1, 2, 3, 4])
def test_rvv_vector_length_agnostic(nv):
    lmul = gemm_neon_rvv.rvv_lmul(nv)
    W = 8 * nv
    for vlen in (128, 256, 512):
        assert min(W, lmul * vlen // 32) == W        # vl = AVL = W when W <= VLMAX (RVV 1.0 6.3)
    mr = gemm.max_rows("rvv", 32, nv)
    _, src = gemm.function("rvv", mr, nv, 7, 28, 4 * W, 4 * W, False)
    assert f"vsetivli zero, {W}, e32, m{lmul}, ta, ma" in src
    groups = {int(r) for ln in src.splitlines() if re.search(r"\"(vle32|vse32|vmv|vfmacc)", ln)
              for r in re.findall(r"\bv(\d+)\b", ln)}
    assert all(g % lmul == 0 for g in groups) and max(groups) + lmul <= 32
    assert src.count("vfmacc.vf") == (4 + 3) * mr and "vsetvl zero, %[svl], %[svt]" in src


def test_bad_block_raises():
    with pytest.raises(ValueError, match="does not fit"):
        gemm.function("neon", 11, 2, 4, 16, 32, 32, False)
    with pytest.raises(ValueError, match="exceeds"):
        gemm_neon_rvv.rvv_lmul(5)
