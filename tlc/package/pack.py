"""Build a .tlpkg from TL sources: discover files, compile each (file, variant) to a cached
object in parallel, link one bundle per variant holding every kernel, write header and package.

What is backend specific goes through the variant's backend (tlc/backends): ``compile`` and
``build`` make the objects and the bundle payload, ``toolchain``/``flags`` key the cache, and the
manifest's bundle entry gets ``device`` (the backend's), ``format`` (the payload's) and the
backend's ``bundle_fields`` (the CPU's: arch, features, priority).

Cache hits never run the pipeline: keys are hashes of bytes (see tlc/package/cache.py), so a
no-change rebuild only hashes, links from cache and writes the zip. Each object's performance
warnings (tlc/backends/cpu/lint.py) are kept in its cache entry and printed, deduplicated, by
every build that uses it; progress goes through tlc/package/progress.py.
"""
from __future__ import annotations

import concurrent.futures as cf
import functools
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tlc import backends, config
from tlc.errors import PackageError, TLCompileError
from tlc.package import cache as cache_mod
from tlc.package.header import c_identifier, render_header
from tlc.package.progress import Progress

_KERNEL_RE = re.compile(rb"@\s*tl\s*\.\s*kernel\b")


@dataclass(frozen=True)
class Unit:
    """One TL source file: absolute path, display path (in messages/manifest) and C unit name."""

    path: Path
    display: str
    name: str


def discover(sources) -> list[Unit]:
    """TL files from ``sources`` (files, or directories searched recursively for *.py files that
    contain ``@tl.kernel``; names starting with '_' or '.' are skipped). Order: as given, then
    sorted. Display paths (the manifest's and descriptors' ``source``): a directory's files as
    ``<dir name>/<path below it>``, a file as given when relative and inside the working
    directory, else by its name. Raises PackageError for a missing path or when nothing is found."""
    found: list[tuple[Path, str]] = []
    for src in sources:
        p = Path(src)
        if p.is_dir():
            for f in sorted(p.rglob("*.py")):
                rel = f.relative_to(p)
                if any(part.startswith(("_", ".")) for part in rel.parts):
                    continue
                if _KERNEL_RE.search(f.read_bytes()):
                    found.append((f.resolve(), (Path(p.name or p.resolve().name) / rel).as_posix()))
        elif p.is_file():
            data = p.read_bytes()
            if not _KERNEL_RE.search(data):
                from tlc.parse import parse_source     # a syntax error is the first thing to report
                parse_source(data.decode("utf-8", "replace"), str(src))
                raise PackageError(f"no @tl.kernel functions in {src}")
            rel = os.path.relpath(p) if not os.path.isabs(src) else p.name
            # outside the working directory: its name only (no path of the build machine's layout)
            found.append((p.resolve(), p.name if rel.startswith("..") else rel))
        else:
            raise PackageError(f"{src}: no such file or directory")
    seen, units, names = set(), [], set()
    for path, display in found:
        if path in seen:
            continue
        seen.add(path)
        base = c_identifier(display[:-3] if display.endswith(".py") else display)
        name, i = base, 2
        while name in names:
            name, i = f"{base}_{i}", i + 1
        names.add(name)
        units.append(Unit(path, display, name))
    if not units:
        raise PackageError(f"no TL source files with @tl.kernel found in {', '.join(map(str, sources))}")
    return units


def uses_own_code(variant, source: str) -> bool:
    """Whether a unit's emitted source for ``variant`` needs its own object rather than the one of
    the variant's ``reuse`` variant (the backend decides: the CPU's, a bfloat16 microkernel call)."""
    return backends.backend_for(variant).uses_own_code(variant, source)


