"""The system requirements of each make target, each checked on its own; the missing ones installed.

    python3 tools/deps.py GROUP... [--python PY] [--dry-run | --print-missing] [--list]

Every requirement names one thing a target needs, how to check it, and the Debian 12 package that
provides it. The groups (the Makefile's targets call them):

    base      the runtime's libraries and the compiler's tools (sysdeps: run, ops, install, bench)
    test      base, cross, and the tools tests/ use (g++, cmake, valgrind, nm) -- make test
    cross     cross compilers, clang, llvm, qemu-user, arm64 multiarch libraries -- make test-cross
    server    base and g++ -- make server
    sanitize  base and gcc's ASan/UBSan/TSan runtimes -- make test-sanitize
    fuzz      base, clang and its libFuzzer/ASan runtimes -- make fuzz

Kinds of check: ``cmd`` (an executable on PATH), ``pc`` (``pkg-config --exists``), ``deb`` (the
package is installed: ``dpkg-query``; arm64 multiarch libraries are ``NAME:arm64``), ``gcc-lib`` (a
library ``gcc -print-file-name`` finds), ``clang-rt`` (a compiler-rt library in clang's resource
directory), ``py-header`` (Python.h of PY, default the interpreter running this script) and
``py-module`` (PY imports it).

Without options the missing packages are installed with one ``apt-get update`` and one ``apt-get
install`` (through sudo when not root; ``dpkg --add-architecture arm64`` first when an arm64
library is missing), then every missing requirement is checked again; exit status 1 names any still
missing. Nothing is run when nothing is missing. ``--dry-run`` reports what is missing and the
commands it would run; ``--print-missing`` prints only the packages, one a line; ``--list`` prints
each requirement of the groups with its state. Neither of the three installs anything.
"""
from __future__ import annotations

import argparse
import glob
import os
import platform
import shutil
import subprocess
import sys
from typing import NamedTuple


class Req(NamedTuple):
    kind: str       # cmd, pc, deb, gcc-lib, clang-rt, py-header, py-module
    name: str       # what is checked
    package: str    # the Debian package that provides it


def _cmds(*pairs: str) -> list[Req]:
    """Req("cmd", ...) from "name=package" strings (a bare name is its own package)."""
    out = []
    for p in pairs:
        name, _, pkg = p.partition("=")
        out.append(Req("cmd", name, pkg or name))
    return out


# arm64 multiarch -dev packages: static libraries of the package reader for the aarch64 driver
# (tests/cross/run_cross.py READER_LIBS: libarchive and the compressors its zip reader uses)
ARM64_LIBS = ("libarchive-dev", "libjansson-dev", "libssl-dev", "zlib1g-dev", "libbz2-dev",
              "liblzma-dev", "libzstd-dev", "nettle-dev")

