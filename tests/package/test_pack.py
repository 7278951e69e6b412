"""build_package with the stub compiler: discovery, one bundle per variant holding every kernel,
cache hits without recompiling, per-file rebuilds, depfile, errors."""
import ctypes
import io
import time
import zipfile

import pytest

from host_cpu import runs_here
from tlc.errors import PackageError, TLCompileError
from tlc.package import pack
from tlc.package.format import read_package

HOST = ["x86_64-avx512bf16", "x86_64-avx512", "x86_64-avx2", "x86_64-baseline"]


def test_discover_skips_private_and_non_kernel_files(kernel_dir):
    units = pack.discover([kernel_dir])
    assert [u.display for u in units] == ["ops/add.py", "ops/more.py"]
    assert [u.name for u in units] == ["ops_add", "ops_more"]
    with pytest.raises(PackageError, match="no such file"):
        pack.discover([kernel_dir / "nope.py"])
    (kernel_dir.parent / "empty").mkdir()
    with pytest.raises(PackageError, match="no TL source files"):
        pack.discover([kernel_dir.parent / "empty"])


def test_build_package_has_all_kernels_in_every_bundle(kernel_dir, tmp_path, stub_driver):
    out = tmp_path / "ops.tlpkg"
    stats = {}
    m = pack.build_package([kernel_dir], "host", out, jobs=2, progress=False, stats=stats)
    assert [k["name"] for k in m["kernels"]] == ["add", "add2", "add3"]
    assert [b["variant"] for b in m["bundles"]] == HOST
    assert stats["objects_built"] == 2 * len(HOST)          # (compiled in worker processes)
    manifest, payloads = read_package(out)
    assert manifest == m
    assert "include/ops.h" in payloads and "src/x86_64-avx2/ops_more.c" in payloads
    assert "ir/x86_64-baseline/ops_add.ir" in payloads
    so = tmp_path / "b.so"
    so.write_bytes(payloads["bundles/x86_64-baseline.so"])
    q = ctypes.CDLL(str(so)).tl_bundle_query
    q.restype = ctypes.c_void_p
    p = q(1, None)
    assert (ctypes.c_uint32 * 6).from_address(p)[5] == 3


def test_no_change_rebuild_is_cache_only_and_fast(kernel_dir, tmp_path, stub_driver):
    out = tmp_path / "ops.tlpkg"
    pack.build_package([kernel_dir], "host", out, jobs=1, progress=False)
    first = out.read_bytes()
    stub_driver.clear()
    t0, stats = time.perf_counter(), {}
    pack.build_package([kernel_dir], "host", out, jobs=1, progress=False, stats=stats)
    assert time.perf_counter() - t0 < 2.0
    assert stats["objects_built"] == 0 and stub_driver == []
    assert out.read_bytes() == first                 # byte-identical package


def test_editing_one_file_rebuilds_only_its_objects(kernel_dir, tmp_path, stub_driver):
    out = tmp_path / "ops.tlpkg"
    pack.build_package([kernel_dir], "host", out, jobs=1, progress=False)
    stub_driver.clear()
    (kernel_dir / "add.py").write_text((kernel_dir / "add.py").read_text() + "\n# edited\n")
    pack.build_package([kernel_dir], "host", out, jobs=1, progress=False)
    assert sorted(stub_driver) == sorted(("add.py", v) for v in HOST)


