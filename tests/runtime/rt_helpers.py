"""Fixtures of the runtime tests: the runtime library (built with make when missing), the
hand-written fixture bundle (built in a temporary directory) and packages made from it."""
from __future__ import annotations

import os
import platform
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INCLUDE = REPO / "libtl_runtime" / "include"
FIXTURE_C = Path(__file__).with_name("fixture_bundle.c")

KERNELS = [
    ("axpy", [("x", "tensor", "float32", 1, "read"), ("y", "tensor", "float32", 1, "readwrite"),
              ("alpha", "scalar", "float32", 0, "none")]),
    ("add", [("a", "tensor", "float32", 2, "read"), ("b", "tensor", "float32", 2, "read"),
             ("out", "tensor", "float32", 2, "write")]),
    ("add_nogrid", [("a", "tensor", "float32", 2, "read"), ("b", "tensor", "float32", 2, "read"),
                    ("out", "tensor", "float32", 2, "write")]),
    ("rowsum", [("x", "tensor", "float32", 2, "read"), ("out", "tensor", "float32", 1, "write")]),
    ("fill_i32", [("out", "tensor", "int32", 1, "write"), ("value", "scalar", "int32", 0, "none")]),
    ("copy_bf16", [("x", "tensor", "bfloat16", 1, "read"), ("y", "tensor", "bfloat16", 1, "write")]),
    ("fail", [("x", "tensor", "float32", 1, "read")]),
    ("count", [("out", "tensor", "int64", 1, "write")]),
]


# `make test-sanitize` runs pytest with the ASan runtime preloaded (TL_SANITIZE=1): keep it out of the
# compilers and tools the tests start.
SANITIZE = os.environ.get("TL_SANITIZE") == "1"
ASAN_PRELOAD = os.environ.pop("LD_PRELOAD", "") if SANITIZE else ""


def python_env(**extra) -> dict:
    """Environment for a Python subprocess that loads the runtime (with the ASan preload when sanitizing)."""
    env = dict(os.environ, PYTHONPATH=str(REPO), **extra)
    if ASAN_PRELOAD:
        env["LD_PRELOAD"] = ASAN_PRELOAD
    return env


def _ensure_runtime():
    lib = os.environ.get("TL_RUNTIME_LIB") or str(REPO / "build" / "runtime" / "libtl_runtime.so")
    if not os.path.exists(lib):
        subprocess.run(["make", "-C", str(REPO / "libtl_runtime")], check=True, capture_output=True)
    return lib


_ensure_runtime()


def build_bundle(out: Path, defines: dict | None = None, source: Path = FIXTURE_C) -> Path:
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    cmd = [cc, "-shared", "-fPIC", "-O2", "-nostdlib", "-ffreestanding", "-fno-tree-loop-distribute-patterns",
           "-fvisibility=hidden", f"-I{INCLUDE}"]
    for k, v in (defines or {}).items():
        cmd.append(f"-D{k}={v}")
    cmd += [str(source), "-o", str(out)]
    subprocess.run(cmd, check=True)
    return out


def manifest_for(bundles, kernels=KERNELS, **extra):
    m = {
        "format": "tlpkg", "format_version": [1, 0], "tlc_version": "0.1.0", "min_runtime_version": [0, 1, 0],
        "name": "fixture",
        "kernels": [{"name": n, "source": "fixture_bundle.c", "has_grid": True, "constexprs": {},
                     "params": [dict(zip(("name", "kind", "dtype", "rank", "access"), p)) for p in ps]}
                    for n, ps in kernels],
        "bundles": bundles,
        "files": [{"path": "include/fixture.h"}],
    }
    m.update(extra)
    return m


def bundle_entry(variant, features=(), priority=10, arch=None):
    return {"path": f"bundles/{variant}.so", "variant": variant, "arch": arch or platform.machine(),
            "features": list(features), "priority": priority}


@pytest.fixture(scope="session")
def fixture_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("fixture")


@pytest.fixture(scope="session")
def bundle_so(fixture_dir) -> Path:
    return build_bundle(fixture_dir / "fixture.so")


@pytest.fixture(scope="session")
def bundle_bytes(bundle_so) -> bytes:
    return bundle_so.read_bytes()


@pytest.fixture(scope="session")
def package_path(fixture_dir, bundle_bytes) -> Path:
    from tlc.package.format import write_package
    path = fixture_dir / "fixture.tlpkg"
    write_package(path, manifest_for([bundle_entry("base")]),
                  {"bundles/base.so": bundle_bytes, "include/fixture.h": b"/* fixture */\n"})
    return path


@pytest.fixture(scope="session")
def pkg(package_path):
    import tl._runtime as R
    p = R.load(package_path)
    yield p
    p.close()


def load_ctypes(path):
    """The package at ``path`` loaded on the ctypes call path (the tl._fastcall extension
    switched off for this load), checked to be on that path."""
    import tl._runtime as R
    saved, R._FAST = R._FAST, None
    try:
        p = R.load(path)
    finally:
        R._FAST = saved
    assert isinstance(p._life, R._Life)
    return p