def _object_task(unit: Unit, variant, key: str, reuse: str | None, root: str, print_ir: bool):
    """Worker: compile one (unit, variant) and publish its cache entry. Returns (entry, None) or
    (None, (kind, message)) so errors cross process boundaries without tracebacks. ``reuse``:
    a variant of the same build whose object serves this unit when :func:`uses_own_code` says
    so; the entry then holds the C and IR but no object, and its meta names ``reuse``."""
    from tlc import driver
    c = cache_mod.Cache(Path(root))
    stage = c.staging("objects", key)
    try:
        res = driver.compile_unit(str(unit.path), variant, print_ir, display_file=unit.display)
        (stage / f"{unit.name}.c").write_text(res.c_source)
        (stage / f"{unit.name}.ir").write_text(res.ir_text)
        if reuse is not None and not uses_own_code(variant, res.c_source):
            meta = {"unit": unit.name, "display": unit.display, "variant": variant.name, "kernels": res.kernels,
                    "warnings": res.warnings, "doc": res.doc, "reuse": reuse}
            return str(c.publish("objects", key, stage, meta)), None
        backends.backend_for(variant).compile(stage / f"{unit.name}.c", stage / f"{unit.name}.o", variant, unit.name)
    except TLCompileError as e:
        shutil.rmtree(stage, ignore_errors=True)
        return None, ("compile", str(e))
    except PackageError as e:
        return None, ("package", str(e))    # the staging dir stays so the command can be rerun
    meta = {"unit": unit.name, "display": unit.display, "variant": variant.name, "kernels": res.kernels,
            "warnings": res.warnings, "doc": res.doc}
    return str(c.publish("objects", key, stage, meta)), None


def _raise(kind: str, message: str):
    if kind == "compile":
        err = TLCompileError.__new__(TLCompileError)
        Exception.__init__(err, message)
        err.message, err.loc, err.source_line = message, None, None
        raise err
    raise PackageError(message)


def _run_objects(tasks, root: Path, jobs: int, progress: Progress, print_ir: bool, total: int) -> dict:
    """Compiles the cache misses ``tasks`` (serially, or in ``jobs`` processes), reporting each
    finished one to ``progress`` (``total``: all objects of the build, cache hits included)."""
    results: dict = {}
    counted = functools.partial(progress.counted, "compiling", "object", total, total - len(tasks), total - len(tasks))
    if jobs <= 1 or len(tasks) <= 1 or print_ir:
        now: list = []
        with counted(busy=lambda: now) as step:
            for t in tasks:
                now[:] = [f"{t[0].display} {t[1].name}"]
                results[(t[0].name, t[1].name)] = _object_task(*t, str(root), print_ir)
                step()
    else:
        with cf.ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
            # submitting first forks the workers before progress starts its heartbeat thread
            futs = {pool.submit(_object_task, *t, str(root), False): t for t in tasks}
            # running() also holds the one call queued ahead for the next free worker: the first
            # `jobs` running ones in submission order are the ones compiling
            busy = lambda: [f"{t[0].display} {t[1].name}" for f, t in list(futs.items()) if f.running()][:jobs]  # noqa: E731
            with counted(busy=busy) as step:
                for fut in cf.as_completed(futs):
                    t = futs[fut]
                    results[(t[0].name, t[1].name)] = fut.result()
                    step()
    for unit, variant, *_ in tasks:        # report the first error in a stable order
        entry, err = results[(unit.name, variant.name)]
        if err is not None:
            _raise(*err)
    return {k: Path(v[0]) for k, v in results.items()}


def _link(cache: cache_mod.Cache, variant, units: list[Unit], entries: dict, counts: dict) -> tuple[Path, str]:
    """The cached bundle payload of ``variant`` (linked by its backend on a miss) and its format."""
    backend = backends.backend_for(variant)
    okeys = [(u.name, entries[(u.name, variant.name)].name) for u in units]
    key = cache_mod.bundle_key(variant, okeys, backend.toolchain(variant))
    entry = f"bundle{backend.payload_suffix}"
    hit = cache.lookup("bundles", key)
    if hit is not None:
        return hit / entry, cache.meta(hit)["format"]
    stage = cache.staging("bundles", key)
    objects = [entries[(u.name, variant.name)] / f"{u.name}.o" for u in units]
    payload = backend.build(objects, [(u.name, counts[u.name]) for u in units], variant, stage / "work")
    (stage / entry).write_bytes(payload.data)
    if not config.debug():
        shutil.rmtree(stage / "work", ignore_errors=True)
    meta = {"variant": variant.name, "units": okeys, "format": payload.format}
    return cache.publish("bundles", key, stage, meta) / entry, payload.format


