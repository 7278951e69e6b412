"""The CPU backend's targets as data: each target is a list of variants (one bundle each) that the
runtime picks from at load time by architecture and CPU features (resolving names:
:func:`tlc.backends.resolve`).

Never ``-march=native``: every variant names a fixed ISA level so packages run on other machines.
The x86-64 levels are those of the x86-64 psABI (v1 baseline, v3 = AVX2+FMA, v4 = AVX-512).
"""
from __future__ import annotations

import platform
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Variant:
    """One bundle of a target.

    name      variant name, also the bundle file stem: "x86_64-avx512"
    arch      machine architecture as ``uname -m`` prints it
    isa       key of the emitter's ISA table (tlc/emit_c/isa.py)
    features  CPU features the bundle needs, named as the runtime reports them
    priority  higher wins when several variants can run
    triple    target triple for the C compiler
    cc        C compiler command
    cflags    ISA flags (the build adds optimisation and freestanding flags)
    lanes     float32 lanes per vector register (the emitter's vector width L)
    emulators qemu-user command prefixes that run this variant's binaries on another machine,
              one per configuration the cross tests cover (e.g. RVV at VLEN 128/256/512);
              "{sysroot}" is replaced by ``sysroot``. Empty: no emulation (x86_64 runs natively here)
    sysroot   the cross C library root for qemu's ``-L`` (Debian's libc6-<arch>-cross)
    apt       Debian packages that provide ``cc`` and the emulator (installed by ``make test-cross``)
    vregs     architectural vector registers (register blocking of dot microkernels)
    ukernel   family of the assembly GEMM microkernel in tlc/emit_asm ("avx512", "avx2", "neon", "rvv"), or ""
              for the portable vector loops
    ukernel_bf16  family of the bfloat16 x bfloat16 -> float32 GEMM microkernel (tlc/emit_asm/gemm_bf16.py,
              "avx512bf16": vdpbf16ps), or "" (bfloat16 dots then take the float32 path above)
    reuse     another variant of the same target whose object a source file links when its C for this
              variant does not use what the variant adds (no bf16 microkernel call:
              tlc/package/pack.py ``uses_own_code``), so only such files are compiled twice; or ""
    l1d, l2   data cache bytes per core assumed for cache blocking
    """

    name: str
    arch: str
    isa: str
    features: tuple[str, ...]
    priority: int
    triple: str
    cc: str
    cflags: tuple[str, ...]
    lanes: int
    vregs: int = 16
    ukernel: str = ""
    ukernel_bf16: str = ""
    reuse: str = ""
    l1d: int = 32 * 1024
    l2: int = 512 * 1024
    emulators: tuple[tuple[str, ...], ...] = ()
    sysroot: str = ""
    apt: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    description: str
    variants: tuple[Variant, ...]


X86_64 = Target(
    "x86_64",
    "x86-64 with AVX-512 + BF16, AVX-512 (x86-64-v4), AVX2+FMA (x86-64-v3) and SSE2 baseline variants",
    (
        # AVX-512 plus AVX512_BF16 (Zen 4/5, Cooper Lake, Sapphire Rapids+): the avx512 bundle
        # with bfloat16 dots on vdpbf16ps (float32 accumulation, see tlc/emit_asm/gemm_bf16.py);
        # files without a bf16 dot link their x86_64-avx512 objects (reuse): only those are compiled twice
        Variant("x86_64-avx512bf16", "x86_64", "avx512",
                ("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma", "f16c", "avx512bf16"), 40,
                "x86_64-linux-gnu", "gcc",
                ("-march=x86-64-v4", "-mavx512bf16", "-mtune=generic", "-mprefer-vector-width=512"), 16,
                vregs=32, ukernel="avx512", ukernel_bf16="avx512bf16", reuse="x86_64-avx512",
                l1d=48 * 1024, l2=1024 * 1024),
        Variant("x86_64-avx512", "x86_64", "avx512",
                ("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma", "f16c"), 30,
                "x86_64-linux-gnu", "gcc", ("-march=x86-64-v4", "-mtune=generic", "-mprefer-vector-width=512"), 16,
                vregs=32, ukernel="avx512", l1d=48 * 1024, l2=1024 * 1024),
        Variant("x86_64-avx2", "x86_64", "avx2", ("avx2", "fma", "f16c"), 20,
                "x86_64-linux-gnu", "gcc", ("-march=x86-64-v3", "-mtune=generic"), 8,
                vregs=16, ukernel="avx2"),
        Variant("x86_64-baseline", "x86_64", "sse2", ("sse2",), 10,
                "x86_64-linux-gnu", "gcc", ("-march=x86-64", "-mtune=generic"), 4),
    ),
)