def test_bf16_variant_reuses_avx512_objects_without_bf16_dots(kernel_dir, tmp_path, cache_dir):
    """Units whose C does not call the bf16 microkernel link the x86_64-avx512 object into the
    x86_64-avx512bf16 bundle (Variant.reuse): no second object, no second C in src/."""
    from tlc.backends import resolve
    bf16, avx512 = resolve("x86_64-avx512bf16,x86_64-avx512")
    assert not pack.uses_own_code(bf16, "static void f(void) { tl_gemm_avx512_m8v3k4(); }")
    assert pack.uses_own_code(bf16, "tl_gemm_avx512bf16_m12v2k64_256_128_512_acc_t0(pa, pk, c, c);")
    assert not pack.uses_own_code(avx512, "tl_gemm_avx512bf16_m12v2k64(pa, pk, c, c);")
    out = tmp_path / "r.tlpkg"
    stats = {}
    pack.build_package([kernel_dir], "x86_64-avx512bf16,x86_64-avx512", out, jobs=1, progress=False, stats=stats)
    m, payloads = read_package(out)
    assert [b["variant"] for b in m["bundles"]] == ["x86_64-avx512bf16", "x86_64-avx512"]
    assert "src/x86_64-avx512/ops_add.c" in payloads and "src/x86_64-avx512bf16/ops_add.c" not in payloads
    objs = sorted(p.name for p in (cache_dir / "v1" / "objects").rglob("*.o"))
    assert objs == ["ops_add.o", "ops_more.o"]          # the x86_64-avx512 ones only
    assert stats["objects_built"] == 4                  # 2 units x 2 variants went through the frontend
    import tl
    if runs_here(avx512):
        assert tl.load(str(out)).add is not None
    else:                               # an AVX2-only host: both bundles refused, by name
        with pytest.raises(tl.TLError, match="no bundle for this machine.*x86_64-avx512bf16, x86_64-avx512"):
            tl.load(str(out))


def test_no_cache_leaves_cache_empty(kernel_dir, tmp_path, stub_driver, cache_dir):
    pack.build_package([kernel_dir], "x86_64-baseline", tmp_path / "a.tlpkg", progress=False, use_cache=False)
    assert not cache_dir.exists()
    m, _ = read_package(tmp_path / "a.tlpkg")
    assert [b["variant"] for b in m["bundles"]] == ["x86_64-baseline"]


def test_depfile(kernel_dir, tmp_path, stub_driver):
    out, dep = tmp_path / "ops.tlpkg", tmp_path / "ops.d"
    pack.build_package([kernel_dir], "x86_64-baseline", out, progress=False, depfile=dep)
    text = dep.read_text()
    assert text.startswith(f"{out}: ") and str(kernel_dir / "add.py") in text and str(kernel_dir / "more.py") in text
    assert f"\n{kernel_dir / 'add.py'}:\n" in text and "_private" not in text


def test_keep_sources_false(kernel_dir, tmp_path, stub_driver):
    pack.build_package([kernel_dir], "x86_64-baseline", tmp_path / "a.tlpkg", progress=False, keep_sources=False)
    names = zipfile.ZipFile(tmp_path / "a.tlpkg").namelist()
    assert not any(n.startswith(("src/", "ir/")) for n in names) and "include/a.h" in names


def test_duplicate_kernel_names_are_an_error(kernel_dir, tmp_path, stub_driver):
    (kernel_dir / "zz.py").write_text((kernel_dir / "add.py").read_text())
    with pytest.raises(PackageError, match="'add' is defined in both ops/add.py and ops/zz.py"):
        pack.build_package([kernel_dir], "x86_64-baseline", tmp_path / "a.tlpkg", progress=False)


def test_bad_target(kernel_dir, tmp_path, stub_driver):
    with pytest.raises(PackageError, match="unknown target 'armv1'"):
        pack.build_package([kernel_dir], "armv1", tmp_path / "a.tlpkg", progress=False)


@pytest.mark.parametrize("jobs", [1, 2])
def test_compile_errors_propagate_without_caching(kernel_dir, tmp_path, monkeypatch, cache_dir, jobs):
    from tlc import driver

    def boom(path, variant, *a, **k):
        raise TLCompileError("add.py:3:5: error: nope")
    monkeypatch.setattr(driver, "compile_unit", boom)
    with pytest.raises(TLCompileError, match="nope"):
        pack.build_package([kernel_dir], "host", tmp_path / "a.tlpkg", jobs=jobs, progress=False)
    assert not list(cache_dir.rglob("meta.json"))


def test_progress_bar_renders(kernel_dir, tmp_path, stub_driver, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    pack.build_package([kernel_dir], "host", tmp_path / "a.tlpkg", jobs=1, progress=True)
    assert "compiling" in err.getvalue()