def check_output(sources, out) -> None:
    """Refuses an output path that would overwrite an input: it must end in .tlpkg and be none
    of the source files (nor a file under a source directory). Raises PackageError."""
    out_path = Path(out)
    if not out_path.name or out_path.name == ".tlpkg" or out_path.is_dir():
        raise PackageError(f"output {str(out)!r} is not a package file name; name it e.g. -o build/my.tlpkg")
    target = out_path.resolve()
    for src in sources:
        p = Path(src).resolve()
        if target == p or (p.is_dir() and p in target.parents and target.suffix == ".py"):
            raise PackageError(f"output {out} is one of the inputs ({src}); refusing to overwrite it "
                               f"(use e.g. -o {out_path.with_suffix('.tlpkg').name})")
    if out_path.suffix != ".tlpkg":
        raise PackageError(f"output {out} does not end in .tlpkg; name the package e.g. "
                           f"{out_path.with_suffix('.tlpkg').name}")


def check_cache_root(root: Path) -> None:
    """Makes the cache root (TL_CACHE_DIR) or raises PackageError when it cannot be a directory."""
    if root.exists() and not root.is_dir():
        raise PackageError(f"build cache directory {root} (TL_CACHE_DIR) is not a directory; "
                           f"point TL_CACHE_DIR at a directory")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise PackageError(f"build cache directory {root} (TL_CACHE_DIR) is unusable: "
                           f"{e.strerror or e}; point TL_CACHE_DIR at a directory") from None


def write_depfile(depfile, out, units: list[Unit], sources) -> None:
    """Make-style depfile: ``out: <TL files and source dirs>`` plus an empty rule per dependency."""
    def esc(p):
        return str(p).replace("\\", "\\\\").replace(" ", "\\ ").replace("#", "\\#").replace("$", "$$")
    deps = [str(u.path) for u in units] + [str(Path(s).resolve()) for s in sources if Path(s).is_dir()]
    text = f"{esc(out)}: " + " \\\n  ".join(esc(d) for d in deps) + "\n"
    text += "".join(f"\n{esc(d)}:\n" for d in deps)
    Path(depfile).write_text(text)


