"""tools/deps.py against a fake machine: a PATH holding only some tools, and fake pkg-config,
dpkg-query, dpkg, gcc, clang, apt-get and sudo that answer from a JSON state file. Each check must
ask for exactly the packages of the missing requirements, run nothing when nothing is missing, and
never install anything in --dry-run / --print-missing (the fake apt-get logs every call)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

DEPS = Path(__file__).resolve().parents[2] / "tools" / "deps.py"

# a fake that answers from state.json next to its directory (bin/); apt-get "installs" by moving
# what state["provides"][package] names into the installed sets and creating the commands
FAKE = r'''#!{python}
import json, os, sys
from pathlib import Path
BIN = Path(__file__).resolve().parent
STATE = BIN.parent / "state.json"
s = json.loads(STATE.read_text())
me, args = Path(sys.argv[0]).name, sys.argv[1:]
if me == "pkg-config":
    sys.exit(0 if args[0] == "--exists" and args[1] in s["pc"] else 1)
if me == "dpkg-query":
    if args[-1] in s["deb"]:
        print("ii ", end="")
        sys.exit(0)
    print(f"dpkg-query: no packages found matching {{args[-1]}}", file=sys.stderr)
    sys.exit(1)
if me == "dpkg":
    print("\n".join(s["foreign"]))
    sys.exit(0)
if me == "gcc":
    if args == ["-dumpversion"]:
        print("12")
    else:
        name = args[0].split("=", 1)[1]
        print(s["gcc_libs"].get(name, name))
    sys.exit(0)
if me == "clang":
    print(s["clang_resource_dir"])
    sys.exit(0)
if me == "sudo":    # sudo env NAME=VALUE apt-get ...: the fake apt-get ignores the environment
    while args and (args[0] == "env" or "=" in args[0]):
        args = args[1:]
    os.execvp(args[0], args)
if me == "apt-get":
    with open(BIN.parent / "apt.log", "a") as f:
        f.write(" ".join(args) + "\n")
    if args[:1] == ["install"]:
        for pkg in args:
            got = s["provides"].get(pkg, {{}})
            for c in got.get("cmd", []):
                (BIN / c).write_text("#!/bin/sh\nexit 0\n")
                (BIN / c).chmod(0o755)
            s["pc"] += got.get("pc", [])
            s["deb"] += got.get("deb", [])
        STATE.write_text(json.dumps(s))
    sys.exit(0)
sys.exit(0)
'''
SCRIPTED = ("pkg-config", "dpkg-query", "dpkg", "gcc", "clang", "sudo", "apt-get")


class FakeMachine:
    """A PATH (tmp/bin) holding only ``cmds``; pkg-config knows ``pc``, dpkg-query ``deb``."""

    def __init__(self, tmp: Path, cmds=(), pc=(), deb=(), foreign=(), gcc_libs=None, clang_rt=(),
                 python_ok=True, provides=None):
        self.tmp, self.bin = tmp, tmp / "bin"
        self.bin.mkdir(parents=True)
        rdir = tmp / "clang-resource"
        (rdir / "lib" / "linux").mkdir(parents=True)
        for rt in clang_rt:
            (rdir / "lib" / "linux" / f"libclang_rt.{rt}-{os.uname().machine}.a").write_text("")
        (tmp / "state.json").write_text(json.dumps(dict(
            pc=list(pc), deb=list(deb), foreign=list(foreign), gcc_libs=gcc_libs or {},
            clang_resource_dir=str(rdir), provides=provides or {})))
        for c in cmds:
            p = self.bin / c
            p.write_text(FAKE.format(python=sys.executable) if c in SCRIPTED else "#!/bin/sh\nexit 0\n")
            p.chmod(0o755)
        self.python = tmp / "python"      # the Python whose Python.h and ensurepip are checked
        self.python.write_text(f"#!/bin/sh\nexit {0 if python_ok else 1}\n")
        self.python.chmod(0o755)

    def run(self, *args: str) -> subprocess.CompletedProcess:
        env = {"PATH": str(self.bin), "HOME": str(self.tmp)}
        return subprocess.run([sys.executable, str(DEPS), *args, "--python", str(self.python)],
                              capture_output=True, text=True, env=env, timeout=60)

    def missing(self, *groups: str) -> list[str]:
        r = self.run(*groups, "--print-missing")
        assert r.returncode == 0, r.stderr
        return r.stdout.splitlines()

    def apt_calls(self) -> list[str]:
        log = self.tmp / "apt.log"
        return log.read_text().splitlines() if log.exists() else []


BASE_CMDS = ("gcc", "make", "objcopy", "pkg-config")
BASE_PC = ("libarchive", "jansson", "libcrypto")
CROSS_CMDS = ("aarch64-linux-gnu-gcc", "riscv64-linux-gnu-gcc", "aarch64-linux-gnu-objdump",
              "riscv64-linux-gnu-objdump", "clang", "llvm-objdump", "qemu-aarch64", "qemu-riscv64",
              "apt-get", "dpkg-deb")
ARM64 = tuple(f"{p}:arm64" for p in ("libarchive-dev", "libjansson-dev", "libssl-dev", "zlib1g-dev",
                                      "libbz2-dev", "liblzma-dev", "libzstd-dev", "nettle-dev"))
ALL_DEB = ("debian-archive-keyring", *ARM64, "libdlpack-dev")


def test_one_tool_present_does_not_hide_the_others(tmp_path):
    """The fault of the issue: only llvm-objdump there; every other cross tool must be asked for."""
    m = FakeMachine(tmp_path, cmds=(*BASE_CMDS, "llvm-objdump", "apt-get", "dpkg-deb", "dpkg-query", "dpkg"),
                    pc=BASE_PC, deb=ALL_DEB)
    assert m.missing("cross") == ["gcc-aarch64-linux-gnu", "gcc-riscv64-linux-gnu", "binutils-aarch64-linux-gnu",
                                  "binutils-riscv64-linux-gnu", "clang", "qemu-user"]
    assert m.apt_calls() == []


def test_commands_pkg_config_modules_and_debs_each_on_their_own(tmp_path):
    m = FakeMachine(tmp_path, cmds=("gcc", "make", "pkg-config", "dpkg-query", "dpkg", "qemu-riscv64",
                                    "clang", "apt-get", "dpkg-deb", "g++", "nm"),
                    pc=("jansson",), deb=("debian-archive-keyring", "libssl-dev:arm64", "nettle-dev:arm64"))
    assert m.missing("test") == [
        "binutils", "libarchive-dev", "libssl-dev",                                 # objcopy; 2 of 3 modules
        "gcc-aarch64-linux-gnu", "gcc-riscv64-linux-gnu", "binutils-aarch64-linux-gnu",
        "binutils-riscv64-linux-gnu", "llvm", "qemu-user",                          # qemu-aarch64 only
        "libarchive-dev:arm64", "libjansson-dev:arm64", "zlib1g-dev:arm64", "libbz2-dev:arm64",
        "liblzma-dev:arm64", "libzstd-dev:arm64",
        "cmake", "valgrind", "libdlpack-dev"]
    assert m.apt_calls() == []


def test_no_pkg_config_means_every_module_is_missing(tmp_path):
    m = FakeMachine(tmp_path, cmds=("gcc", "make", "objcopy"))
    assert m.missing("base") == ["pkg-config", "libarchive-dev", "libjansson-dev", "libssl-dev"]


def test_python_header_and_venv_module(tmp_path):
    m = FakeMachine(tmp_path, cmds=(*BASE_CMDS, "pkg-config"), pc=BASE_PC, python_ok=False)
    assert m.missing("base") == ["python3-dev", "python3-venv"]


def test_sanitizer_and_fuzzer_runtimes(tmp_path):
    lib = tmp_path / "libasan.so"
    lib.write_text("")
    m = FakeMachine(tmp_path, cmds=(*BASE_CMDS, "clang"), pc=BASE_PC, gcc_libs={"libasan.so": str(lib)},
                    clang_rt=("asan",))
    assert m.missing("sanitize") == ["libgcc-12-dev"]            # libubsan.so not found by gcc
    assert m.missing("fuzz") == ["libclang-rt-dev"]              # clang there, its libFuzzer runtime not
    assert m.missing("server") == ["g++"]
    m2 = FakeMachine(tmp_path / "bare", cmds=BASE_CMDS, pc=BASE_PC)
    assert m2.missing("fuzz") == ["clang", "libclang-rt-dev"]


def test_dry_run_names_the_commands_and_runs_none(tmp_path):
    m = FakeMachine(tmp_path, cmds=(*BASE_CMDS, *CROSS_CMDS, "dpkg-query", "dpkg", "sudo"),
                    pc=BASE_PC, deb=("debian-archive-keyring", *ARM64[1:]))
    r = m.run("cross", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "missing Debian package libarchive-dev:arm64" in r.stdout
    would = [ln.removeprefix("would run: ").removeprefix("sudo ").removeprefix("env ") for ln in r.stdout.splitlines()
             if ln.startswith("would run: ")]
    assert would == ["dpkg --add-architecture arm64", "apt-get update -qq",
                     "DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libarchive-dev:arm64"]
    assert m.apt_calls() == []
    m2 = FakeMachine(tmp_path / "arm64", cmds=(*BASE_CMDS, *CROSS_CMDS, "dpkg-query", "dpkg", "sudo"),
                     pc=BASE_PC, deb=("debian-archive-keyring", *ARM64[1:]), foreign=("arm64",))
    assert "add-architecture" not in m2.run("cross", "--dry-run").stdout     # arm64 already added


def test_nothing_missing_runs_nothing(tmp_path):
    m = FakeMachine(tmp_path, cmds=(*BASE_CMDS, *CROSS_CMDS, "g++", "cmake", "valgrind", "nm",
                                    "dpkg-query", "dpkg", "sudo"), pc=BASE_PC, deb=ALL_DEB)
    r = m.run("test")                       # the installing mode: no apt-get update without a reason
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    assert m.apt_calls() == []


def test_installs_exactly_the_missing_and_checks_again(tmp_path):
    provides = {"libjansson-dev": {"pc": ["jansson"]}, "g++": {"cmd": ["g++"]}}
    m = FakeMachine(tmp_path, cmds=(*BASE_CMDS, "apt-get", "sudo"), pc=("libarchive", "libcrypto"),
                    provides=provides)
    r = m.run("server")
    assert r.returncode == 0, r.stdout + r.stderr
    assert m.apt_calls() == ["update -qq", "install -y -qq libjansson-dev g++"]
    assert m.missing("server") == []
    # a package that does not provide what it should: the second check fails, naming it
    m2 = FakeMachine(tmp_path / "broken", cmds=(*BASE_CMDS, "apt-get", "sudo"), pc=BASE_PC)
    r = m2.run("server")
    assert r.returncode == 1
    assert "command g++ is still missing after installing g++" in r.stderr
    assert m2.apt_calls() == ["update -qq", "install -y -qq g++"]


def test_unknown_group_is_refused(tmp_path):
    m = FakeMachine(tmp_path, cmds=BASE_CMDS)
    r = m.run("nonsense", "--print-missing")
    assert r.returncode != 0 and "unknown group 'nonsense'" in r.stderr


@pytest.mark.parametrize("target", ["test", "test-cross", "test-cross-quick", "server", "test-sanitize",
                                    "fuzz", "run", "bench", "onnx-conformance", "ops-docs"])
def test_every_public_target_reaches_its_dependency_check(target):
    """make -n of each public target runs tools/deps.py with the group it needs before its work
    (make install: tools/c_deps.sh, test_install_checks_its_c_deps_without_python)."""
    repo = DEPS.parents[1]
    # -o: build/ops.tlpkg counts as made (the server binary names it; make ops makes it)
    r = subprocess.run(["make", "-n", "-o", "build/ops.tlpkg", target], cwd=repo, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    groups = {ln.split("tools/deps.py", 1)[1].split()[-1] for ln in r.stdout.splitlines() if "tools/deps.py" in ln}
    need = {"test": {"base", "test", "cross"}, "test-cross": {"base", "cross"}, "test-cross-quick": {"base", "cross"},
            "server": {"base", "server"}, "test-sanitize": {"base", "sanitize"}, "fuzz": {"fuzz"}}.get(target, {"base"})
    assert need <= groups, (target, groups)


def test_install_checks_its_c_deps_without_python():
    """make install runs the POSIX sh check of the C build's requirements, and no tools/deps.py."""
    r = subprocess.run(["make", "-n", "install", "PREFIX=/nonexistent"], cwd=DEPS.parents[1], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "sh tools/c_deps.sh" in r.stdout and "tools/deps.py" not in r.stdout, r.stdout
