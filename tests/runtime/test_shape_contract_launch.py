"""The runtime's launch check of a kernel's shape contract (``tl.tensor(DT, ("R", "N"))``): a TL
kernel compiled into a package refuses mismatched extents on the Python call paths (fastcall and
ctypes) and from C with the same exact message, the descriptor carries the dims table, and a
bundle whose descriptors have the layout from before the contract fields were appended still
loads and runs (no contract)."""
import ctypes
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tl._runtime as R
from rt_helpers import INCLUDE, SANITIZE, _ensure_runtime, build_bundle, bundle_entry, load_ctypes, manifest_for

PROGRAMS = Path(__file__).with_name("programs")

SRC = '''import tl


@tl.kernel(grid=lambda x, out, w: (x.shape[0],))
def rowsum(x: tl.tensor(tl.float32, ("R", "N")), out: tl.tensor(tl.float32, ("R",)),
           w: tl.tensor(tl.float32, ("N", 3))):
    """out[r] = sum of x[r, :4]; w is only shape-checked."""
    r = tl.program_id(0)
    tl.store(out + (r,), tl.sum(tl.load(x + (r, 0), (1, 4)), axis=1))
'''

MISMATCH = [
    ((4, 8), (5,), (8, 3), "kernel rowsum: argument 'out' axis 0 (R) is 5 but argument 'x' axis 0 (R) is 4"),
    ((4, 8), (4,), (7, 3), "kernel rowsum: argument 'w' axis 0 (N) is 7 but argument 'x' axis 1 (N) is 8"),
    ((4, 8), (4,), (8, 2), "kernel rowsum: argument 'w' axis 1 is 2 but the kernel's signature fixes it to 3"),
    ((0, 8), (1,), (8, 3), "kernel rowsum: argument 'out' axis 0 (R) is 1 but argument 'x' axis 0 (R) is 0"),
]


@pytest.fixture(scope="module")
def contract_pkg(tmp_path_factory) -> Path:
    from tlc.package import pack
    d = tmp_path_factory.mktemp("contract")
    (d / "rowsum.py").write_text(SRC)
    out = d / "rowsum.tlpkg"
    pack.build_package([str(d / "rowsum.py")], "host", str(out), jobs=1, progress=False)
    return out


@pytest.fixture(scope="module", params=["default", "ctypes"])
def kernel(request, contract_pkg):
    p = R.load(contract_pkg) if request.param == "default" else load_ctypes(contract_pkg)
    yield p.rowsum
    p.close()


def test_matching_shapes_run(kernel):
    x = np.arange(32, dtype=np.float32).reshape(4, 8)
    out = np.zeros(4, np.float32)
    kernel(x, out, np.zeros((8, 3), np.float32))
    np.testing.assert_array_equal(out, x[:, :4].sum(axis=1))
    w = np.broadcast_to(np.float32(1), (8, 3))            # stride-0 views: only extents count
    kernel(x, out, w)


@pytest.mark.parametrize("xs,os_,ws,msg", MISMATCH)
def test_mismatch_is_refused_with_both_arguments_named(kernel, xs, os_, ws, msg):
    out = np.full(os_, 7.0, np.float32)
    with pytest.raises(R.TLError) as e:
        kernel(np.ones(xs, np.float32), out, np.ones(ws, np.float32))
    assert str(e.value) == msg and e.value.status_name == "TL_ERROR_INVALID_ARGUMENT"
    assert (out == 7.0).all()                               # refused before the kernel ran


def test_manifest_records_the_dims(contract_pkg):
    from tlc.package.format import read_package
    params = read_package(contract_pkg)[0]["kernels"][0]["params"]
    assert [p.get("dims") for p in params] == [["R", "N"], ["R"], ["N", 3]]


@pytest.fixture(scope="module")
def contract_exe(tmp_path_factory):
    lib = Path(_ensure_runtime())
    exe = tmp_path_factory.mktemp("contract_c") / "contract_use"
    # under make test-sanitize the runtime is the ASan build: the driver is built with ASan too
    san = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"] if SANITIZE else []
    subprocess.run(["gcc", *san, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                    str(PROGRAMS / "contract_use.c"), "-o", str(exe), f"-L{lib.parent}",
                    f"-Wl,-rpath,{lib.parent}", "-ltl_runtime"], check=True)
    return exe


def _c_run(exe, pkg, *dims) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}   # linked with ASan itself when sanitizing
    env["ASAN_OPTIONS"] = "detect_leaks=0"
    r = subprocess.run([str(exe), str(pkg), *map(str, dims)], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_c_caller_sees_the_descriptor_and_the_refusal(contract_exe, contract_pkg):
    fixed3 = -2 - 3
    lines = _c_run(contract_exe, contract_pkg, 4, 8, 4, 8, 3)
    assert lines == [f"dims=0,1,0,1,{fixed3} names=R,N", "status=0 message= out0=4"]
    for xs, os_, ws, msg in MISMATCH:
        lines = _c_run(contract_exe, contract_pkg, *xs, *os_, *ws)
        assert lines[1] == f"status=1 message={msg} out0=0", lines      # 1: TL_ERROR_INVALID_ARGUMENT


@pytest.fixture(scope="module")
def old_desc_pkg(tmp_path_factory) -> Path:
    from tlc.package.format import write_package
    d = tmp_path_factory.mktemp("olddesc")
    so = build_bundle(d / "old.so", {"FIXTURE_OLD_DESC": 1})
    path = d / "old.tlpkg"
    write_package(path, manifest_for([bundle_entry("base")]),
                  {"bundles/base.so": so.read_bytes(), "include/fixture.h": b"/* fixture */\n"})
    return path


def test_old_size_descriptors_still_load_and_run(old_desc_pkg):
    lib = ctypes.CDLL(str(old_desc_pkg.parent / "old.so"))
    lib.tl_bundle_query.restype = ctypes.POINTER(R.tl_bundle_t)
    env = R.tl_host_env_t(ctypes.sizeof(R.tl_host_env_t), 1, None)
    b = lib.tl_bundle_query(1, ctypes.byref(env)).contents
    assert b.kernel_desc_size == R.tl_kernel_desc_t.dims.offset < ctypes.sizeof(R.tl_kernel_desc_t)
    p = R.load(old_desc_pkg)
    try:
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        out = np.zeros_like(a)
        p.add(a, a, out)                                    # kernel 1: read at the old stride
        np.testing.assert_array_equal(out, 2 * a)
        y = np.ones(5, np.float32)
        p.axpy(np.arange(5, dtype=np.float32), y, 2.0)
        np.testing.assert_array_equal(y, 1 + 2 * np.arange(5, dtype=np.float32))
        assert list(p.kernels) == ["axpy", "add", "add_nogrid", "rowsum", "fill_i32", "copy_bf16",
                                                 "fail", "count"]
    finally:
        p.close()


def test_bad_dims_table_is_a_bad_package(tmp_path):
    from tlc.package.format import write_package
    so = build_bundle(tmp_path / "bad.so", {"FIXTURE_BAD_DIMS": 1})
    path = tmp_path / "bad.tlpkg"
    write_package(path, manifest_for([bundle_entry("base")]),
                  {"bundles/base.so": so.read_bytes(), "include/fixture.h": b"/* fixture */\n"})
    with pytest.raises(R.TLError, match=r"kernel 'fail' has an invalid shape contract \(dims, dim_names\)") as e:
        R.load(path)
    assert e.value.status_name == "TL_ERROR_BAD_PACKAGE"
