"""docs/language.md and tl/language.py against the compiler: the parser accepts exactly the
documented builtins (one stub each, with a docstring and the implementation's signature), the
reference has a heading per builtin, every ```python example in it compiles (blocks whose first
line is ``# fragment: not compiled`` are skipped, visibly), and the layer-norm and embedding
examples run and match float64 NumPy, and so does the softmax port."""
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import tl
from tl import language as L
from tlc import driver
from tlc.parse import builtins as B
from tlc.parse import parse_source
from tlc.backends.cpu.targets import X86_64

DOC = Path(__file__).resolve().parents[2] / "docs" / "language.md"
TEXT = DOC.read_text(encoding="utf-8")
FRAGMENT = "# fragment: not compiled"
BLOCKS = re.findall(r"^```python\n(.*?)^```", TEXT, re.M | re.S)
EXAMPLES = [b for b in BLOCKS if not b.startswith(FRAGMENT)]
HEADINGS = set(re.findall(r"^### (\S+)", TEXT, re.M))


def _drop_first(sig: inspect.Signature) -> inspect.Signature:
    return sig.replace(parameters=list(sig.parameters.values())[1:])


def test_parser_tables_are_keyed_off_tl_language():
    assert list(B.BUILTINS) == list(L.BUILTINS)
    assert list(B.METHODS) == list(L.TILE_METHODS)
    assert B.SPECIAL == L.SPECIAL
    assert len(L.BUILTINS) >= 37 and len(L.TILE_METHODS) >= 9


@pytest.mark.parametrize("name", sorted(L.BUILTINS))
def test_builtin_stub_matches_its_implementation(name):
    obj = getattr(tl, name)
    assert obj is L.BUILTINS[name]
    assert L.kernel_signature(name) == _drop_first(inspect.signature(B.BUILTINS[name]))
    doc = inspect.getdoc(obj)
    assert doc and f"tl.{name}(" in doc, doc


@pytest.mark.parametrize("name", sorted(L.TILE_METHODS))
def test_tile_method_stub_matches_its_implementation(name):
    stub = getattr(tl.Tile, name)
    impl = inspect.signature(B.METHODS[name])           # (fv, tile, ...) vs the stub's (self, ...)
    assert _drop_first(inspect.signature(stub)) == _drop_first(_drop_first(impl))
    assert f"x.{name}(" in inspect.getdoc(stub)


@pytest.mark.parametrize("name", sorted(set(L.BUILTINS) - {"load", "cdiv"}))
def test_builtins_raise_a_clear_error_from_python(name):
    with pytest.raises(TypeError, match=rf"^tl\.{name} is a TL builtin and works only inside a "
                                        rf"@tl\.kernel or @tl\.func body"):
        getattr(tl, name)(1, 2)


def test_python_forms_still_work(tmp_path):
    assert tl.cdiv(7, 2) == 4 and tl.cdiv(-7, 2) == -3 and tl.cdiv(8, 2) == 4
    with pytest.raises(TypeError, match="only valid inside a @tl.kernel"):
        tl.load(object())
    with pytest.raises(FileNotFoundError):
        tl.load(str(tmp_path / "missing.tlpkg"))
    with pytest.raises(TypeError, match="tl.static_range is a TL builtin"):
        tl.static_range(4)
    with pytest.raises(TypeError, match="Python never creates one"):
        tl.Tile()
    for name in L.SPECIAL:
        assert inspect.getdoc(getattr(tl, name)), name
    assert "dot" in (inspect.getdoc(tl.language) or "")


def test_a_builtin_on_one_side_only_is_refused():
    with pytest.raises(ImportError, match=r"without a documented stub: \['extra'\]"):
        B.keyed({**B._IMPLS, "extra": B.where}, L.BUILTINS, "tl.<builtin>")
    impls = dict(B._IMPLS)
    del impls["dot"]
    with pytest.raises(ImportError, match=r"without an implementation here: \['dot'\]"):
        B.keyed(impls, L.BUILTINS, "tl.<builtin>")


