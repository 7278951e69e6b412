"""Targets as data: each target is a list of variants (one bundle each) that the runtime picks
from at load time by architecture and CPU features.

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
    lanes     float32 lanes per vector register
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


@dataclass(frozen=True, slots=True)
class Target:
    name: str
    description: str
    variants: tuple[Variant, ...]


X86_64 = Target(
    "x86_64",
    "x86-64 with AVX-512 (x86-64-v4), AVX2+FMA (x86-64-v3) and SSE2 baseline variants",
    (
        Variant("x86_64-avx512", "x86_64", "avx512",
                ("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma", "f16c"), 30,
                "x86_64-linux-gnu", "gcc", ("-march=x86-64-v4", "-mtune=generic", "-mprefer-vector-width=512"), 16),
        Variant("x86_64-avx2", "x86_64", "avx2", ("avx2", "fma", "f16c"), 20,
                "x86_64-linux-gnu", "gcc", ("-march=x86-64-v3", "-mtune=generic"), 8),
        Variant("x86_64-baseline", "x86_64", "sse2", ("sse2",), 10,
                "x86_64-linux-gnu", "gcc", ("-march=x86-64", "-mtune=generic"), 4),
    ),
)

TARGETS: dict[str, Target] = {"x86_64": X86_64}


def host_target_name() -> str:
    """The target that ``host`` means on this machine."""
    arch = platform.machine()
    if arch in ("x86_64", "AMD64"):
        return "x86_64"
    raise ValueError(f"no target for host architecture {arch!r}; known: {', '.join(TARGETS)}")


def resolve(names: str) -> list[Variant]:
    """Variants for a comma-separated target list such as "host" or "x86_64".

    Raises ValueError naming the unknown target and the known ones.
    """
    out: list[Variant] = []
    for raw in names.split(","):
        name = raw.strip()
        if name == "host":
            name = host_target_name()
        if name in TARGETS:
            out.extend(TARGETS[name].variants)
            continue
        variant = next((v for t in TARGETS.values() for v in t.variants if v.name == name), None)
        if variant is None:
            known = ", ".join(["host", *TARGETS, *(v.name for t in TARGETS.values() for v in t.variants)])
            raise ValueError(f"unknown target {name!r}; known targets: {known}")
        out.append(variant)
    return out
