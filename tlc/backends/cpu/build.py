"""Compile generated C into freestanding bundle objects and link them into one bundle ``.so``.

A bundle exports exactly one symbol, ``tl_bundle_query``, and has no undefined symbols (no libc,
no libm; libgcc's static helpers are linked in). Several translation units ("units", one per TL
source file) go into one bundle: each unit is compiled with ``-Dtl_bundle_query=tl__bundle_query_<unit>``
and a generated aggregator (templates/aggregator.c.j2) defines the real ``tl_bundle_query`` over
all units. A version script keeps every other symbol local.

Every failing tool raises :class:`PackageError` whose message holds the exact command (with its
working directory) to reproduce the failure, and the tool's output.
"""
from __future__ import annotations

import functools
import re
import shlex
import subprocess
from pathlib import Path

from tlc import config
from tlc.errors import PackageError
from tlc.backends.cpu.targets import Variant

from tl._resources import include_dir

# the bundle ABI headers: a source checkout's libtl_runtime/include, or tl/include in a wheel
INCLUDE_DIR = Path(include_dir())
# -fno-strict-aliasing: the workspace is reused by tiles of different dtypes (memory planning) and
# tiles are bit-copied through float words, so type-based alias analysis would be unsound here
# (it reordered an int32 tile's reload above the float-typed copy that produced it at -O2)
BASE_CFLAGS = ("-std=gnu11", "-O2", "-fno-strict-aliasing", "-fPIC", "-nostdlib", "-ffreestanding", "-fno-builtin",
               "-fno-tree-loop-distribute-patterns", "-fvisibility=hidden", "-ffp-contract=off",
               "-fno-stack-protector", "-fno-asynchronous-unwind-tables", "-fno-ident")
EXPORTED = "tl_bundle_query"
# libc functions a unit may define for gcc's implicit calls (struct copies, zeroing loops). Every
# unit may carry its own copy, so they are made weak after compiling (identical semantics).
LIBC_HELPERS = ("memcpy", "memmove", "memset", "memcmp")
_UNIT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# gcc flags clang rejects (dropped when the variant's compiler is clang; clang's -fno-builtin
# already keeps its loop-idiom pass from forming memset/memcpy calls)
GCC_ONLY_CFLAGS = ("-fno-tree-loop-distribute-patterns",)


def cc_for(variant: Variant) -> str:
    """The C compiler command for a variant ($TL_CC wins)."""
    return config.cc_override() or variant.cc


