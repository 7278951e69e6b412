"""`tlc inspect` also opens the package with libtl_runtime (what tl.load does), so a package
with valid hashes but contents the runtime refuses is reported, not called verified; and
`tlc build -o` into a place that cannot be written is a one-line error naming the path."""
import copy
import json

import pytest
from click.testing import CliRunner

from tlc.cli import cli
from tlc.package.format import read_package, write_package

SRC = '''
import tl

@tl.kernel(grid=lambda x: (1,))
def bump(x: tl.tensor(tl.float32, 1)):
    tl.store(x + (0,), tl.load(x + (0,), (4,)) + 1.0)
'''


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    d = tmp_path_factory.mktemp("insp")
    (d / "bump.py").write_text(SRC)
    out = d / "bump.tlpkg"
    r = CliRunner().invoke(cli, ["build", str(d / "bump.py"), "-t", "x86_64-baseline", "-o", str(out), "-q"])
    assert r.exit_code == 0, r.output
    return out


def test_intact_package_passes_the_runtime_check(pkg):
    r = CliRunner().invoke(cli, ["inspect", str(pkg)])
    assert r.exit_code == 0, r.output
    assert "runtime check: ok (libtl_runtime loaded x86_64-baseline)" in r.output
    data = json.loads(CliRunner().invoke(cli, ["inspect", str(pkg), "--json"]).output)
    assert data["verified"] is True and data["runtime_check"].startswith("ok")


@pytest.mark.parametrize("how", ["rank", "libm"])
def test_rehashed_bad_package_is_refused(pkg, tmp_path, how):
    manifest, payloads = read_package(pkg)
    bad = copy.deepcopy(manifest)
    if how == "rank":          # the manifest's signature no longer matches the bundle's descriptor
        bad["kernels"][0]["params"][0]["rank"] = 2
    else:                      # a real shared object that is not a bundle
        import ctypes.util
        import os
        libm = ctypes.util.find_library("m")
        path = next(p for p in ("/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6")
                    if os.path.exists(p)) if libm else None
        if path is None:
            pytest.skip("no libm.so.6 found")
        payloads[bad["bundles"][0]["path"]] = open(path, "rb").read()
    for b in bad["bundles"]:
        b.pop("sha256", None)
        b.pop("size", None)
    out = tmp_path / "bad.tlpkg"
    write_package(out, bad, payloads)          # hashes and sizes recomputed: they verify
    r = CliRunner().invoke(cli, ["inspect", str(out)])
    assert r.exit_code == 1, r.output
    assert "hashes, sizes and versions verified" in r.output
    assert "libtl_runtime refuses this package" in r.output
    r = CliRunner().invoke(cli, ["inspect", str(out), "--json"])
    assert r.exit_code == 1


def test_unwritable_output_is_one_line_error(tmp_path):
    (tmp_path / "bump.py").write_text(SRC)
    r = CliRunner().invoke(cli, ["build", str(tmp_path / "bump.py"), "-t", "x86_64-baseline",
                                 "-o", "/proc/tl_no_such_dir/x.tlpkg"])
    assert r.exit_code == 1
    assert "cannot write the package there" in r.output and "Traceback" not in r.output
