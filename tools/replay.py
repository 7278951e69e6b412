"""Replay check: the compiler's output for the whole operator library, now and at a base commit,
must be byte-identical (the safety net for refactorings that must change no generated code).

    .venv/bin/python tools/replay.py [--base REF] [--current REF] [--only NAME ...] [-j N]
    make replay [REPLAY_BASE=REF]

For every TL file of ops/ and every CPU variant of every target (tlc.backends.cpu.targets.TARGETS; before the backend
seam: tlc.target.TARGETS), each side
emits, without running a C compiler, into <out>/<side>/ (default out: build/replay):

    c/<variant>/<unit>.c        the unit's generated C (tlc.driver: parse -> run_pipeline -> emit)
    ir/<variant>/<unit>.ir      its IR after the pipeline (tlc.driver.print_ir)
    c/<variant>/tl_bundle.c     the bundle aggregator over the units (tlc.backends.cpu.build)
    include/ops.h               the package header (tlc.package.header)
    REPLAY.json                 counts and timing (not compared)

The current side is the working tree (<out>/worktree; uncommitted changes included) or, with
--current REF, a checkout of REF (<out>/<sha>); the base side is a checkout of the base commit
(<out>/base-<sha>; reused while this tool and the selection are unchanged; older base trees are
deleted). Checkouts are git worktrees under <out>/src/ (no network), removed afterwards. Each side is emitted in its own Python
process that imports that side's tlc, with the sources named ``ops/<file>.py`` relative to the
side's root, so the checkout's location does not show in the output (a real build names the
absolute path instead: the only difference from the C in a package).

The base is --base, else $REPLAY_BASE, else ``git merge-base HEAD main`` when that differs from
HEAD, else HEAD~1 (so on main itself the last commit is checked; REPLAY_BASE=HEAD checks
uncommitted work). Prints ``replay: N kernels x V variants, 0 differ`` and exits 0, or lists the
differing files with a unified diff excerpt each and exits 1; exit 2 for a bad ref or a side
that fails to emit.
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = "REPLAY.json"
EXCERPT_LINES = 40      # diff lines shown per differing file
EXCERPTS = 8            # differing files shown with an excerpt (all are listed)


class ReplayError(Exception):
    """A bad ref, a failed checkout, or a side that failed to emit (exit status 2)."""


# ------------------------------------------------------------------------------------ emission
def emit_here(root: Path, out: Path, only: list[str] | None = None, jobs: int = 1) -> dict:
    """Emits the ops/ of ``root`` (whose tlc must be the one imported) into ``out``; returns
    the summary (also written to out/REPLAY.json): kernel and unit counts, variants, seconds."""
    import concurrent.futures as cf
    from tlc.package.pack import discover
    t0 = time.perf_counter()
    os.chdir(root)
    units = discover(["ops"])
    if only:
        wanted = {n[:-3] if n.endswith(".py") else n for n in only}
        units = [u for u in units if Path(u.display).stem in wanted]
        missing = wanted - {Path(u.display).stem for u in units}
        if missing:
            raise ReplayError(f"--only: no ops/ file named {', '.join(sorted(missing))} in {root}")
    variants = _variants()
    args = [(u.display, u.name, str(out)) for u in units]
    if jobs > 1 and len(units) > 1:
        with cf.ProcessPoolExecutor(max_workers=min(jobs, len(units))) as pool:
            results = list(pool.map(_emit_unit, *zip(*args)))
    else:
        results = [_emit_unit(*a) for a in args]
    _emit_package_files(out, units, variants, results)
    summary = {"kernels": sum(len(k) for k in results), "units": len(units),
               "variants": [v.name for v in variants], "seconds": round(time.perf_counter() - t0, 2)}
    (out / SUMMARY).write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def _emit_unit(display: str, unit: str, out: str) -> list[dict]:
    """Writes one unit's C and IR for every variant; returns its manifest kernel entries."""
    from tlc import driver
    module = driver.parse(display)
    kernels = None
    for v in _variants():
        lowered = driver.run_pipeline(module, v)
        _write(Path(out) / "c" / v.name / f"{unit}.c", driver.emit(lowered, v))
        _write(Path(out) / "ir" / v.name / f"{unit}.ir", driver.print_ir(lowered))
        if kernels is None:
            kernels = [driver.kernel_info(k, display) for k in lowered.kernels]
    return kernels or []