GROUPS: dict[str, list[Req]] = {
    "base": [
        *_cmds("gcc", "make", "objcopy=binutils", "pkg-config"),
        Req("pc", "libarchive", "libarchive-dev"),
        Req("pc", "jansson", "libjansson-dev"),
        Req("pc", "libcrypto", "libssl-dev"),
        Req("py-header", "Python.h", "python3-dev"),     # tl/_fastcall.c, built by pip install -e .
        Req("py-module", "ensurepip", "python3-venv"),   # python3 -m venv
    ],
    "cross": [
        *_cmds("aarch64-linux-gnu-gcc=gcc-aarch64-linux-gnu", "riscv64-linux-gnu-gcc=gcc-riscv64-linux-gnu",
               "aarch64-linux-gnu-objdump=binutils-aarch64-linux-gnu",
               "riscv64-linux-gnu-objdump=binutils-riscv64-linux-gnu",
               "clang", "llvm-objdump=llvm", "qemu-aarch64=qemu-user", "qemu-riscv64=qemu-user",
               "apt-get=apt", "dpkg-deb=dpkg"),
        # tests/cross/riscv64_sysroot.sh verifies the Debian 13 index with the archive key
        Req("deb", "debian-archive-keyring", "debian-archive-keyring"),
        *(Req("deb", f"{p}:arm64", f"{p}:arm64") for p in ARM64_LIBS),
    ],
    # libdlpack-dev: upstream DLPack 0.6 dlpack.h, the pre-1.0 header tests/runtime/test_dlpack_headers.py
    # builds tl/dlpack_compat.h against (the 1.x ones come from the test extra: torch, apache-tvm-ffi)
    "test-tools": [*_cmds("g++", "cmake", "valgrind", "nm=binutils"), Req("deb", "libdlpack-dev", "libdlpack-dev")],
    "server": _cmds("g++"),
    # libgcc-N-dev of gcc N ({gcc} is filled in from gcc -dumpversion; 12 on Debian 12)
    "sanitize": [Req("gcc-lib", "libasan.so", "libgcc-{gcc}-dev"), Req("gcc-lib", "libubsan.so", "libgcc-{gcc}-dev"),
                 Req("gcc-lib", "libtsan.so", "libgcc-{gcc}-dev")],
    "fuzz": [*_cmds("clang"), Req("clang-rt", "fuzzer", "libclang-rt-dev"), Req("clang-rt", "asan", "libclang-rt-dev")],
}
INCLUDES = {"test": ("base", "cross", "test-tools"), "server": ("base", "server"),
            "sanitize": ("base", "sanitize"), "fuzz": ("base", "fuzz")}
PUBLIC = ("base", "test", "cross", "server", "sanitize", "fuzz")


def requirements(groups: list[str]) -> list[Req]:
    """The requirements of ``groups`` (names of PUBLIC), each once, in table order."""
    out: list[Req] = []
    for g in groups:
        if g not in PUBLIC:
            raise SystemExit(f"deps.py: unknown group {g!r}; expected one of {', '.join(PUBLIC)}")
        for part in INCLUDES.get(g, (g,)):
            out += [r for r in GROUPS[part] if r not in out]
    return out


def _gcc_major() -> str:
    ok, out = _run_ok(["gcc", "-dumpversion"])
    return out.strip().split(".")[0] if ok and out.strip() else "12"


def _run_ok(cmd: list[str]) -> tuple[bool, str]:
    """(exit status 0, stdout) of cmd; (False, "") when its program is missing."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError:
        return False, ""
    return r.returncode == 0, r.stdout


def present(req: Req, python: str) -> bool:
    """Whether ``req`` is satisfied on this machine (PATH as in the environment)."""
    if req.kind == "cmd":
        return shutil.which(req.name) is not None
    if req.kind == "pc":
        return _run_ok(["pkg-config", "--exists", req.name])[0]
    if req.kind == "deb":
        ok, out = _run_ok(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", req.name])
        return ok and out.startswith("ii")
    if req.kind == "gcc-lib":   # gcc prints the bare name back when it finds no such file
        ok, out = _run_ok(["gcc", f"-print-file-name={req.name}"])
        return ok and os.path.isabs(out.strip()) and os.path.exists(out.strip())
    if req.kind == "clang-rt":  # lib/linux/libclang_rt.NAME-ARCH.a (clang 14), lib/TRIPLE/libclang_rt.NAME.a
        ok, out = _run_ok(["clang", "-print-resource-dir"])
        arch = platform.machine()
        return ok and bool(glob.glob(os.path.join(out.strip(), "lib", "*", f"libclang_rt.{req.name}-{arch}.a"))
                           + glob.glob(os.path.join(out.strip(), "lib", f"{arch}-*", f"libclang_rt.{req.name}.a")))
    if req.kind == "py-header":
        code = ("import os, sys, sysconfig; "
                "sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h')))")
        return _run_ok([python, "-c", code])[0]
    if req.kind == "py-module":
        return _run_ok([python, "-c", f"import {req.name}"])[0]
    raise ValueError(f"unknown requirement kind {req.kind!r}")


def package(req: Req) -> str:
    """The Debian package of ``req``, with gcc's major version filled in."""
    return req.package.replace("{gcc}", _gcc_major()) if "{gcc}" in req.package else req.package