@functools.lru_cache(maxsize=None)
def cc_version(cc: str) -> str:
    """``cc --version`` output (cached per process); raises PackageError when cc is missing."""
    try:
        out = subprocess.run([*shlex.split(cc), "--version"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        raise PackageError(f"C compiler {cc!r} is not usable: {e}") from None
    return out.stdout


def cflags(variant: Variant, unit: str | None = None) -> list[str]:
    """Flags for compiling one unit of a variant (without -c/-o/-S and the file)."""
    clang = "clang" in shlex.split(cc_for(variant))[0]
    base = [f for f in BASE_CFLAGS if not (clang and f in GCC_ONLY_CFLAGS)]
    flags = [*base, *variant.cflags, f"-I{INCLUDE_DIR}"]
    if unit is not None:
        if not _UNIT_RE.match(unit):
            raise PackageError(f"invalid unit name {unit!r}: must be a C identifier")
        flags.append(f"-D{EXPORTED}=tl__bundle_query_{unit}")
    return flags


def _run(cmd: list[str], cwd: Path, what: str) -> str:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    except OSError as e:
        raise PackageError(f"{what} failed: cannot run {cmd[0]!r}: {e}\n  command: "
                           f"cd {shlex.quote(str(cwd))} && {shlex.join(cmd)}") from None
    if proc.returncode != 0:
        output = (proc.stderr + proc.stdout).strip()
        raise PackageError(f"{what} failed (exit {proc.returncode}); to reproduce run:\n"
                           f"  cd {shlex.quote(str(cwd))} && {shlex.join(cmd)}\n{output}")
    return proc.stdout


def compile_object(c_path: Path, o_path: Path, variant: Variant, unit: str | None = None) -> None:
    """cc -c c_path -o o_path (run in c_path's directory). Raises PackageError with the command."""
    c_path, o_path = Path(c_path), Path(o_path)
    cmd = [*shlex.split(cc_for(variant)), *cflags(variant, unit), "-c", c_path.name, "-o", str(o_path.resolve())]
    _run(cmd, c_path.parent.resolve(), f"compiling {c_path.name} for {variant.name}")
    if unit is not None:
        weaken = [f"--weaken-symbol={name}" for name in LIBC_HELPERS]
        _run([objcopy_for(variant), *weaken, str(o_path.resolve())], c_path.parent.resolve(),
             f"weakening libc helpers of {o_path.name}")


def objcopy_for(variant: Variant) -> str:
    """objcopy for the variant's triple (plain ``objcopy`` for the host's own)."""
    import platform
    import shutil
    if variant.arch == platform.machine():
        return "objcopy"
    name = f"{variant.triple}-objcopy"
    return name if shutil.which(name) else "objcopy"


def compile_asm(c_path: Path, variant: Variant) -> str:
    """cc -S of c_path for variant; returns the assembly text."""
    c_path = Path(c_path)
    cmd = [*shlex.split(cc_for(variant)), *cflags(variant), "-S", c_path.name, "-o", "-"]
    return _run(cmd, c_path.parent.resolve(), f"compiling {c_path.name} to assembly for {variant.name}")


def aggregator_source(units: list[tuple[str, int]], variant: Variant) -> str:
    """C source of the aggregator TU for (unit name, kernel count) pairs, in bundle order."""
    from tlc.package.templating import render
    for unit, _ in units:
        if not _UNIT_RE.match(unit):
            raise PackageError(f"invalid unit name {unit!r}: must be a C identifier")
    return render("aggregator.c.j2", units=list(units), total=sum(n for _, n in units),
                  variant=variant.name, features=",".join(variant.features))


def link_bundle(objects: list[Path], units: list[tuple[str, int]], variant: Variant, out_so: Path,
                workdir: Path) -> None:
    """Links unit objects plus a generated aggregator into out_so, then checks its symbols.

    ``workdir`` receives the aggregator source/object and the version script (kept on failure
    so the command in the error can be rerun)."""
    workdir = Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "tl_bundle.c").write_text(aggregator_source(units, variant))
    compile_object(workdir / "tl_bundle.c", workdir / "tl_bundle.o", variant)
    (workdir / "exports.map").write_text(f"{{ global: {EXPORTED}; local: *; }};\n")
    cmd = [*shlex.split(cc_for(variant)), "-shared", "-nostdlib", "-fPIC", *variant.cflags,
           "-Wl,--version-script=exports.map", "-Wl,--no-undefined", "-Wl,-z,noexecstack",
           "-Wl,--hash-style=gnu", "-Wl,--build-id=none", "-o", str(Path(out_so).resolve()),
           "tl_bundle.o", *(str(Path(o).resolve()) for o in objects), "-lgcc"]
    _run(cmd, workdir, f"linking bundle {Path(out_so).name} for {variant.name}")
    check_symbols(out_so)


def check_symbols(so_path: Path) -> None:
    """Raises PackageError unless the bundle has no undefined dynamic symbols and exports
    exactly ``tl_bundle_query``."""
    so_path = Path(so_path).resolve()
    undefined = _nm(["nm", "-D", "--undefined-only", str(so_path)], so_path)
    if undefined:
        raise PackageError(f"bundle {so_path} has undefined symbols {undefined} (bundles must be "
                           f"freestanding); check with: nm -D --undefined-only {shlex.quote(str(so_path))}")
    defined = _nm(["nm", "-D", "--defined-only", str(so_path)], so_path)
    if defined != [EXPORTED]:
        raise PackageError(f"bundle {so_path} must export exactly {EXPORTED}, exports {defined}; "
                           f"check with: nm -D --defined-only {shlex.quote(str(so_path))}")


def _nm(cmd: list[str], so_path: Path) -> list[str]:
    out = _run(cmd, so_path.parent, f"reading symbols of {so_path.name}")
    return sorted(line.split()[-1] for line in out.splitlines() if line.strip())
