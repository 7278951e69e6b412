"""The backend seam: the registry, a target's pipeline, and a package built by a test-only backend
(tests/package/toy_backend: one folder plus a registry entry)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

import toy_backend
from tlc import backends, driver
from tlc.backends.cpu.backend import CpuBackend
from tlc.backends.cpu.targets import TARGETS, Variant
from tlc.lower.passes import COMMON_PIPELINE
from tlc.package.format import read_package
from tlc.package.pack import build_package

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def toy():
    b = toy_backend.register()
    yield b
    toy_backend.unregister()


def test_registry_has_the_cpu_backend_and_its_targets():
    assert backends.BACKENDS["cpu"] == "tlc.backends.cpu.backend:CpuBackend"
    cpu = backends.get("cpu")
    assert isinstance(cpu, CpuBackend) and backends.backend_for(None) is cpu
    assert set(TARGETS) <= set(backends.all_targets())
    for name, t in TARGETS.items():
        assert backends.all_targets()[name] == t.variants
        assert backends.backend_for(name) is cpu and backends.backend_for(t.variants[0]) is cpu
    assert [v.name for v in backends.resolve("x86_64,x86_64-avx2")] == [v.name for v in TARGETS["x86_64"].variants]
    with pytest.raises(ValueError, match="unknown target 'nope'; known targets: host, x86_64"):
        backends.resolve("nope")
    with pytest.raises(KeyError, match="unknown backend"):
        backends.get("nope")


def test_pipeline_is_common_then_the_backends_passes(toy):
    v = TARGETS["x86_64"].variants[1]
    assert [p.name for p in backends.pipeline(v)] == [p.name for p in COMMON_PIPELINE] + ["vectorize", "lower_dot"]
    assert backends.pipeline(toy.targets["toy"][0]) == list(COMMON_PIPELINE)
    assert {"vectorize", "lower_dot"} <= set(backends.registry())
    assert not {"vectorize", "lower_dot"} & {p.name for p in COMMON_PIPELINE}
    assert [p.name for p in backends.pipeline_through("bounds", v)][-1] == "bounds"
    with pytest.raises(KeyError, match="unknown pass"):
        backends.pipeline_through("nope", v)


def test_variants_are_frozen_and_hashable_options():
    v = TARGETS["x86_64"].variants[0]
    assert isinstance(v, Variant) and hash(v) == hash(Variant(**{f: getattr(v, f) for f in v.__slots__}))
    with pytest.raises(AttributeError):
        v.lanes = 4  # type: ignore[misc]


def test_toy_backend_builds_a_package(toy, tmp_path, cache_dir):
    src = tmp_path / "k.py"
    src.write_text("import tl\n\n\n@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[0], 8),))\n"
                   "def copy(x: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 1), B: tl.constexpr = 8):\n"
                   "    i = tl.program_id(0) * B\n"
                   "    tl.store(out + (i,), tl.load(x + (i,), (B,)))\n")
    out = tmp_path / "toy.tlpkg"
    manifest = build_package([str(src)], "toy", out, jobs=1, progress=False)
    (b,) = manifest["bundles"]
    assert b["path"] == "bundles/toy-text.txt" and b["device"] == "toy" and b["format"] == "toy-text"
    assert b["arch"] == "toy" and b["priority"] == 1
    assert [k["name"] for k in manifest["kernels"]] == ["copy"]
    m, payloads = read_package(out)
    text = payloads["bundles/toy-text.txt"].decode()
    assert text.startswith("== k (1 kernels)\n// toy bundle of k.py for toy-text")
    assert "kernel @copy" in text and "vectorize" not in text and "lanes=" not in text
    # the second build comes from the cache, payload format included
    assert build_package([str(src)], "toy", tmp_path / "toy2.tlpkg", jobs=1, progress=False)["bundles"] == manifest["bundles"]


def test_emit_goes_through_the_backend(toy, tmp_path):
    src = tmp_path / "k.py"
    src.write_text("import tl\n\n\n@tl.kernel\ndef z(out: tl.tensor(tl.float32, 1)):\n"
                   "    tl.store(out + (0,), tl.zeros((4,), tl.float32))\n")
    res = driver.compile_unit(str(src), toy.targets["toy"][0], display_file="k.py")
    assert res.c_source.startswith("// toy bundle of k.py for toy-text")
    cpu = driver.compile_unit(str(src), TARGETS["x86_64"].variants[-1], display_file="k.py")
    assert "tl_bundle_query" in cpu.c_source


def _instances(path: Path) -> dict[str, list[dict]]:
    """kernel base name -> the constexpr values of its defaults and of each specialization."""
    tree = ast.parse(path.read_text())
    out = {}
    for f in tree.body:
        if not isinstance(f, ast.FunctionDef):
            continue
        args = f.args.args[len(f.args.args) - len(f.args.defaults):]
        defaults = {a.arg: ast.unparse(d) for a, d in zip(args, f.args.defaults)}
        specs = [defaults]
        for d in f.decorator_list:
            for kw in getattr(d, "keywords", []):
                if kw.arg == "specializations":
                    val = kw.value
                    items = val.elts if isinstance(val, ast.List) else []
                    for it in items:
                        specs.append({**defaults, **{k.arg: ast.unparse(k.value) for k in it.keywords}})
                    if isinstance(val, ast.Call):       # dict(A=[...], B=[...]): every combination
                        import itertools
                        axes = [(k.arg, [ast.unparse(e) for e in k.value.elts]) for k in val.keywords]
                        for combo in itertools.product(*[vs for _, vs in axes]):
                            specs.append({**defaults, **dict(zip([a for a, _ in axes], combo))})
        out[f.name] = specs
    return out


def test_cpu_tuning_names_real_kernels_and_values():
    table = backends.get("cpu").tuning(TARGETS["x86_64"].variants[0])
    assert table
    for key, values in table.items():
        file, kernel = key.split("::")
        assert file.startswith("ops/") and (ROOT / file).is_file(), key
        specs = _instances(ROOT / file).get(kernel)
        assert specs, f"{key}: no kernel {kernel} in {file}"
        want = {k: repr(v) for k, v in values.items()}
        assert any(all(s.get(k) == v for k, v in want.items()) for s in specs), f"{key}: {values} not compiled"
