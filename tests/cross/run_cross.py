"""Cross-architecture conformance: the operator tests of tests/ops, run against the aarch64 and
riscv64 bundles of one multi-architecture package under qemu-user.

    python tests/cross/run_cross.py [--quick] [--targets aarch64,riscv64] [--build DIR]
                                    [--threads N] [--riscv64-sysroot DIR] [--require-package]

Steps (everything lands in DIR, default build/cross):
  1. libtl_runtime cross-built per architecture (make -C libtl_runtime CROSS=<triple>-) with the
     package reader, and the driver tests/cross/tl_run.c linked with it:
       aarch64: Debian 12's arm64 multiarch -dev packages (make cross-deps), linked fully static
                (QEMU 7.2's qemu-aarch64 hangs a dynamically linked glibc program once it starts
                threads; the static driver runs the runtime's thread pool fine);
       riscv64: the Debian 13 sysroot of tests/cross/riscv64_sysroot.sh (SYSROOT=, make
                cross-deps): trixie's glibc dynamic (qemu-riscv64 -L <sysroot>), libarchive,
                jansson, libcrypto and compressors static.
     Without those libraries the driver is built with PACKAGE_READER=0 and opens the variant's
     bare bundle (a failure with --require-package, which make test-cross passes).
  2. one package for x86_64 + the cross targets: tlc build ops/ -t x86_64,aarch64,riscv64.
  3. per variant and per emulator configuration of tlc/backends/cpu/targets.py (aarch64 NEON; riscv64 RVV at
     VLEN 128/256/512; riscv64 scalar baseline with v=false): pytest tests/ops with the
     emu_plugin backend (every launch runs in that emulator with --threads runtime threads,
     default 2, so the thread pool runs under emulation; float64 NumPy references and
     tolerances of tests/ops). The driver opens the package and must report the expected variant.
  4. a summary: pass/fail and seconds per configuration, and the kernel instances no test launched.
--quick runs the subset (one test file per op family, -k filtered) that `make test` uses, with
RVV at VLEN 128 and 512 only (the code is vector-length agnostic; the full run adds 256).
Exit status 1 when any configuration fails.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tlc.backends.cpu.targets import TARGETS, emulator_command  # noqa: E402

# --quick: tests that launch every op family of ops/ at least once, a few shapes each
QUICK = ["-k", "random or roundtrip or basic or matmul or transpose or softmax or norm or sum or argmax or cast "
                "or flash or linear or conv_fast"]
QUICK_SKIP_VLEN = ("vlen=256",)
# static libraries of the package reader: libarchive's zip reader needs zlib, bzip2, xz, zstd and
# nettle (encrypted entries); libcrypto's zstd/zlib compression methods need zstd and zlib
READER_LIBS = ("archive", "jansson", "crypto", "nettle", "z", "bz2", "lzma", "zstd")


def sh(cmd, **kw) -> subprocess.CompletedProcess:
    print("+", shlex.join(map(str, cmd)), flush=True)
    return subprocess.run(list(map(str, cmd)), check=True, **kw)


def sysroot_flags(triple: str, sysroot: Path) -> list[str]:
    """Compile and link flags that take headers, crt files and libraries from ``sysroot`` only
    (as libtl_runtime/Makefile's SYSROOT=: Debian's cross gcc searches /usr/<triple> first)."""
    gcc_inc = subprocess.run([f"{triple}-gcc", "-print-file-name=include"], capture_output=True, text=True,
                             check=True).stdout.strip()
    return ["-nostdinc", "-isystem", gcc_inc, "-isystem", f"{sysroot}/usr/include/{triple}",
            "-isystem", f"{sysroot}/usr/include", f"--sysroot={sysroot}", f"-B{sysroot}/usr/lib/{triple}/",
            f"-L{sysroot}/usr/lib/{triple}"]


def build_driver(arch: str, triple: str, out: Path, sysroot: Path | None) -> tuple[Path, bool, Path | None]:
    """Cross-builds libtl_runtime and tl_run for ``arch``.

    Returns (driver, has the package reader, sysroot for qemu's -L or None for the default)."""
    libdir = (sysroot / "usr/lib" / triple) if sysroot else Path(f"/usr/lib/{triple}")
    reader = all((libdir / f"lib{lib}.a").exists() for lib in READER_LIBS)
    if not reader:
        print(f"warning: no static {', '.join(READER_LIBS)} libraries in {libdir} (make cross-deps): "
              f"the {arch} driver opens bare bundles", flush=True)
    use_sysroot = sysroot if (reader and sysroot) else None
    rt = out / arch / ("runtime" if reader else "runtime-bare")     # objects differ by -DTL_NO_PACKAGE_READER
    sh(["make", "-s", "-C", REPO / "libtl_runtime", f"CROSS={triple}-", f"BUILD={rt}",
        f"PACKAGE_READER={1 if reader else 0}", *([f"SYSROOT={use_sysroot}"] if use_sysroot else []),
        f"-j{os.cpu_count() or 2}", rt / "libtl_runtime.a"])
    driver = out / arch / "tl_run"
    libs = [f"-l{lib}" for lib in READER_LIBS] if reader else []
    if use_sysroot:     # the sysroot's glibc dynamically (static glibc 2.41 crashes binutils 2.40's ld)
        flags, link = sysroot_flags(triple, use_sysroot), ["-Wl,-Bstatic", *libs, "-Wl,-Bdynamic", "-lpthread", "-ldl"]
    else:               # fully static (qemu-aarch64 7.2 hangs dynamically linked threaded programs)
        flags, link = [], ["-static", *libs, "-lpthread", "-ldl"]
    r = subprocess.run([f"{triple}-gcc", *flags, "-O2", "-std=gnu11", "-Wall", "-Werror",
                        f"-I{REPO / 'libtl_runtime/include'}", REPO / "tests/cross/tl_run.c",
                        rt / "libtl_runtime.a", *link, "-o", driver], capture_output=True, text=True)
    # glibc's link-time notes on dlopen/getaddrinfo in static programs are expected
    noise = ("in function", "statically linked applications requires at runtime")
    print("\n".join(ln for ln in r.stderr.splitlines() if not any(n in ln for n in noise)), end="", flush=True)
    if r.returncode != 0:
        raise SystemExit(f"linking the {arch} driver failed:\n{r.stderr[-4000:]}")
    return driver, reader, use_sysroot


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the subset covering every op (for make test)")
    ap.add_argument("--targets", default="aarch64,riscv64")
    ap.add_argument("--build", default=str(REPO / "build" / "cross"))
    ap.add_argument("--no-x86", action="store_true", help="leave x86_64 out of the package")
    ap.add_argument("--threads", type=int, default=2, help="runtime threads of the driver (default 2)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per configuration (default 3600)")
    ap.add_argument("--riscv64-sysroot", default=str(REPO / "build" / "cross" / "riscv64-sysroot" / "root"),
                    help="Debian 13 riscv64 sysroot of tests/cross/riscv64_sysroot.sh")
    ap.add_argument("--require-package", action="store_true",
                    help="fail when a driver has no package reader (instead of opening bare bundles)")
    args = ap.parse_args(argv)
    out = Path(args.build).resolve()
    out.mkdir(parents=True, exist_ok=True)
    names = [t.strip() for t in args.targets.split(",") if t.strip()]
    t0 = time.perf_counter()

    drivers = {}
    for name in names:
        v0 = TARGETS[name].variants[0]
        sysroot = Path(args.riscv64_sysroot) if v0.arch == "riscv64" else None
        drivers[name] = build_driver(v0.arch, v0.triple, out, sysroot)
        if args.require_package and not drivers[name][1]:
            print(f"FAIL {name}: the driver has no package reader (run make cross-deps)")
            return 1
    pkg = out / "ops-multi.tlpkg"
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{REPO / 'tests' / 'cross'}"}
    tgt = ",".join(([] if args.no_x86 else ["x86_64"]) + names)
    sh([sys.executable, "-m", "tlc", "build", REPO / "ops", "-t", tgt, "-o", pkg], cwd=REPO, env=env)
    t_build = time.perf_counter() - t0
    with zipfile.ZipFile(pkg) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        all_kernels = {k["name"] for k in manifest["kernels"]}
        (out / "bundles").mkdir(exist_ok=True)
        for b in manifest["bundles"]:
            (out / "bundles" / Path(b["path"]).name).write_bytes(zf.read(b["path"]))

    results, failed, used_logs = [], False, []
    for name in names:
        driver, reader, sysroot = drivers[name]
        for v in TARGETS[name].variants:
            for i in range(len(v.emulators)):
                emu = emulator_command(v, i)
                if sysroot is not None and "-L" in emu:
                    emu[emu.index("-L") + 1] = str(sysroot)
                target = pkg if reader else out / "bundles" / f"{v.name}.so"
                label = f"{v.name} [{' '.join(emu[3:]) or emu[0]}]"
                if args.quick and any(q in label for q in QUICK_SKIP_VLEN):
                    continue
                log = out / f"{v.name}-{i}.launched"
                log.unlink(missing_ok=True)
                used_logs.append(log)
                cmd = [*emu, str(driver), str(target), str(args.threads)]
                try:
                    info = subprocess.run(cmd, input="info\nquit\n", capture_output=True, text=True, timeout=300)
                except subprocess.TimeoutExpired:
                    info = subprocess.CompletedProcess(cmd, -1, "(timed out)", "")
                got = info.stdout.split()[1:2]
                if got != [v.name]:
                    print(f"FAIL {label}: driver picked {got} (expected {v.name}): {info.stdout}{info.stderr}")
                    failed = True
                    results.append((label, "picked " + "".join(got), 0.0))
                    continue
                t1 = time.perf_counter()
                pytest_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "emu_plugin", "-p", "no:cacheprovider",
                              str(REPO / "tests" / "ops"), *(QUICK if args.quick else [])]
                try:     # a hung emulator fails its configuration instead of blocking the run
                    r = subprocess.run(pytest_cmd, cwd=REPO, capture_output=True, text=True, timeout=args.timeout,
                                       env={**env, "TL_CROSS_COMMAND": shlex.join(cmd), "TL_CROSS_LOG": str(log),
                                            "TL_OPS_BACKEND": "interp"})
                except subprocess.TimeoutExpired as e:
                    r = subprocess.CompletedProcess(pytest_cmd, 1, f"{e.stdout or ''}\ntimed out after {args.timeout} s",
                                                    str(e.stderr or ""))
                dt = time.perf_counter() - t1
                tail = [ln for ln in r.stdout.splitlines() if ln.strip()][-1:] or ["(no output)"]
                if r.returncode != 0:
                    failed = True
                    print(r.stdout[-6000:], r.stderr[-2000:])
                launched = set(log.read_text().split()) if log.exists() else set()
                results.append((label, tail[0], dt, len(launched & all_kernels)))
                print(f"{'ok  ' if r.returncode == 0 else 'FAIL'} {label}: {tail[0]} ({dt:.1f} s, "
                      f"{len(launched & all_kernels)}/{len(all_kernels)} kernel instances launched, "
                      f"{'package' if reader else 'bare bundle'}, {args.threads} threads)", flush=True)
    print(f"\ncross conformance summary (package {pkg.name}: {len(all_kernels)} kernels, "
          f"bundles {', '.join(b['variant'] for b in manifest['bundles'])}; build {t_build:.1f} s)")
    for label, tail, dt, *cov in results:
        print(f"  {label:<58} {tail:<40} {dt:7.1f} s  {cov[0] if cov else 0} kernels")
    logs = [set(p.read_text().split()) for p in used_logs if p.exists()]
    never = sorted(all_kernels - set().union(*logs)) if logs else sorted(all_kernels)
    print(f"  kernel instances no test launched ({len(never)}): {', '.join(never) or 'none'}")
    print(f"total {time.perf_counter() - t0:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
