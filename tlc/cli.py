"""``tlc``: the command-line compiler (console script ``tlc = tlc.cli:main``; also ``python -m tlc``).

Commands: build, compile, opt, inspect, targets, build-ops, paths. User errors (TL source errors, package errors, bad
targets) print their message without a traceback and exit with status 1 (TL_DEBUG=1 shows it).
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time

import click

from tlc import config
from tlc.errors import PackageError, TLCompileError


class UserError(click.ClickException):
    """A user-facing error: the message as is on stderr, exit status 1."""

    exit_code = 1

    def show(self, file=None) -> None:
        click.echo(self.message, err=True)


class _Group(click.Group):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (TLCompileError, PackageError) as e:
            if config.debug():
                raise
            raise UserError(str(e)) from None
        except OSError as e:      # e.g. -o in a directory we cannot write: the path and the reason
            if config.debug():
                raise
            where = f"{e.filename}: " if e.filename else ""
            raise UserError(f"error: {where}{e.strerror or e}") from None


def _variants(target: str):
    from tlc.backends import resolve
    try:
        return resolve(target)
    except ValueError as e:
        raise UserError(f"error: {e}") from None


# performance warnings (the backend's lint: tlc/backends/cpu/lint.py): on by default, like a C compiler's
_NO_WARNINGS = click.option("-w", "--no-warnings", is_flag=True,
                            help="Do not print performance warnings (a line with `# tlc: nowarn` silences its own).")


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option("0.1.0", prog_name="tlc", message="%(prog)s %(version)s")
def cli():
    """tlc: the ahead-of-time compiler for TL tile kernels.

    \b
    Example:
      tlc build ops/ -t host -o build/ops.tlpkg
      tlc inspect build/ops.tlpkg
    """


@cli.command()
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("-t", "--target", default="host", show_default=True,
              help="Comma-separated targets or variants (see `tlc targets`).")
@click.option("-o", "--out", "out", required=True, type=click.Path(dir_okay=False), help="Output .tlpkg file.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Parallel compile jobs [default: TL_JOBS or CPU count].")
@click.option("--no-cache", is_flag=True, help="Ignore and do not fill the build cache.")
@click.option("--depfile", type=click.Path(dir_okay=False), default=None, help="Write a Make depfile listing the TL sources.")
@click.option("--print-ir-after-all", is_flag=True, help="Dump the IR after every pass to stderr (disables the cache).")
@click.option("--no-sources", is_flag=True, help="Do not store generated C and IR in the package.")
@click.option("-q", "--quiet", is_flag=True, help="No progress and no summary line (warnings still print).")
@_NO_WARNINGS
def build(sources, target, out, jobs, no_cache, depfile, print_ir_after_all, no_sources, quiet, no_warnings):
    """Compile TL SOURCES (files, or directories of *.py files with @tl.kernel) into one package.

    Every kernel of every file goes into each variant's bundle; builds are cached by content.
    Progress goes to stderr: a bar on a terminal, else a line per ~10% of the objects (at least
    every 10 s). Performance warnings print once per source location, cached builds included.

    \b
    Example:
      tlc build ops/ -t host -o build/ops.tlpkg -j 4 --depfile build/ops.d
    """
    from tlc.package.pack import build_package, plural
    _variants(target)
    t0, stats = time.perf_counter(), {}
    manifest = build_package(list(sources), target, out, jobs=jobs, progress=False if quiet else None,
                             keep_sources=not no_sources, use_cache=not no_cache,
                             print_ir_after_all=print_ir_after_all, depfile=depfile, stats=stats,
                             warnings=not no_warnings)
    if not quiet:
        click.echo(f"{out}: {plural(len(manifest['kernels']), 'kernel')} from {plural(stats['units'], 'file')}, "
                   f"{plural(len(manifest['bundles']), 'bundle')} "
                   f"({', '.join(b['variant'] for b in manifest['bundles'])}); "
                   f"{stats['objects_built']}/{plural(stats['objects_total'], 'object')} compiled "
                   f"in {time.perf_counter() - t0:.2f} s", err=True)


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--emit", type=click.Choice(["ir", "c", "asm"]), default="c", show_default=True, help="Stage to print.")
@click.option("-t", "--target", default="host", show_default=True,
              help="Target (its highest-priority variant is used) or one variant name.")
@click.option("-k", "--kernel", "kernels", multiple=True, help="Only this kernel (instance or base name); repeatable.")
@click.option("--print-ir-after-all", is_flag=True, help="Dump the IR after every pass to stderr.")
@click.option("--after", "after", metavar="PASS", default=None,
              help="With --emit ir: stop the pipeline after PASS (`parse`: the frontend's IR); see `tlc opt --list-passes`.")
@click.option("-o", "--out", type=click.Path(dir_okay=False), default=None, help="Write here instead of stdout.")
@_NO_WARNINGS
def compile(file, emit, target, kernels, print_ir_after_all, after, out, no_warnings):  # noqa: A001 - the command's name
    """Compile one TL FILE and print its IR (after the pass pipeline, or after --after PASS), C,
    or assembly.

    \b
    Examples:
      tlc compile ops/softmax.py --emit asm -t x86_64-avx2 -k softmax
      tlc compile ops/softmax.py --emit ir -k softmax__DT_float32 --after canonicalize -o in.ir
    """
    from tlc import driver
    from tlc.backends import pipeline_through
    variant = max(_variants(target), key=lambda v: v.priority)
    passes = None
    if after is not None:
        if emit != "ir":
            raise UserError(f"error: --after {after} needs --emit ir (C and assembly need the whole pipeline)")
        try:
            passes = pipeline_through(after, variant)
        except KeyError as e:
            raise UserError(f"error: --after: {e.args[0]} (or `parse`)") from None
    parsed = driver.parse(file)
    if isinstance(getattr(parsed, "kernels", None), (tuple, list)) and not parsed.kernels:
        raise UserError(f"error: no @tl.kernel functions in {file}")
    module = driver.select_kernels(parsed, list(kernels) or None)
    if not no_warnings:
        for w in driver.lint(module, None, variant):
            click.echo(w, err=True)
    lowered = driver.run_pipeline(module, variant, print_ir_after_all, passes=passes)
    if emit == "ir":
        text = driver.print_ir(lowered)
    else:
        text = driver.emit(lowered, variant)
        if emit == "asm":
            import tempfile
            from pathlib import Path
            from tlc.backends.cpu import build     # --emit asm: the CPU backend's C compiler
            with tempfile.TemporaryDirectory(prefix="tlc-asm-") as d:
                c_path = Path(d) / (Path(file).stem + ".c")
                c_path.write_text(text)
                text = build.compile_asm(c_path, variant)
    if out:
        with open(out, "w") as fh:
            fh.write(text)
    else:
        click.echo(text, nl=not text.endswith("\n"))


@cli.command()
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("-p", "--pass", "passes", metavar="PASS", multiple=True,
              help="Run this pass; repeatable, run in the order given (see --list-passes).")
@click.option("-t", "--target", default=None,
              help="Variant the passes work for (lanes, GEMM microkernel): a variant or a target (its "
                   "highest-priority variant) [default: none: 4 lanes, no microkernel].")
@click.option("-o", "--out", type=click.Path(dir_okay=False), default=None, help="Write here instead of stdout.")
@click.option("--list-passes", is_flag=True, help="List the passes of the pipeline, in order, and exit.")
def opt(file, passes, target, out, list_passes):
    """Run passes on the printed tile IR in FILE (`-`: stdin) and print the result, like mlir-opt.

    FILE is IR as `tlc compile --emit ir` prints it (`--after PASS` stops the pipeline anywhere).
    The verifier runs on the input and after every pass; errors name the file and line, or the
    pass whose output does not verify.

    \b
    Example:
      tlc compile ops/softmax.py --emit ir -k softmax__DT_float32 --after bounds -o in.ir
      tlc opt -p fuse_elementwise -p hoist_views in.ir -o out.ir
    """
    from tlc import opt as opt_mod
    if list_passes:
        for name, doc in opt_mod.list_passes():
            click.echo(f"{name:<18} {doc}")
        return
    if file is None:
        raise click.UsageError("missing FILE (the IR to transform; `-` reads stdin), or give --list-passes")
    variant = None if target is None else max(_variants(target), key=lambda v: v.priority)
    with click.open_file(file, "r") as fh:
        text = fh.read()
    source = "<stdin>" if file == "-" else file
    try:
        result = opt_mod.run(text, passes, variant, source, debug=config.debug())
    except opt_mod.OptError as e:
        raise UserError(str(e)) from None
    if out:
        with open(out, "w") as fh:
            fh.write(result)
    else:
        click.echo(result, nl=False)


def _signature(k: dict) -> str:
    parts = []
    for p in k["params"]:
        if p["kind"] == "tensor":
            parts.append(f"{p['name']}: tensor<{p['dtype']}, {p['rank']}>{' ' + p['access'] if p.get('access') else ''}")
        else:
            parts.append(f"{p['name']}: {p['dtype']}")
    return f"{k['name']}({', '.join(parts)})"


@cli.command()
@click.argument("package", type=click.Path(exists=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the verified manifest as JSON.")
def inspect(package, as_json):
    """Verify a .tlpkg PACKAGE (hashes, sizes, versions) and list its kernels, bundles and files.

    \b
    Example:
      tlc inspect build/ops.tlpkg --json
    """
    from tlc.package.format import read_package
    manifest, _ = read_package(package)
    ok, check = _runtime_check(package)
    if as_json:
        click.echo(json.dumps({**manifest, "verified": ok is not False, "runtime_check": check},
                              indent=2, sort_keys=True))
        if ok is False:
            raise SystemExit(1)
        return
    fv = ".".join(map(str, manifest.get("format_version", [])))
    click.echo(f"package {manifest.get('name', '?')}  (format {fv}, tlc {manifest.get('tlc_version', '?')}): "
               f"hashes, sizes and versions verified")
    click.echo(f"runtime check: {check}")
    if ok is False:
        raise UserError(f"error: {package}: libtl_runtime refuses this package: {check}")
    click.echo(f"kernels ({len(manifest.get('kernels', []))}):")
    for k in manifest.get("kernels", []):
        ce = f"  constexprs {json.dumps(k['constexprs'])}" if k.get("constexprs") else ""
        click.echo(f"  {_signature(k)}  [{k.get('source', '?')}]{ce}")
    click.echo(f"bundles ({len(manifest['bundles'])}):")
    for b in manifest["bundles"]:
        click.echo(f"  {b['variant']:<18} {b['arch']:<8} prio {b.get('priority', 0):<3} {b['size']:>9} B  "
                   f"sha256 {b['sha256'][:16]}  features {','.join(b.get('features', []))}")
    click.echo(f"files ({len(manifest.get('files', []))}):")
    for f in manifest.get("files", []):
        click.echo(f"  {f['path']:<40} {f['size']:>9} B  sha256 {f['sha256'][:16]}")


def _runtime_check(package) -> tuple[bool | None, str]:
    """Opens ``package`` with libtl_runtime (what ``tl.load`` does: picks this machine's bundle,
    dlopens it and checks its kernel descriptors against the manifest): (True, "ok (...)"),
    (False, the runtime's error) or (None, why it was skipped, e.g. no runtime library built)."""
    from tl import _runtime
    try:
        pkg = _runtime.load(package)
    except _runtime.TLError as e:
        msg = str(e)
        if "no bundle for this machine" in msg or "libtl_runtime" in msg and "not found" in msg:
            return None, f"skipped: {msg}"
        return False, msg
    except OSError as e:
        return None, f"skipped: libtl_runtime not loadable: {e}"
    variant = getattr(pkg, "target", None) or "this machine's bundle"
    return True, f"ok (libtl_runtime loaded {variant})"


def cpu_features() -> set[str]:
    """This CPU's feature flags as py-cpuinfo reports them, each also without underscores (its
    ``avx512_bf16`` is the variants' ``avx512bf16``, Linux /proc/cpuinfo's name); empty set when
    unavailable."""
    try:
        import cpuinfo
        flags = set(cpuinfo.get_cpu_info().get("flags", []))
        return flags | {f.replace("_", "") for f in flags}
    except Exception:  # noqa: BLE001 - cpuinfo failing must not break `tlc targets`
        return set()


def run_status(variant, arch: str, flags: set[str]) -> tuple[str, str]:
    """How ``variant`` runs on this machine: ("native" | "emulated" | "unavailable", detail).

    native: same architecture and every feature present; emulated: its qemu-user emulator is
    installed; unavailable otherwise. The detail names the emulator or what is missing, and
    whether its C compiler is installed (needed to build it)."""
    import shlex
    import shutil
    from tlc.backends.cpu.targets import emulator_command
    cc = shlex.split(variant.cc)[0]
    build = "" if shutil.which(cc) else f"; compiler {cc} missing (make test-cross installs it)"
    if variant.arch == arch and all(f in flags for f in variant.features):
        return "native", build.lstrip("; ")
    if variant.arch == arch:
        missing = [f for f in variant.features if f not in flags]
        return "unavailable", f"CPU lacks {','.join(missing)}{build}"
    if variant.emulators:
        emu = emulator_command(variant, 0)
        if shutil.which(emu[0]):
            return "emulated", f"{' '.join(emu)}{build}"
        return "unavailable", f"{emu[0]} not installed (apt-get install qemu-user){build}"
    return "unavailable", f"no emulator for {variant.arch}{build}"


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
def targets(as_json):
    """List known targets and their variants (features, flags) and how each runs here: natively,
    under emulation (qemu-user), or not at all.

    \b
    Example:
      tlc targets --json
    """
    from tlc.backends.cpu.targets import TARGETS, host_target_name     # the CPU backend's targets only
    flags, arch = cpu_features(), platform.machine()
    try:
        host = host_target_name()
    except ValueError:
        host = None
    data = {"host": {"arch": arch, "target": host, "features": sorted(flags)}, "targets": []}
    for t in TARGETS.values():
        variants = []
        for v in t.variants:
            status, detail = run_status(v, arch, flags)
            variants.append({"name": v.name, "arch": v.arch, "isa": v.isa, "features": list(v.features),
                             "priority": v.priority, "cc": v.cc, "cflags": list(v.cflags), "lanes": v.lanes,
                             "runs_here": status == "native", "status": status, "detail": detail})
        data["targets"].append({"name": t.name, "description": t.description, "variants": variants})
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(f"this machine: {arch}, `host` = {host or 'none'}")
    for t in data["targets"]:
        click.echo(f"{t['name']}: {t['description']}")
        for v in t["variants"]:
            click.echo(f"  {v['name']:<18} prio {v['priority']:<3} {v['status']:<11} features "
                       f"{','.join(v['features']):<52} {v['detail']}")


# --------------------------------------------------------------------------- installed copies (wheel)
@cli.command("build-ops")
@click.option("-t", "--target", default="host", show_default=True,
              help="Comma-separated targets or variants (see `tlc targets`).")
@click.option("-o", "--out", "out", default=None, type=click.Path(dir_okay=False),
              help="Output .tlpkg [default: the per-user package tl.ops looks for].")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Parallel compile jobs [default: TL_JOBS or CPU count].")
@click.pass_context
def build_ops(ctx, target, out, jobs):
    """Build the operator library (the TL sources installed with tl-compiler) into the per-user
    package ~/.cache/tl-compiler/ops-<version>.tlpkg, which tl.ops prefers over the copy in the wheel.

    Needs a C compiler (gcc) as `tlc build` does; the build cache makes a rebuild cheap.

    \b
    Example:
      tlc build-ops -t x86_64,aarch64
    """
    from tl import _resources
    src = _resources.ops_source_dir()
    if not os.path.isdir(src):
        raise UserError(f"error: the operator sources are not installed (looked for {src})")
    out = out or _resources.user_ops_package()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    ctx.invoke(build, sources=(src,), target=target, out=out, jobs=jobs, no_cache=False, depfile=None,
               print_ir_after_all=False, no_sources=False, quiet=False)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print as JSON.")
@click.option("--cflags", is_flag=True, help="Print only the compiler flags for a C host (-I...).")
@click.option("--libs", is_flag=True, help="Print only the linker flags for a C host (-L... -ltl_runtime -Wl,-rpath,...).")
def paths(as_json, cflags, libs):
    """Where this installation's files are: the C headers (-I), libtl_runtime.so, the operator
    sources and the operator package tl.ops loads (or why none is found).

    \b
    Example (a C host against an installed wheel, as pkg-config would give it):
      cc -std=c11 app.c $(tlc paths --cflags --libs) -o app
    """
    import shlex
    from tl import _resources
    from tl.ops._package import locate
    if cflags or libs:
        libdir = os.path.dirname(_resources.runtime_library())
        flags = [f"-I{_resources.include_dir()}"] if cflags else []
        flags += [f"-L{libdir}", "-ltl_runtime", f"-Wl,-rpath,{libdir}"] if libs else []
        click.echo(" ".join(shlex.quote(f) for f in flags))
        return
    try:
        ops_pkg = locate()
    except FileNotFoundError as e:
        ops_pkg = f"none ({e})"
    data = {"include": _resources.include_dir(), "runtime_library": _resources.runtime_library(),
            "ops_sources": _resources.ops_source_dir(), "ops_package": ops_pkg,
            "checkout": _resources.checkout_root()}
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    for k, v in data.items():
        click.echo(f"{k}: {v}")


def main(argv=None) -> int:
    """Entry point of the ``tlc`` console script."""
    return cli.main(args=argv, prog_name="tlc")


if __name__ == "__main__":
    sys.exit(main())