def test_every_builtin_has_a_heading_and_every_heading_is_a_builtin():
    names = ({f"tl.{n}" for n in L.BUILTINS} | {f"tl.{n}" for n in L.SPECIAL}
             | {f".{m}()" for m in L.TILE_METHODS})
    assert sorted(names - HEADINGS) == []
    stale = {h for h in HEADINGS if h.startswith(("tl.", ".")) and h not in names}
    assert sorted(stale) == []


def test_examples_exist_and_fragments_are_marked():
    assert len(EXAMPLES) >= 10, len(EXAMPLES)
    for b in BLOCKS:
        assert b.startswith(("import tl\n", FRAGMENT)), b.splitlines()[0]


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_compiles(index, tmp_path):
    src = tmp_path / f"example_{index}.py"
    src.write_text(EXAMPLES[index])
    variant = next(v for v in X86_64.variants if v.name == "x86_64-avx512")
    unit = driver.compile_unit(str(src), variant)      # parse, every pass, C emission
    assert unit.kernels and "tl_bundle_query" in unit.c_source


def test_instance_names_are_as_documented():
    block = next(b for b in EXAMPLES if "# instances:" in b)
    listed = block.split("# instances:")[1].strip().split(", ")
    assert sorted(k.name for k in parse_source(block, "unary.py").kernels) == sorted(listed)


@pytest.fixture(scope="module")
def doc_pkg(tmp_path_factory):
    from fe_helpers import build_source
    ln = next(b for b in EXAMPLES if "def ln_safe" in b)
    rest = [next(b for b in EXAMPLES if f"def {k}(" in b).replace("import tl\n", "")
            for k in ("embedding", "softmax")]
    return build_source(tmp_path_factory, "language_doc", "\n".join([ln] + rest))[1]


@pytest.mark.parametrize("kernel", ["ln_masked__BLOCK_64", "ln_masked__BLOCK_8192", "ln_safe__BLOCK_64",
                                    "ln_safe__BLOCK_256", "ln_safe__BLOCK_8192"])
@pytest.mark.parametrize("n", [1000, 64, 1])
def test_layer_norm_examples_match_numpy(doc_pkg, kernel, n):
    rng = np.random.default_rng(n)
    x = (rng.standard_normal((5, n)) * 3 + 1).astype(np.float32)
    w, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    y = np.full_like(x, np.nan)
    doc_pkg[kernel](x, w, b, y, 1e-5)
    x64 = x.astype(np.float64)
    ref = (x64 - x64.mean(1, keepdims=True)) / np.sqrt(x64.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(y, ref, rtol=0, atol=2e-5 * (1 + np.abs(ref).max()))


def test_embedding_example_matches_numpy(doc_pkg):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((10, 300)).astype(np.float32)
    idx = np.array([3, 0, 9, 3, 12, -1], np.int64)        # 12 and -1 are outside w: rows of 0
    out = np.full((6, 300), np.nan, np.float32)
    doc_pkg.embedding(idx, w, out)
    want = np.zeros((6, 300), np.float32)
    want[:4] = w[idx[:4]]
    np.testing.assert_array_equal(out, want)


def test_instance_name_of_dtypes_and_negative_floats():
    src = ("import tl\n\n@tl.kernel(specializations=[dict(DT=tl.float16, ALPHA=-0.5)])\n"
           "def k(x: tl.tensor(DT, 1), ALPHA: tl.constexpr = 1.0, DT: tl.constexpr = tl.float32):\n"
           "    tl.store(x + (0,), tl.load(x + (0,), (8,)) * ALPHA)\n")
    assert [k.name for k in parse_source(src, "k.py").kernels] == ["k__ALPHA_m0p5__DT_float16"]
    assert "`dict(DT=tl.float16, ALPHA=-0.5)` -> `k__ALPHA_m0p5__DT_float16`" in TEXT


@pytest.mark.parametrize("n", [1000, 256, 1])
def test_softmax_port_matches_numpy(doc_pkg, n):
    x = (np.random.default_rng(n).standard_normal((3, n)) * 4).astype(np.float32)
    out = np.full_like(x, np.nan)
    doc_pkg.softmax(x, out)
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(1, keepdims=True), rtol=1e-5, atol=1e-7)