# Each side imports its own tlc, and a base commit may predate the backend seam (tlc/backends/):
# these two lookups accept both layouts.
def _seam() -> bool:
    """Whether this side's tlc has the backend seam (tlc/backends/). By the directory: an editable
    install's finder may also offer the other tree's modules."""
    import tlc
    return (Path(tlc.__file__).resolve().parent / "backends").is_dir()


def _variants() -> list:
    """Every variant of every CPU target, in target order."""
    import importlib
    targets = importlib.import_module("tlc.backends.cpu.targets" if _seam() else "tlc.target")
    return [v for t in targets.TARGETS.values() for v in t.variants]


def _build_module():
    """The module with ``aggregator_source`` (the CPU backend's build; tlc.package.build before)."""
    import importlib
    return importlib.import_module("tlc.backends.cpu.build" if _seam() else "tlc.package.build")


def _emit_package_files(out: Path, units, variants, kernels_per_unit: list[list[dict]]) -> None:
    from tl import __version__
    from tlc.package.header import render_header
    build = _build_module()
    counts = [(u.name, len(k)) for u, k in zip(units, kernels_per_unit)]
    for v in variants:
        _write(out / "c" / v.name / "tl_bundle.c", build.aggregator_source(counts, v))
    _write(out / "include" / "ops.h", render_header("ops", [k for ks in kernels_per_unit for k in ks], __version__))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def emit_side(root: Path, out: Path, only: list[str] | None, jobs: int) -> dict:
    """emit_here in a fresh Python process importing ``root``'s tl and tlc (``out`` is emptied first)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    cmd = [sys.executable, str(Path(__file__).resolve()), "_emit", str(root), str(out), "-j", str(jobs),
           *(["--only", *only] if only else [])]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
           "PYTHONDONTWRITEBYTECODE": "1"}
    r = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise ReplayError(f"emitting {root} failed (exit {r.returncode}):\n{(r.stderr or r.stdout)[-4000:]}")
    return json.loads((out / SUMMARY).read_text())


def _emit_main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="replay.py _emit")
    ap.add_argument("root", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("-j", type=int, default=1)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args(argv)
    root = a.root.resolve()
    sys.path.insert(0, str(root))
    import tlc
    if Path(tlc.__file__).resolve().parent != root / "tlc":
        raise SystemExit(f"replay: imported tlc from {tlc.__file__}, not from {root}")
    try:
        emit_here(root, a.out.resolve(), a.only, a.j)
    except ReplayError as e:
        raise SystemExit(f"replay: {e}") from None
    return 0


# ------------------------------------------------------------------------------------ git
def git(*args: str, cwd: Path = ROOT) -> str:
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        raise ReplayError(f"git {' '.join(args)} failed: {r.stderr.strip()}")
    return r.stdout.strip()


def rev(ref: str) -> str:
    """The full commit id of ``ref``; ReplayError naming it when it is not a commit."""
    try:
        return git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    except ReplayError:
        raise ReplayError(f"base/current {ref!r} is not a commit here (git rev-parse {ref})") from None


def default_base() -> str:
    """$REPLAY_BASE, else merge-base(HEAD, main) when it is not HEAD, else HEAD~1."""
    if os.environ.get("REPLAY_BASE"):
        return os.environ["REPLAY_BASE"]
    head = rev("HEAD")
    try:
        mb = git("merge-base", "HEAD", "main")
    except ReplayError:
        mb = ""
    return mb if mb and mb != head else "HEAD~1"


def checkout(sha: str, dest: Path) -> None:
    """A detached git worktree of ``sha`` at ``dest`` (a stale one there is replaced)."""
    remove_checkout(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    git("worktree", "add", "--detach", "--quiet", str(dest), sha)


def remove_checkout(dest: Path) -> None:
    if dest.exists():
        subprocess.run(["git", "worktree", "remove", "--force", str(dest)], cwd=ROOT, capture_output=True)
        shutil.rmtree(dest, ignore_errors=True)
    subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)


def _tool_hash() -> str:
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def emit_commit(sha: str, out: Path, src_root: Path, only, jobs: int, reuse: bool) -> dict:
    """Emits commit ``sha`` into ``out`` from a temporary worktree under ``src_root``; with
    ``reuse``, an earlier emission of the same commit, selection and tool version is kept."""
    stamp = {"commit": sha, "tool": _tool_hash(), "only": sorted(only or [])}
    if reuse and (out / SUMMARY).exists():
        old = json.loads((out / SUMMARY).read_text())
        if old.get("stamp") == stamp:
            return old
    dest = src_root / sha[:12]
    checkout(sha, dest)
    try:
        summary = emit_side(dest, out, only, jobs)
    finally:
        remove_checkout(dest)
    summary["stamp"] = stamp
    (out / SUMMARY).write_text(json.dumps(summary, indent=1) + "\n")
    return summary


# ------------------------------------------------------------------------------------ diff
@dataclasses.dataclass(frozen=True)
class Difference:
    """One file that is not the same on both sides: ``kind`` is "changed", "only in base" or
    "only in current"; ``excerpt`` the start of its unified diff (empty for a one-sided file)."""

    path: str
    kind: str
    excerpt: str = ""


def _files(d: Path) -> set[str]:
    return {p.relative_to(d).as_posix() for p in d.rglob("*") if p.is_file() and p.name != SUMMARY}


def diff_dirs(base: Path, current: Path, excerpt_lines: int = EXCERPT_LINES) -> list[Difference]:
    """The files that differ between two emitted trees (REPLAY.json ignored), sorted by path."""
    a, b = _files(base), _files(current)
    out = [Difference(p, "only in base") for p in sorted(a - b)]
    out += [Difference(p, "only in current") for p in sorted(b - a)]
    for p in sorted(a & b):
        x, y = (base / p).read_bytes(), (current / p).read_bytes()
        if x == y:
            continue
        lines = list(difflib.unified_diff(x.decode(errors="replace").splitlines(True),
                                          y.decode(errors="replace").splitlines(True),
                                          f"base/{p}", f"current/{p}", n=2))
        more = len(lines) - excerpt_lines
        text = "".join(lines[:excerpt_lines]) + (f"... ({more} more diff lines)\n" if more > 0 else "")
        out.append(Difference(p, "changed", text))
    return sorted(out, key=lambda d: d.path)


def report(diffs: list[Difference], kernels: int, variants: int, base_dir: Path, current_dir: Path) -> str:
    """The text the tool prints: the summary line, then each differing file and its excerpt."""
    head = f"replay: {kernels} kernels x {variants} variants, {len(diffs)} differ"
    if not diffs:
        return head + f" ({base_dir} vs {current_dir})\n"
    lines = [head + ":"] + [f"  {d.kind:<16} {d.path}" for d in diffs]
    shown = [d.excerpt for d in diffs if d.excerpt]
    lines += [""] + shown[:EXCERPTS]
    if len(shown) > EXCERPTS:
        lines.append(f"... and {len(shown) - EXCERPTS} more changed files")
    lines.append(f"(full trees: diff -r {base_dir} {current_dir})")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_emit"]:
        return _emit_main(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default=None, help="base commit [default: $REPLAY_BASE, merge-base with main, or HEAD~1]")
    ap.add_argument("--current", default=None, help="compare this commit instead of the working tree")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="only these ops/ files (e.g. softmax matmul)")
    ap.add_argument("--out", type=Path, default=ROOT / "build" / "replay", help="output root [build/replay]")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count() or 1), help="processes per side [2]")
    a = ap.parse_args(argv)
    try:
        base = rev(a.base or default_base())
        out = a.out.resolve()
        t0 = time.perf_counter()
        base_dir = out / f"base-{base[:12]}"
        bs = emit_commit(base, base_dir, out / "src", a.only, a.jobs, reuse=True)
        for old in out.glob("base-*"):          # keep one base tree (each is ~90 MB)
            if old != base_dir:
                shutil.rmtree(old, ignore_errors=True)
        t1 = time.perf_counter()
        if a.current is None:
            cur_dir = out / "worktree"
            cs = emit_side(ROOT, cur_dir, a.only, a.jobs)
        else:
            cur = rev(a.current)
            cur_dir = out / cur[:12]
            cs = emit_commit(cur, cur_dir, out / "src", a.only, a.jobs, reuse=False)
        t2 = time.perf_counter()
    except ReplayError as e:
        print(f"replay: error: {e}", file=sys.stderr)
        return 2
    print(f"replay: base {base[:12]} emitted in {t1 - t0:.1f} s ({bs['units']} files), current in "
          f"{t2 - t1:.1f} s ({cs['units']} files)", file=sys.stderr)
    diffs = diff_dirs(base_dir, cur_dir)
    sys.stdout.write(report(diffs, cs["kernels"], len(cs["variants"]), base_dir, cur_dir))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
