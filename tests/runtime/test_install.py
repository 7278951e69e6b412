"""`make install` of libtl_runtime: installs into temporary prefixes (lib/, a multiarch
lib/x86_64-linux-gnu, and a prefix moved after installing), then links C and C++17 programs through
pkg-config (shared, --static, tl_runtime-static) and CMake's find_package (tl_runtime::tl_runtime
and tl_runtime::tl_runtime_static, with a real DLPack 1.x header), runs them on the fixture package,
and checks that the shared library exports only tl_* symbols. The top-level `make install` runs
with no Python on PATH."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rt_helpers import REPO

PROGRAMS = Path(__file__).with_name("programs")
MULTIARCH = "lib/x86_64-linux-gnu"


@pytest.fixture(scope="module")
def rtbuild(tmp_path_factory):
    return tmp_path_factory.mktemp("rtbuild")


def _install(build, prefix, *extra):
    r = subprocess.run(["make", "-s", "-C", str(REPO / "libtl_runtime"), "install", f"BUILD={build}",
                        f"PREFIX={prefix}", *extra], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return prefix


@pytest.fixture(scope="module")
def layouts(rtbuild, tmp_path_factory):
    """name -> (prefix, libdir relative to it): the default lib/, a multiarch LIBDIR, and a prefix
    installed under one name and then moved to another."""
    base = tmp_path_factory.mktemp("prefixes")
    out = {"lib": (_install(rtbuild, base / "plain"), "lib")}
    ma = base / "multiarch"
    out["multiarch"] = (_install(rtbuild, ma, f"LIBDIR={ma}/{MULTIARCH}"), MULTIARCH)
    orig = _install(rtbuild, base / "before-move", f"LIBDIR={base}/before-move/{MULTIARCH}")
    moved = base / "after-move"
    orig.rename(moved)
    out["moved"] = (moved, MULTIARCH)
    return out


LAYOUTS = ["lib", "multiarch", "moved"]


def _pkgconfig(prefix, libdir, *args):
    env = dict(os.environ, PKG_CONFIG_PATH=str(prefix / libdir / "pkgconfig"))
    out = subprocess.run(["pkg-config", *args], check=True, capture_output=True, text=True, env=env)
    return out.stdout.split()


def _needed(exe) -> list[str]:
    out = subprocess.run(["readelf", "-d", str(exe)], check=True, capture_output=True, text=True).stdout
    return [ln.split("[")[1].rstrip("]") for ln in out.splitlines() if "(NEEDED)" in ln]


def _run(exe, package_path, **env) -> str:
    r = subprocess.run([str(exe), str(package_path)], capture_output=True, text=True, env=dict(os.environ, **env))
    assert r.returncode == 0, (exe, r.returncode, r.stdout, r.stderr)
    return r.stdout


def _dlpack_1x_include() -> Path | None:
    """The include dir of the upstream DLPack 1.x dlpack.h that apache-tvm-ffi's wheel ships (test extra)."""
    spec = importlib.util.find_spec("tvm_ffi")
    if spec is None or not spec.submodule_search_locations:
        return None
    inc = Path(list(spec.submodule_search_locations)[0]) / "include"
    return inc if (inc / "dlpack" / "dlpack.h").is_file() else None


def _cc(lang):
    cc = "gcc" if lang == "c" else "g++"
    if shutil.which(cc) is None:
        pytest.skip(f"no {cc}")
    return cc, ("-std=c11" if lang == "c" else "-std=c++17")


@pytest.mark.parametrize("layout", LAYOUTS)
def test_layout(layouts, layout):
    prefix, libdir = layouts[layout]
    for rel in (f"{libdir}/libtl_runtime.so", f"{libdir}/libtl_runtime.a", "include/tl/runtime.h",
                "include/tl/bundle_abi.h", "include/tl/dlpack_compat.h", "include/tl/runtime.hpp",
                f"{libdir}/pkgconfig/tl_runtime.pc",
                f"{libdir}/pkgconfig/tl_runtime-static.pc", f"{libdir}/cmake/tl_runtime/tl_runtime-config.cmake",
                f"{libdir}/cmake/tl_runtime/tl_runtime-config-version.cmake"):
        assert (prefix / rel).is_file(), rel
    # nothing in the generated files names the prefix: all of it is relative to the file itself
    for f in (prefix / libdir / "pkgconfig").iterdir():
        assert str(prefix) not in f.read_text() and "${pcfiledir}/" in f.read_text(), f
    cfg = (prefix / libdir / "cmake/tl_runtime/tl_runtime-config.cmake").read_text()
    assert "${CMAKE_CURRENT_LIST_DIR}/" in cfg and "/tmp" not in cfg and "@" not in cfg
    flags = _pkgconfig(prefix, libdir, "--cflags", "--libs", "tl_runtime")
    inc = [f[2:] for f in flags if f.startswith("-I")]
    libs = [f[2:] for f in flags if f.startswith("-L")]
    assert len(inc) == 1 and Path(inc[0]).resolve() == (prefix / "include").resolve(), flags
    assert len(libs) == 1 and Path(libs[0]).resolve() == (prefix / libdir).resolve(), flags
    out = subprocess.run(["nm", "-D", "--defined-only", str(prefix / libdir / "libtl_runtime.so")], check=True,
                         capture_output=True, text=True).stdout
    names = [ln.split()[-1] for ln in out.splitlines() if ln.strip()]
    assert names and all(n.startswith("tl_") for n in names), names
    out = subprocess.run(["nm", "-g", "--defined-only", str(prefix / libdir / "libtl_runtime.a")], check=True,
                         capture_output=True, text=True).stdout
    syms = [ln.split()[-1] for ln in out.splitlines() if len(ln.split()) == 3]
    assert all(s.startswith(("tl_", "tl__")) for s in syms), [s for s in syms if not s.startswith("tl_")]


