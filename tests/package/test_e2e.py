"""End to end: a package built for -t host (the x86-64 variants) loads in the runtime and adds.

With the stub emitter this checks packaging + runtime; with the real pipeline, the whole compiler."""
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tlc.cli import cli

REPO = Path(__file__).resolve().parents[2]
RUNTIME = REPO / "build" / "runtime" / "libtl_runtime.so"
needs_runtime = pytest.mark.skipif(not RUNTIME.exists(), reason="run `make -C libtl_runtime` first")


def _build_and_check(src_dir, out, names):
    import json
    r = CliRunner().invoke(cli, ["build", str(src_dir), "-t", "host", "-o", str(out), "-j", "2"])
    assert r.exit_code == 0, r.output
    data = json.loads(CliRunner().invoke(cli, ["inspect", str(out), "--json"]).output)
    assert [b["variant"] for b in data["bundles"]] == ["x86_64-avx512bf16", "x86_64-avx512", "x86_64-avx2",
                                                       "x86_64-baseline"]
    import tl
    pkg = tl.load(out)
    assert set(names) <= set(pkg.kernels)
    rng = np.random.default_rng(0)
    for shape in [(5, 300), (8, 256), (1, 1)]:
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.standard_normal(shape).astype(np.float32)
        for n in names:
            o = np.full(shape, np.nan, np.float32)
            pkg[n](x, y, o)
            np.testing.assert_array_equal(o, (x.astype(np.float64) + y).astype(np.float32))
    return pkg


@needs_runtime
def test_stub_package_runs_in_runtime(kernel_dir, tmp_path, stub_driver):
    _build_and_check(kernel_dir, tmp_path / "ops.tlpkg", ["add", "add2", "add3"])


@needs_runtime
def test_real_pipeline_add(tmp_path, cache_dir):
    from pkg_helpers import ADD_SRC
    d = tmp_path / "src"
    d.mkdir()
    (d / "add.py").write_text(ADD_SRC.format(name="add"))
    _build_and_check(d, tmp_path / "add.tlpkg", ["add"])
