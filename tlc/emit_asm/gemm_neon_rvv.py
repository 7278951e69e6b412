"""Register plans of the AArch64 NEON and RISC-V V fp32 GEMM microkernels of :mod:`tlc.emit_asm.gemm`.

Same contract as the x86 families (gemm.py): C[mr x nv*L] = (acc or 0) + A[mr x K] * B[K x nv*L]
(float32, static shapes, byte strides lda/ldb/ldc), each element computed as one fused
multiply-add per k, k ascending, so results equal the portable ``dot`` loops bit for bit
(their ``tl_fma`` is fused on both targets: vfmaq_f32 / __builtin_fmaf -> vfmadd). Python picks
every register here; templates/gemm_neon.j2 and gemm_rvv.j2 only substitute and loop.

neon (L = 4; 32 128-bit registers v0-v31). Sources: Arm Architecture Reference Manual for
A-profile (DDI 0487), C7.2 "FMLA (by element)" (fused, one rounding), "LD1 (multiple
structures)", "LD1R", "ST1" (post-index by register); Arm NEON intrinsics reference
(IHI 0073, vfmaq_laneq_f32 = FMLA by element). acc(i, v) = v[i*nv + v]; per row one A register
holding a[i, k..k+3] (one LD1 per 4 k), used as ``fmla acc, B, A.s[u]``; nv B registers loaded
by one LD1 per k. Strides are registers (post-index), so any K and N encode.
  registers: mr*nv + mr + nv <= 32  ->  nv=1: 12 rows (cap), nv=2: 10, nv=3: 7, nv=4: 5.

rvv (L = 8 = the RVV variant's fixed C vector width; RVV 1.0, riscv-v-spec-1.0.pdf: 6.1
vsetvli/vsetivli, 7.4 unit-stride vle32.v/vse32.v, 13.6 vfmacc.vf "vd[i] = +(f[rs1] * vs2[i]) +
vd[i]", fused). Vector-length agnostic: ``vsetivli zero, W, e32, m<LMUL>`` with W = nv*8 the
packed panel width and LMUL the least power of two with LMUL*128/32 >= W, so vl = W at every
VLEN >= 128 (spec 6.3: vl = AVL when AVL <= VLMAX). One register group per row of C,
two B groups (double-buffered), A as scalars (flw) from one pointer per row. The caller's
vl/vtype are saved (csrr) and restored (vsetvl), since the compiler's own vector code around
the call assumes them unchanged.
  groups: 32/LMUL; rows = groups - 2  ->  nv=1 (m2): 12 rows (cap), nv=2 (m4): 6, nv=3,4 (m8): 2.
"""
from __future__ import annotations

from tlc import simd, templating

FAMILIES = ("neon", "rvv")
LANES = {f: simd.UKERNEL_LANES[f] for f in FAMILIES}

# RISC-V float registers, caller-saved first (ft0-7, fa0-7, ft8-11), then callee-saved fs0-11
_FREGS = [*range(0, 8), *range(10, 18), *range(28, 32), 8, 9, *range(18, 28)]


def rvv_lmul(nv: int) -> int:
    """LMUL holding nv*8 float32 at VLEN = 128 (ValueError past m8)."""
    need = 2 * nv
    for m in (1, 2, 4, 8):
        if m >= need:
            return m
    raise ValueError(f"nv={nv}: a panel of {8 * nv} floats exceeds one LMUL=8 group at VLEN 128")


def max_rows(family: str, vregs: int, nv: int) -> int:
    """Largest mr of an mr x nv block that fits the register file (capped at 12)."""
    if family == "neon":
        return min(12, (vregs - nv) // (nv + 1))
    return min(12, vregs // rvv_lmul(nv) - 2)


def render(family: str, name: str, mr: int, nv: int, K: int, lda: int, ldb: int, ldc: int,
           acc: bool, unroll: int) -> str:
    """C source (GCC/clang extended asm) of one microkernel instance."""
    if mr < 1 or nv < 1 or K < 1 or mr > max_rows(family, 32, nv):
        raise ValueError(f"{family} microkernel: block {mr}x{nv} (K={K}) does not fit")
    kloops, tail = divmod(K, unroll)
    common = dict(name=name, mr=mr, lda=lda, ldb=ldb, ldc=ldc, acc=acc, kloops=kloops,
                  unroll=unroll, tail=tail)
    if family == "neon":
        rows = [", ".join(f"v{i * nv + v}.4s" for v in range(nv)) for i in range(mr)]
        accs = [[f"v{i * nv + v}" for v in range(nv)] for i in range(mr)]
        areg = [f"v{mr * nv + i}" for i in range(mr)]
        bregs = [f"v{mr * nv + mr + v}" for v in range(nv)]
        return templating.render("emit_asm/gemm_neon.j2",
            **common, rows=rows, accs=accs, areg=areg, bregs=bregs, blist=", ".join(f"{r}.4s" for r in bregs),
            clobbers=[f"v{r}" for r in range(mr * nv + mr + nv)])
    g = rvv_lmul(nv)
    fr = [[f"f{_FREGS[(u % 2) * mr + i]}" for i in range(mr)] for u in range(2)]
    return templating.render("emit_asm/gemm_rvv.j2",
        **common, w=8 * nv, lmul=g, kelems=lda // 4, accs=[f"v{g * i}" for i in range(mr)],
        bregs=[f"v{g * mr}", f"v{g * (mr + 1)}"], fr=fr,
        clobbers=[f"v{r}" for r in range(g * (mr + 2))], fclobbers=sorted({f for s in fr for f in s}))