def test_relative_paths_must_be_absolute(rtbuild, tmp_path):
    r = subprocess.run(["make", "-s", "-C", str(REPO / "libtl_runtime"), "install", f"BUILD={rtbuild}",
                        "PREFIX=relative/prefix"], capture_output=True, text=True)
    assert r.returncode != 0 and "must be absolute paths" in r.stderr, r.stderr


@pytest.mark.parametrize("lang", ["c", "c++"])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_pkgconfig_link(layouts, layout, tmp_path, package_path, lang):
    prefix, libdir = layouts[layout]
    cc, std = _cc(lang)
    src = tmp_path / ("p.c" if lang == "c" else "p.cpp")
    src.write_text((PROGRAMS / "link_check.c").read_text())
    exe = tmp_path / "p"
    subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", str(src), "-o", str(exe),
                    *_pkgconfig(prefix, libdir, "--cflags", "--libs", "tl_runtime")], check=True)
    out = _run(exe, package_path, LD_LIBRARY_PATH=str(prefix / libdir))
    assert out.startswith("version 0.1.0 kernels 8 target x86_64-fixture"), out
    assert "libtl_runtime.so" in _needed(exe)
    # libtl_runtime.a with the shared system libraries it needs: no libtl_runtime.so at run time
    exe_s = tmp_path / "ps"
    subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", str(src), "-o", str(exe_s),
                    *_pkgconfig(prefix, libdir, "--cflags", "--libs", "tl_runtime-static")], check=True)
    assert "libtl_runtime.so" not in _needed(exe_s) and "libarchive.so.13" in _needed(exe_s)
    assert "kernels 8" in _run(exe_s, package_path)


@pytest.mark.parametrize("lang", ["c", "c++"])
def test_pkgconfig_static_flag_links(layouts, tmp_path, package_path, lang):
    """pkg-config --static --libs tl_runtime links on Debian (libarchive's private dependencies are not
    pulled in); with the .so removed from a copy of the prefix the archive is what gets linked."""
    prefix, libdir = layouts["multiarch"]
    cc, std = _cc(lang)
    src = tmp_path / ("p.c" if lang == "c" else "p.cpp")
    src.write_text((PROGRAMS / "link_check.c").read_text())
    flags = _pkgconfig(prefix, libdir, "--static", "--cflags", "--libs", "tl_runtime")
    assert "-larchive" in flags and "-lnettle" not in flags and "-lxml2" not in flags, flags
    exe = tmp_path / "p"
    subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", str(src), "-o", str(exe), *flags], check=True)
    assert "kernels 8" in _run(exe, package_path, LD_LIBRARY_PATH=str(prefix / libdir))
    only_a = tmp_path / "only-a"
    shutil.copytree(prefix, only_a, symlinks=True)
    (only_a / libdir / "libtl_runtime.so").unlink()
    exe_s = tmp_path / "ps"
    subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", str(src), "-o", str(exe_s),
                    *_pkgconfig(only_a, libdir, "--static", "--cflags", "--libs", "tl_runtime")], check=True)
    assert "libtl_runtime.so" not in _needed(exe_s)
    assert "kernels 8" in _run(exe_s, package_path)


