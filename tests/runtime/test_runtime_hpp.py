"""tl/runtime.hpp, the header-only C++17 interface: compiles -Wall -Wextra -Werror -pedantic
with g++ (and clang++ when present), and on the fixture package (programs/hpp_use.cpp, built with
AddressSanitizer + UBSan so a double release, a use after release or a leaked handle fails the
run): every destruction order of runtime/package/kernel, shared/moved handles, tl::Error for each
bad call, the try_* Status/Result forms. The MLP on the real ops package: tests/runtime/test_mlp_hpp.py."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rt_helpers import INCLUDE, REPO, SANITIZE

PROGRAMS = Path(__file__).with_name("programs")
LIBDIR = REPO / "build" / "runtime"
STRICT = ["-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic"]
COMPILERS = [c for c in ("g++", "clang++") if shutil.which(c)]


def build(cxx: str, src: Path, exe: Path, sanitize: bool = True, extra=()) -> Path:
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-g"] if sanitize else ["-O2"]
    subprocess.run([cxx, *STRICT, *san, f"-I{INCLUDE}", *extra, str(src), "-o", str(exe), f"-L{LIBDIR}",
                    f"-Wl,-rpath,{LIBDIR}", "-ltl_runtime"], check=True)
    return exe


def run(exe: Path, *args) -> subprocess.CompletedProcess:
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")
    env.pop("LD_PRELOAD", None)
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture(scope="module", params=COMPILERS or [None])
def hpp_use(request, tmp_path_factory):
    if request.param is None:
        pytest.skip("no C++ compiler")
    exe = tmp_path_factory.mktemp("hpp") / f"hpp_use_{request.param}"
    # ASan in the program only when the suite itself is not already running under ASan
    return build(request.param, PROGRAMS / "hpp_use.cpp", exe, sanitize=not SANITIZE)


def test_destruction_in_every_order(hpp_use, package_path):
    r = run(hpp_use, "lifetimes", package_path)
    assert r.returncode == 0 and "FAIL" not in r.stdout, r.stdout + r.stderr
    orders = [line for line in r.stdout.splitlines() if line.startswith("ok destroy order")]
    assert len(orders) == 6, r.stdout                      # 3! orders, each checked after every step
    assert "ok copy shares, move empties" in r.stdout and "ok moved-from package throws" in r.stdout
    assert "ERROR: LeakSanitizer" not in r.stderr and "AddressSanitizer" not in r.stderr


def test_errors_are_exceptions(hpp_use, package_path):
    r = run(hpp_use, "errors", package_path)
    assert r.returncode == 0 and "FAIL" not in r.stdout, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 29, r.stdout
    assert "ok Package::device(): the fixture's bundle runs on the CPU" in lines, r.stdout
    assert any(line.startswith("ok open for a device without a driver: [5] ") and "kDLROCM" in line
               for line in lines), r.stdout
    assert any(line.startswith("ok wrong dtype (runtime check): [1] kernel axpy: argument 'x' (#0): expected dtype "
                               "float32, got float64") for line in lines), r.stdout


@pytest.mark.parametrize("cxx", COMPILERS or ["g++"])
def test_header_alone_and_cxx14_refused(tmp_path, cxx):
    if shutil.which(cxx) is None:
        pytest.skip(f"no {cxx}")
    src = tmp_path / "t.cpp"
    src.write_text('#include "tl/runtime.hpp"\n#include "tl/runtime.hpp"\nint main() { return 0; }\n')
    subprocess.run([cxx, *STRICT, f"-I{INCLUDE}", "-c", str(src), "-o", str(tmp_path / "t.o")], check=True)
    r = subprocess.run([cxx, "-std=c++14", f"-I{INCLUDE}", "-c", str(src), "-o", str(tmp_path / "t.o")],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "tl/runtime.hpp needs C++17" in r.stderr
    assert r.stderr.count("error:") == 1, r.stderr     # the #error alone, not the header's C++17 code


def test_launch_with_a_container_is_a_compile_error(tmp_path):
    if shutil.which("g++") is None:
        pytest.skip("no g++")
    src = tmp_path / "bad.cpp"
    src.write_text('#include <vector>\n#include "tl/runtime.hpp"\n'
                   "void f(const tl::Kernel& k, std::vector<float>& v) { k.launch(v); }\n")
    r = subprocess.run(["g++", *STRICT, f"-I{INCLUDE}", "-fsyntax-only", str(src)], capture_output=True, text=True)
    assert r.returncode != 0
    assert "tl::Kernel::launch: pass a tl::TensorView for a tensor, an arithmetic value for a scalar" in r.stderr
