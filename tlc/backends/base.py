"""What a backend provides: the seam between the target-neutral compiler and one kind of device.

A backend owns a family of targets (the CPU backend: x86_64, aarch64, riscv64) whose variants are
frozen dataclasses of its own (all their fields are options: they are hashed into every cache key,
``dataclasses.asdict``). The driver runs ``COMMON_PIPELINE + backend.passes(variant)`` on a parsed
module, then ``backend.emit``; the package layer compiles what ``emit`` produced with
``backend.build`` into a payload and records ``device`` / ``format`` (and ``bundle_fields``) in the
bundle's manifest entry, which is what libtl_runtime's device interface selects on.

Imports run one way: a backend imports tlc.lower (IR, passes, spaces) and its emitters; nothing in
tlc.lower, tlc.parse or ops/ imports a backend (tests/meta/test_backend_neutral.py).
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, ClassVar

from tlc.lower.spaces import DEFAULT_SPACES, MemorySpace


@dataclass(frozen=True)
class Payload:
    """What ``Backend.build`` returns: the bundle's bytes and their format, the manifest's bundle
    ``format`` (e.g. "elf-shared-object"; the runtime device must load that format)."""

    data: bytes
    format: str


class Backend(abc.ABC):
    """One backend. Subclasses set the class attributes and implement the methods; one instance
    is registered in :data:`tlc.backends.REGISTRY`."""

    name: ClassVar[str]                 # e.g. "cpu"
    device: ClassVar[str]               # the manifest's bundle "device" (libtl_runtime's device name)
    variant_type: ClassVar[type]        # the frozen dataclass of this backend's variants

    @property
    @abc.abstractmethod
    def targets(self) -> dict[str, tuple[Any, ...]]:
        """Target name -> its variants (one bundle each), highest priority first."""

    def describe(self, target: str) -> str:
        """One line about a target, for ``tlc targets``."""
        return target

    def host_target(self) -> str | None:
        """The target ``host`` means on this machine, or None when this backend has none here."""
        return None

    def passes(self, variant) -> tuple[Any, ...]:
        """The passes appended to tlc.lower.passes.COMMON_PIPELINE for ``variant`` (None: the
        backend's passes with their defaults, as ``tlc opt`` runs them)."""
        return ()

    def memory_spaces(self, variant) -> dict[str, MemorySpace]:
        """Space name -> capacity and alignment, for plan_memory. Default: one unbounded workspace."""
        return dict(DEFAULT_SPACES)

    @abc.abstractmethod
    def emit(self, module, variant, display_file: str | None = None) -> str:
        """The source text of a lowered module (``display_file`` names the TL file in it)."""

    def lint(self, module) -> list:
        """Performance warnings (tlc.errors.CompileWarning) for a parsed module on this backend."""
        return []

    # --- building: emitted source -> per-unit object -> one payload per variant (tlc/package/pack.py
    # caches both steps by content: the keys hold toolchain(), flags() and the variant's fields)
    payload_suffix: ClassVar[str] = ""  # file name suffix of a bundle entry: bundles/<variant><suffix>

    @abc.abstractmethod
    def toolchain(self, variant) -> str:
        """What identifies the tools that build ``variant`` (e.g. ``cc --version``), for cache keys."""

    def flags(self, variant, unit: str | None = None) -> list[str]:
        """The exact options one unit is compiled with, for cache keys."""
        return []

    @abc.abstractmethod
    def compile(self, source_path, object_path, variant, unit: str) -> None:
        """Compiles one emitted unit (``source_path``) into ``object_path``."""

    @abc.abstractmethod
    def build(self, objects: list, units: list[tuple[str, int]], variant, workdir) -> Payload:
        """Links one bundle from the units' objects (paths, in bundle order) and (unit name, kernel
        count) pairs; ``workdir`` is scratch, kept on failure so a command in the error can be rerun."""

    def reuse(self, variant) -> str:
        """Another variant of the same target whose object serves a unit when
        :meth:`uses_own_code` is false for it ("" when none)."""
        return ""

    def uses_own_code(self, variant, source: str) -> bool:
        """Whether a unit's emitted ``source`` needs its own object (see :meth:`reuse`)."""
        return True

    def tuning(self, variant) -> dict[str, dict[str, Any]]:
        """Per-kernel constexpr choices for ``variant``: ``"ops/<file>.py::<kernel>"`` -> {name: value}."""
        return {}

    def bundle_fields(self, variant) -> dict[str, Any]:
        """Extra fields of the variant's manifest bundle entry (besides path, variant, device,
        format, size, sha256)."""
        return {}
