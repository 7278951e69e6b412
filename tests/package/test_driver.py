"""tlc.driver glue: parse -> passes -> emit (emitter stubbed), kernel_info for the manifest."""
import pytest

from pkg_helpers import ADD_SRC
from stub_emit import stub_bundle
from tlc import driver
from tlc.errors import TLCompileError
from tlc.backends.cpu.targets import X86_64

SPEC_SRC = '''import tl


@tl.kernel(grid=lambda x, out: (x.shape[0],), specializations=[dict(DT=tl.float16), dict(DT=tl.float32)])
def scale(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2), s: tl.float32, DT: tl.constexpr = tl.float32,
          BLOCK: tl.constexpr = 128):
    row = tl.program_id(0)
    t = tl.load(x + (row, 0), (1, BLOCK))
    tl.store(out + (row, 0), t * s)
'''


@pytest.fixture
def stub_emit(monkeypatch):
    monkeypatch.setattr(driver, "emit", lambda m, v, display_file=None: stub_bundle([k.name for k in m.kernels], v,
                                                                              display_file or m.source_file))


def test_compile_unit_real_frontend_and_passes(tmp_path, stub_emit):
    f = tmp_path / "add.py"
    f.write_text(ADD_SRC.format(name="add"))
    res = driver.compile_unit(str(f), X86_64.variants[0], display_file="ops/add.py")
    assert "tl__entry_add" in res.c_source and "fused" in res.ir_text
    (k,) = res.kernels
    assert k["name"] == "add" and k["source"] in ("ops/add.py:4", "ops/add.py:5") and k["has_grid"] is True
    assert k["constexprs"] == {"BM": 4, "BN": 256}
    assert [(p["name"], p["kind"], p["dtype"], p["rank"]) for p in k["params"]] == [
        ("x", "tensor", "float32", 2), ("y", "tensor", "float32", 2), ("out", "tensor", "float32", 2)]
    assert [p["access"] for p in k["params"]] == ["read", "read", "write"]


def test_specializations_and_kernel_filter(tmp_path, stub_emit):
    f = tmp_path / "scale.py"
    f.write_text(SPEC_SRC)
    res = driver.compile_unit(str(f), X86_64.variants[1])
    assert [k["name"] for k in res.kernels] == ["scale__DT_float16", "scale__DT_float32"]
    assert res.kernels[0]["constexprs"]["DT"] == "float16"
    assert res.kernels[0]["params"][2] == {"name": "s", "kind": "scalar", "dtype": "float32", "rank": 0,
                                           "access": "none"}
    one = driver.compile_unit(str(f), X86_64.variants[1], kernels=["scale__DT_float32"])
    assert [k["name"] for k in one.kernels] == ["scale__DT_float32"]
    with pytest.raises(TLCompileError, match="no kernel named nope"):
        driver.compile_unit(str(f), X86_64.variants[1], kernels=["nope"])


def test_compile_kernels_per_variant(tmp_path, stub_emit):
    f = tmp_path / "add.py"
    f.write_text(ADD_SRC.format(name="add"))
    out = driver.compile_kernels(str(f), X86_64.variants)
    assert list(out) == [v.name for v in X86_64.variants]
    assert all(f'"{name}"' in c for name, c in out.items())


def test_source_error_is_located(tmp_path, stub_emit):
    f = tmp_path / "bad.py"
    f.write_text("import tl\n\n\n@tl.kernel\ndef k(x: tl.tensor):\n    while True:\n        pass\n")
    with pytest.raises(TLCompileError) as e:
        driver.compile_unit(str(f), X86_64.variants[0])
    assert f"{f}:" in str(e.value)
