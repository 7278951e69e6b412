"""CpuBackend: the CPU variants of tlc/backends/cpu/targets.py behind the Backend protocol.

emit: tlc.emit_c.emit_bundle (C with GCC vector extensions and the tlc.emit_asm microkernels);
build: tlc/backends/cpu/build.py (gcc/clang objects linked into one freestanding ``.so``, format
"elf-shared-object", which libtl_runtime's CPU device loads with memfd + dlopen).
"""
from __future__ import annotations

import platform
from pathlib import Path

from tlc.backends.base import Backend, Payload
from tlc.backends.cpu import build, targets, tuning
from tlc.backends.cpu.dispatch import dispatch_facts
from tlc.backends.cpu.targets import Variant
from tlc.lower.spaces import ALIGN, WORKSPACE, MemorySpace

FORMAT = "elf-shared-object"


class CpuBackend(Backend):
    name = "cpu"
    device = "cpu"
    variant_type = Variant
    payload_suffix = ".so"

    @property
    def targets(self) -> dict[str, tuple[Variant, ...]]:
        return {name: t.variants for name, t in targets.TARGETS.items()}

    def describe(self, target: str) -> str:
        return targets.TARGETS[target].description

    def host_target(self) -> str | None:
        return targets.host_target_name() if platform.machine() in targets.ARCH_ALIASES else None

    def passes(self, variant) -> tuple:
        from tlc.backends.cpu.passes import PASSES
        return PASSES

    def memory_spaces(self, variant) -> dict[str, MemorySpace]:
        # one per-program workspace the runtime allocates per worker: unbounded, 64-byte aligned
        return {WORKSPACE: MemorySpace(WORKSPACE, None, ALIGN)}

    def emit(self, module, variant, display_file: str | None = None) -> str:
        from tlc.emit_c import emit_bundle
        return emit_bundle(module.kernels, variant, module.source_file, display_file)

    def lint(self, module) -> list:
        from tlc.backends.cpu.lint import check
        return check(module)

    def toolchain(self, variant) -> str:
        return build.cc_version(build.cc_for(variant))

    def flags(self, variant, unit: str | None = None) -> list[str]:
        return build.cflags(variant, unit)

    def compile(self, source_path, object_path, variant, unit: str) -> None:
        build.compile_object(Path(source_path), Path(object_path), variant, unit)

    def build(self, objects, units, variant, workdir) -> Payload:
        workdir = Path(workdir)
        so = workdir / "bundle.so"
        build.link_bundle(list(objects), list(units), variant, so, workdir)
        return Payload(so.read_bytes(), FORMAT)

    def reuse(self, variant) -> str:
        return variant.reuse

    def uses_own_code(self, variant, source: str) -> bool:
        """A call of the variant's bfloat16 microkernel (tlc/emit_asm/gemm_bf16.py names them
        ``tl_gemm_<family>_``): what it adds over ``variant.reuse``; the rest of the C is the same."""
        return bool(variant.ukernel_bf16) and f"tl_gemm_{variant.ukernel_bf16}_" in source

    def tuning(self, variant) -> dict:
        return tuning.table(variant)

    def bundle_fields(self, variant) -> dict:
        return {"arch": variant.arch, "features": list(variant.features), "priority": variant.priority,
                "dispatch": dispatch_facts(variant)}