@pytest.mark.parametrize("link", ["tl_runtime", "tl_runtime-static"])
def test_pkgconfig_cxx17_with_dlpack_1x(layouts, tmp_path, package_path, link):
    """A C++17 host that includes upstream DLPack 1.x first drives a kernel through
    tl_value_from_dlpack, linked shared and static through pkg-config."""
    inc = _dlpack_1x_include()
    if inc is None:
        pytest.skip("apache-tvm-ffi (test extra, its upstream dlpack.h) is not installed")
    prefix, libdir = layouts["moved"]
    cc, std = _cc("c++")
    src = tmp_path / "dlpack_use.cpp"
    src.write_text((PROGRAMS / "dlpack_use.c").read_text())
    exe = tmp_path / "d"
    subprocess.run([cc, std, "-Wall", "-Wextra", "-Werror", "-DTL_DLPACK_HEADER=1", f"-I{inc}", str(src), "-o",
                    str(exe), *_pkgconfig(prefix, libdir, "--cflags", "--libs", link)], check=True)
    out = _run(exe, package_path, LD_LIBRARY_PATH=str(prefix / libdir))
    assert "FAIL" not in out and "ok launch a+b" in out and "dlpack 1." in out and "dlpack 1.1" not in out, out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_cmake_find_package(layouts, layout, tmp_path, package_path):
    if shutil.which("cmake") is None or shutil.which("g++") is None:
        pytest.skip("no cmake or g++")
    prefix, libdir = layouts[layout]
    inc = _dlpack_1x_include()
    b = tmp_path / "b"
    cfg = ["cmake", "-S", str(PROGRAMS), "-B", str(b), f"-DCMAKE_PREFIX_PATH={prefix}"]
    if inc is not None:
        cfg.append(f"-DTL_DLPACK_INCLUDE={inc}")
    r = subprocess.run(cfg, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["cmake", "--build", str(b), "-j2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    for exe in ("check_c", "check_cxx_static"):
        out = _run(b / exe, package_path)
        assert "kernels 8 target x86_64-fixture" in out, (exe, out)
    assert "libtl_runtime.so" in _needed(b / "check_c") and "libtl_runtime.so" not in _needed(b / "check_cxx_static")
    if inc is None:
        pytest.skip("apache-tvm-ffi (test extra, its upstream dlpack.h) is not installed: no DLPack 1.x consumer")
    for exe in ("dlpack_cxx_shared", "dlpack_cxx_static"):
        out = _run(b / exe, package_path)
        assert "FAIL" not in out and "ok launch a+b" in out and "dlpack 1." in out, (exe, out)
    assert "libtl_runtime.so" not in _needed(b / "dlpack_cxx_static")


def test_cmake_reports_an_incomplete_install(layouts, tmp_path):
    if shutil.which("cmake") is None:
        pytest.skip("no cmake")
    prefix, libdir = layouts["lib"]
    broken = tmp_path / "broken"
    shutil.copytree(prefix, broken, symlinks=True)
    shutil.rmtree(broken / "include")
    r = subprocess.run(["cmake", "-S", str(PROGRAMS), "-B", str(tmp_path / "b"), f"-DCMAKE_PREFIX_PATH={broken}"],
                       capture_output=True, text=True)
    said = " ".join((r.stdout + r.stderr).split())   # cmake wraps long messages
    assert r.returncode != 0 and "include/tl/runtime.h is missing" in said, said


def _path_without_python(tmp_path) -> tuple[str, Path]:
    """A PATH of links to every program in /usr/bin, /usr/sbin, /bin, /sbin but python*, plus
    python/python3 stand-ins that leave a mark when run."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    mark = tmp_path / "python-was-run"
    for d in ("/usr/bin", "/usr/sbin", "/bin", "/sbin"):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            if name.startswith("python") or (bindir / name).exists():
                continue
            os.symlink(os.path.join(d, name), bindir / name)
    for name in ("python", "python3"):
        stub = bindir / name
        stub.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {mark}\nexit 127\n")
        stub.chmod(0o755)
    return str(bindir), mark


def test_make_install_needs_no_python(tmp_path, package_path):
    path, mark = _path_without_python(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "MAKE"))}
    env["PATH"] = path
    assert subprocess.run(["sh", "-c", "command -v python3"], env=env, capture_output=True,
                          text=True).stdout.strip() == f"{path}/python3"
    prefix = tmp_path / "prefix"
    r = subprocess.run(["make", "-C", str(REPO), "install", f"PREFIX={prefix}", f"LIBDIR={prefix}/{MULTIARCH}"],
                       env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not mark.exists(), mark.read_text()
    assert "apt-get" not in r.stdout    # everything present: nothing installed
    src = tmp_path / "p.cpp"
    src.write_text((PROGRAMS / "link_check.c").read_text())
    subprocess.run(["g++", "-std=c++17", str(src), "-o", str(tmp_path / "p"),
                    *_pkgconfig(prefix, MULTIARCH, "--cflags", "--libs", "tl_runtime-static")], check=True)
    assert "kernels 8" in _run(tmp_path / "p", package_path)


def test_c_deps_checks_each_requirement(tmp_path):
    """tools/c_deps.sh: each command and pkg-config module on its own, nothing else named."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for name in ("sh", "grep", "id", "make", "install"):
        os.symlink(shutil.which(name), bindir / name)
    (bindir / "pkg-config").write_text('#!/bin/sh\n[ "$2" = jansson ]\n')   # only jansson is there
    (bindir / "pkg-config").chmod(0o755)
    env = {"PATH": str(bindir)}
    r = subprocess.run(["sh", str(REPO / "tools/c_deps.sh"), "--print-missing"], env=env, capture_output=True,
                       text=True)
    assert (r.returncode, r.stdout.split()) == (0, ["gcc", "binutils", "libarchive-dev", "libssl-dev"]), r
    os.symlink(shutil.which("cc"), bindir / "cc")
    os.symlink(shutil.which("ar"), bindir / "ar")
    (bindir / "pkg-config").write_text("#!/bin/sh\nexit 0\n")
    r = subprocess.run(["sh", str(REPO / "tools/c_deps.sh")], env=env, capture_output=True, text=True)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), r