def build_package(sources, target: str, out, jobs: int | None = None, progress: bool | str | None = None,
                  keep_sources: bool = True, use_cache: bool = True, print_ir_after_all: bool = False,
                  depfile=None, stats: dict | None = None, warnings: bool = True) -> dict:
    """Builds ``out`` (.tlpkg) from TL ``sources`` for ``target`` (e.g. "host", "x86_64",
    "x86_64-avx2"); returns the manifest as written. ``progress``: None (a bar on a terminal,
    else plain lines; see tlc/package/progress.py), False (silent), or "bar" / "lines".
    ``warnings``: print the performance warnings (tlc/backends/cpu/lint.py) on stderr, once
    per source location. ``stats`` (optional dict) receives object hit and miss counts and the
    rendered ``warnings``. Raises TLCompileError (source errors) or PackageError."""
    from tlc.package.format import write_package
    from tl import __version__
    try:
        variants = backends.resolve(target)
    except ValueError as e:
        raise PackageError(str(e)) from None
    check_output(sources, out)
    units = discover(sources)
    jobs = jobs or config.jobs()
    if use_cache:
        check_cache_root(config.cache_dir())
    tmp = None if use_cache else tempfile.TemporaryDirectory(prefix="tlc-nocache-")
    try:
        cache = cache_mod.Cache(Path(tmp.name) if tmp else config.cache_dir())
        entries, tasks = {}, []
        names = [v.name for v in variants]
        for u in units:
            data = u.path.read_bytes()
            for v in variants:
                backend = backends.backend_for(v)
                reuse = backend.reuse(v) or None       # the CPU's Variant.reuse: see _object_task
                reuse = reuse if reuse in names else None
                key = cache_mod.object_key(data, v, u.name, backend.toolchain(v), backend.flags(v, u.name),
                                           {"backend": backend.name, "display": u.display,
                                            **({"reuse": reuse} if reuse else {})})
                hit = None if print_ir_after_all else cache.lookup("objects", key)
                if hit is not None:
                    entries[(u.name, v.name)] = hit
                else:
                    tasks.append((u, v, key, reuse))
        report = Progress(progress)
        entries.update(_run_objects(tasks, cache.root, jobs, report, print_ir_after_all, len(units) * len(variants)))
        metas = {k: cache.meta(e) for k, e in entries.items()}
        reused = {k for k, m in metas.items() if m.get("reuse")}
        entries.update({k: entries[(k[0], metas[k]["reuse"])] for k in reused})
        found = list(dict.fromkeys(w for u in units for v in variants
                                   for w in metas[(u.name, v.name)].get("warnings", ())))
        if warnings and found:    # kept in the cache entries, so a cached build warns as a cold one
            sys.stderr.write("".join(w + "\n" for w in found))
            sys.stderr.flush()
        kernels = _check_kernels(units, variants, metas)
        counts = {u.name: len(metas[(u.name, variants[0].name)]["kernels"]) for u in units}
        if not any(counts.values()):
            raise PackageError(f"no @tl.kernel functions in {', '.join(map(str, sources))}")
        phases = report if tasks else Progress(False)     # a no-change rebuild says nothing
        with phases.running(f"linking {plural(len(variants), 'bundle')}"), \
                cf.ThreadPoolExecutor(max_workers=max(1, min(jobs, len(variants)))) as pool:
            sos = list(pool.map(lambda v: _link(cache, v, units, entries, counts), variants))
        name = Path(out).name.split(".")[0] or "package"
        payloads, bundles, files = {}, [], []
        for v, (so, fmt) in zip(variants, sos):
            backend = backends.backend_for(v)
            path = f"bundles/{v.name}{backend.payload_suffix}"
            payloads[path] = so.read_bytes()
            bundles.append({"path": path, "variant": v.name, "device": backend.device, "format": fmt,
                            **backend.bundle_fields(v)})
        header = f"include/{c_identifier(name)}.h"
        file_docs = {u.display: metas[(u.name, variants[0].name)].get("doc", "") for u in units}
        payloads[header] = render_header(name, kernels, __version__, file_docs).encode()
        files.append({"path": header})
        if keep_sources:
            for u in units:
                for v in variants:
                    if (u.name, v.name) in reused:    # its object (and C) is the reuse variant's
                        continue
                    e = entries[(u.name, v.name)]
                    payloads[f"src/{v.name}/{u.name}.c"] = (e / f"{u.name}.c").read_bytes()
                    files.append({"path": f"src/{v.name}/{u.name}.c"})
                    ir = (e / f"{u.name}.ir").read_bytes()
                    if ir:
                        payloads[f"ir/{v.name}/{u.name}.ir"] = ir
                        files.append({"path": f"ir/{v.name}/{u.name}.ir"})
        manifest = {"name": name, "tlc_version": __version__, "kernels": kernels, "bundles": bundles,
                    "files": files}
        with phases.running(f"writing {out}"):
            written = write_package(out, manifest, payloads)
        if depfile:
            write_depfile(depfile, out, units, sources)
        if stats is not None:
            stats.update(objects_total=len(units) * len(variants), objects_built=len(tasks),
                         units=len(units), variants=len(variants), warnings=found)
        return written
    finally:
        if tmp is not None:
            tmp.cleanup()


def plural(n: int, noun: str) -> str:
    """'1 file', '2 files'."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _check_kernels(units: list[Unit], variants: list, metas: dict) -> list[dict]:
    """The manifest kernel list (unit order); every variant must yield the same kernel names and
    no name may appear in two files."""
    kernels, owner = [], {}
    for u in units:
        first = metas[(u.name, variants[0].name)]["kernels"]
        for v in variants[1:]:
            other = [k["name"] for k in metas[(u.name, v.name)]["kernels"]]
            if other != [k["name"] for k in first]:
                raise PackageError(f"{u.display}: variant {v.name} produced kernels {other}, "
                                   f"{variants[0].name} produced {[k['name'] for k in first]}")
        for k in first:
            if k["name"] in owner:
                raise PackageError(f"kernel {k['name']!r} is defined in both {owner[k['name']]} and {u.display}")
            owner[k["name"]] = u.display
            kernels.append(k)
    return kernels