# AArch64: Advanced SIMD (NEON) is architectural in ARMv8-A, so one baseline bundle serves every
# aarch64 Linux machine (FMA and float16 conversions included). No SVE variant: the emitter's
# GCC vector extensions have a fixed width, and fixed-width SVE code (-msve-vector-bits=N) runs
# only on machines whose vector length is exactly N, so it would add nothing over NEON here.
_A64_EMU = ("qemu-aarch64", "-L", "{sysroot}")
AARCH64 = Target(
    "aarch64",
    "AArch64 (ARMv8-A) with Advanced SIMD (NEON): 4 float32 lanes, fused multiply-add, float16 conversions",
    (
        Variant("aarch64-neon", "aarch64", "neon", ("neon",), 10,
                "aarch64-linux-gnu", "aarch64-linux-gnu-gcc", ("-march=armv8-a", "-mtune=generic", "-mno-outline-atomics"), 4,
                vregs=32, ukernel="neon",
                emulators=(_A64_EMU,), sysroot="/usr/aarch64-linux-gnu",
                apt=("gcc-aarch64-linux-gnu", "qemu-user")),
    ),
)

# RISC-V 64: RVV 1.0 ("v", VLEN >= 128 by the spec) and the scalar rv64gc baseline. Debian
# bookworm's riscv64 cross gcc (12) cannot emit RVV, so the RVV variant is built by clang with
# fixed-length vectors lowered to RVV (-riscv-v-vector-bits-min=128): every vector op runs under
# `vsetivli` with a constant AVL of L=8 (LMUL 2 at VLEN 128), which is correct at every
# VLEN >= 128 -- one bundle, any VLEN, tested at 128, 256 and 512.
_RV_EMU = "qemu-riscv64"
RISCV64 = Target(
    "riscv64",
    "RISC-V RV64GC with the vector extension RVV 1.0 (any VLEN >= 128) and a scalar rv64gc baseline",
    (
        Variant("riscv64-rvv", "riscv64", "rvv", ("rv64gc", "v"), 20,
                "riscv64-linux-gnu", "clang --target=riscv64-linux-gnu",
                ("-march=rv64gcv", "-mabi=lp64d", "-mllvm", "-riscv-v-vector-bits-min=128",
                 "-fno-math-errno", "-Wno-unknown-warning-option"), 8,
                vregs=32, ukernel="rvv",
                emulators=tuple((_RV_EMU, "-L", "{sysroot}", "-cpu", f"rv64,v=true,vext_spec=v1.0,vlen={n}")
                                for n in (128, 256, 512)),
                sysroot="/usr/riscv64-linux-gnu", apt=("clang", "gcc-riscv64-linux-gnu", "qemu-user")),
        Variant("riscv64-baseline", "riscv64", "rv64", ("rv64gc",), 10,
                "riscv64-linux-gnu", "riscv64-linux-gnu-gcc", ("-march=rv64gc", "-mabi=lp64d", "-fno-math-errno"), 4,
                emulators=((_RV_EMU, "-L", "{sysroot}", "-cpu", "rv64,v=false"),), sysroot="/usr/riscv64-linux-gnu",
                apt=("gcc-riscv64-linux-gnu", "qemu-user")),
    ),
)

TARGETS: dict[str, Target] = {"x86_64": X86_64, "aarch64": AARCH64, "riscv64": RISCV64}
ARCH_ALIASES = {"x86_64": "x86_64", "AMD64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64",
                 "riscv64": "riscv64"}


def emulator_command(variant: Variant, index: int = 0) -> list[str]:
    """The qemu-user command prefix of ``variant``'s ``index``-th emulated configuration.

    Raises ValueError when the variant has no such configuration."""
    if index >= len(variant.emulators):
        raise ValueError(f"variant {variant.name} has {len(variant.emulators)} emulator configurations, "
                         f"asked for #{index}")
    return [part.replace("{sysroot}", variant.sysroot) for part in variant.emulators[index]]


def host_target_name() -> str:
    """The target that ``host`` means on this machine."""
    arch = platform.machine()
    if arch in ARCH_ALIASES:
        return ARCH_ALIASES[arch]
    raise ValueError(f"no target for host architecture {arch!r}; known: {', '.join(TARGETS)}")
