"""Kernel choice by dispatch data (issue 14 item 4): tlc build records per bundle what the
wrappers choose kernels by (tlc/backends/cpu/dispatch.py ``dispatch_facts``, the manifest's
``"dispatch"``), tl.ops reads it (tl/ops/_dispatch.py) instead of testing variant names, and a
package without the field keeps the variant-name rule."""
from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

import tl
import tl.ops as ops
from tl import _runtime
from tl.ops import _dispatch
from tlc.package import pack
from tlc.backends.cpu.dispatch import dispatch_facts
from tlc.backends.cpu.targets import TARGETS

from ops_helpers import record_launches

VARIANTS = {v.name: v for t in (TARGETS.values() if isinstance(TARGETS, dict) else TARGETS) for v in t.variants}
SRC = """import tl

@tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 64),))
def twice(x: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 1)):
    i = tl.program_id(0) * 64
    tl.store(out + (i,), tl.load(x + (i,), (64,)) * 2.0)
"""


@pytest.mark.parametrize("variant,facts", [
    ("x86_64-avx512bf16", (True, True)), ("x86_64-avx512", (True, True)), ("x86_64-avx2", (True, False)),
    ("x86_64-baseline", (False, False)), ("aarch64-neon", (False, False)), ("riscv64-rvv", (False, False)),
    ("riscv64-baseline", (False, False))])
def test_dispatch_facts_per_variant(variant, facts):
    assert dispatch_facts(VARIANTS[variant]) == dict(zip(("gemv_streams_b", "tall_matmul_tiles"), facts))


def test_the_variant_name_fallback_agrees_with_the_facts():
    """Packages built before the field get the answers a new build records."""
    for name, v in VARIANTS.items():
        assert _dispatch._by_variant_name(name) == dispatch_facts(v), name


@pytest.fixture(scope="module")
def small_pkg(tmp_path_factory):
    src = tmp_path_factory.mktemp("dispatch") / "twice.py"
    src.write_text(SRC)
    out = tmp_path_factory.mktemp("dispatch_pkg") / "twice.tlpkg"
    pack.build_package([str(src)], "host", str(out), jobs=2, progress=False)
    return out


def test_build_records_dispatch_per_bundle_and_the_package_still_runs(small_pkg):
    with zipfile.ZipFile(small_pkg) as z:
        manifest = json.loads(z.read("manifest.json"))
    assert manifest["bundles"]
    for b in manifest["bundles"]:
        assert b["dispatch"] == dispatch_facts(VARIANTS[b["variant"]])
    pkg = tl.load(str(small_pkg))                # the runtime ignores the field
    x = np.arange(100, dtype=np.float32)
    out = np.empty_like(x)
    pkg.twice(x, out)
    np.testing.assert_array_equal(out, 2 * x)
    chosen = next(b for b in manifest["bundles"] if b["variant"] == pkg.target)
    assert _dispatch.facts_of(pkg) == chosen["dispatch"]


class _Fake:
    """A package as _dispatch sees one: a path and the chosen bundle's variant."""

    def __init__(self, path, target):
        self.path, self.target = str(path), target


def _manifest_pkg(tmp_path, bundle):
    path = tmp_path / "fake.tlpkg"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("manifest.json", json.dumps({"bundles": [bundle]}))
    return path


def test_the_manifest_decides_not_the_variant_name(tmp_path):
    path = _manifest_pkg(tmp_path, {"variant": "x86_64-avx512", "dispatch": {"gemv_streams_b": False}})
    assert _dispatch.facts_of(_Fake(path, "x86_64-avx512")) == {"gemv_streams_b": False, "tall_matmul_tiles": False}
    path = _manifest_pkg(tmp_path, {"variant": "npu-x", "dispatch": {"gemv_streams_b": True, "tall_matmul_tiles": True}})
    assert _dispatch.facts_of(_Fake(path, "npu-x")) == {"gemv_streams_b": True, "tall_matmul_tiles": True}


def test_a_package_without_the_field_falls_back_to_the_variant_name(tmp_path):
    path = _manifest_pkg(tmp_path, {"variant": "x86_64-avx2"})
    assert _dispatch.facts_of(_Fake(path, "x86_64-avx2")) == {"gemv_streams_b": True, "tall_matmul_tiles": False}
    assert _dispatch.facts_of(_Fake(tmp_path / "bundle.so", "x86_64-avx512")) == _dispatch._by_variant_name("x86_64-avx512")


def test_stand_ins_without_a_bundle_answer_false():
    class Interp:
        pass
    assert _dispatch.facts_of(Interp()) == {"gemv_streams_b": False, "tall_matmul_tiles": False}


@pytest.mark.parametrize("streams", [True, False])
def test_matmul_follows_the_facts(monkeypatch, streams):
    """One-row products with B past the L2 cache: matmul_gemv when the bundle streams B, else
    matmul_rows; the result is the product either way."""
    monkeypatch.setattr(_dispatch, "facts", lambda: {"gemv_streams_b": streams, "tall_matmul_tiles": False})
    monkeypatch.setattr(_runtime, "num_threads", lambda: 1)      # one program of 4096 columns is enough
    launched = record_launches(monkeypatch)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, 512)).astype(np.float32)
    b = rng.standard_normal((512, 4096)).astype(np.float32)
    got = ops.matmul(a, b)
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)
    assert launched == (["matmul_gemv__BN_4096"] if streams else ["matmul_rows__BM_1__DT_float32"])
