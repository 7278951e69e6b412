"""A test-only backend: the whole of what a new backend is (this folder plus one registry line,
here made by :func:`register` instead of a line in tlc/backends/__init__.py).

Its one target ``toy`` has one variant, ``toy-text``; it appends no pass to the common pipeline,
has a bounded 4 KiB workspace (32-byte aligned), emits the IR as text and "builds" a bundle by
concatenating its units' texts into a payload of format ``toy-text``.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from tlc import backends
from tlc.backends.base import Backend, Payload
from tlc.lower.spaces import WORKSPACE, MemorySpace

CAPACITY = 4096
FORMAT = "toy-text"


@dataclass(frozen=True, slots=True)
class ToyVariant:
    name: str
    width: int = 1          # an option: part of every cache key like any variant field


class ToyBackend(Backend):
    name = "toy"
    device = "toy"
    variant_type = ToyVariant
    payload_suffix = ".txt"

    @property
    def targets(self):
        return {"toy": (ToyVariant("toy-text"),)}

    def describe(self, target):
        return "a test-only text backend"

    def memory_spaces(self, variant):
        return {WORKSPACE: MemorySpace(WORKSPACE, CAPACITY, 32)}

    def emit(self, module, variant, display_file=None):
        from tlc.lower.printer import print_module
        return f"// toy bundle of {display_file or module.source_file} for {variant.name}\n" + \
            print_module(module, display_file)

    def toolchain(self, variant):
        return "toy 1"

    def compile(self, source_path, object_path, variant, unit):
        shutil.copyfile(source_path, object_path)

    def build(self, objects, units, variant, workdir):
        text = "".join(f"== {name} ({n} kernels)\n" + Path(o).read_text() for o, (name, n) in zip(objects, units))
        return Payload(text.encode(), FORMAT)

    def bundle_fields(self, variant):
        return {"arch": "toy", "features": [], "priority": 1}


def register() -> ToyBackend:
    backend = ToyBackend()
    backends.register(backend)
    return backend


def unregister() -> None:
    backends.unregister("toy")