def describe(req: Req, python: str) -> str:
    """``req`` in words, e.g. "command clang", "Python.h of python3"."""
    if req.kind.startswith("py-"):
        return f"{'' if req.kind == 'py-header' else 'module '}{req.name} of {python}"
    what = {"cmd": "command", "pc": "pkg-config module", "deb": "Debian package", "gcc-lib": "gcc library",
            "clang-rt": "clang runtime"}
    return f"{what[req.kind]} {req.name}"


def install_commands(packages: list[str]) -> list[list[str]]:
    """The commands that install ``packages`` (apt-get update only when there is something to install)."""
    if not packages:
        return []
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    cmds = []
    if any(p.endswith(":arm64") for p in packages):
        ok, out = _run_ok(["dpkg", "--print-foreign-architectures"])
        if "arm64" not in out.split():
            cmds.append([*sudo, "dpkg", "--add-architecture", "arm64"])
    cmds.append([*sudo, "apt-get", "update", "-qq"])
    # the variable through env(1) under sudo, which resets the environment; directly as root
    cmds.append([*sudo, *(["env"] if sudo else []), "DEBIAN_FRONTEND=noninteractive",
                 "apt-get", "install", "-y", "-qq", *packages])
    return cmds


def _execute(cmd: list[str]) -> int:
    """Runs cmd, whose leading NAME=VALUE words (as root, no sudo) go into its environment."""
    env = dict(os.environ)
    while cmd and "=" in cmd[0] and not cmd[0].startswith("-"):
        k, v = cmd[0].split("=", 1)
        env[k], cmd = v, cmd[1:]
    return subprocess.run(cmd, env=env).returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("groups", nargs="+", metavar="GROUP", help=", ".join(PUBLIC))
    ap.add_argument("--python", default=sys.executable, help="the Python whose header and modules are checked")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="report what is missing and what would run")
    mode.add_argument("--print-missing", action="store_true", help="print the missing packages, one a line")
    mode.add_argument("--list", action="store_true", help="print every requirement with its state")
    args = ap.parse_args(argv)
    reqs = requirements(args.groups)
    state = {r: present(r, args.python) for r in reqs}
    missing = [r for r in reqs if not state[r]]
    packages = list(dict.fromkeys(package(r) for r in missing))
    label = " ".join(args.groups)
    if args.list:
        for r in reqs:
            print(f"{'ok     ' if state[r] else 'MISSING'} {describe(r, args.python):60s} {package(r)}")
        return 0
    if args.print_missing:
        print("\n".join(packages), end="\n" if packages else "")
        return 0
    for r in missing:
        print(f"deps {label}: missing {describe(r, args.python)}"
              + ("" if r.kind == "deb" else f" (Debian package {package(r)})"), flush=True)
    cmds = install_commands(packages)
    if args.dry_run:
        for c in cmds:
            print("would run:", " ".join(c))
        return 0
    if not cmds:
        return 0
    if os.geteuid() != 0 and not shutil.which("sudo"):
        print(f"deps {label}: installing {' '.join(packages)} needs root or sudo", file=sys.stderr)
        return 1
    for c in cmds:
        print("+", " ".join(c), flush=True)
        if _execute(c) != 0:
            print(f"deps {label}: {' '.join(c)} failed", file=sys.stderr)
            return 1
    still = [r for r in missing if not present(r, args.python)]
    for r in still:
        print(f"deps {label}: {describe(r, args.python)} is still missing after installing {package(r)}",
              file=sys.stderr)
    return 1 if still else 0


if __name__ == "__main__":
    sys.exit(main())
