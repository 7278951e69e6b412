"""Fixtures for the package tests: an isolated cache dir and a stub compiler (stub_driver) that
replaces parse/passes/emit, so tlc/package is tested without the rest of the pipeline."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from stub_emit import stub_bundle  # noqa: E402

from tlc import driver  # noqa: E402

ADD_SRC = '''import tl


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)))
def {name}(x: tl.tensor, y: tl.tensor, out: tl.tensor, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN))
    b = tl.load(y + (r, c), (BM, BN))
    tl.store(out + (r, c), a + b)
'''


def stub_compile_unit(path, variant, print_ir_after_all=False, kernels=None, display_file=None):
    """Kernel names from the file's @tl.kernel functions; each stub kernel computes out = x + y."""
    tree = ast.parse(Path(path).read_text())
    names = [f.name for f in tree.body if isinstance(f, ast.FunctionDef)
             and any("kernel" in ast.unparse(d) for d in f.decorator_list)]
    if kernels:
        names = [n for n in names if n in kernels]
    display = display_file or str(path)
    infos = [{"name": n, "base_name": n, "source": f"{display}:1", "has_grid": True, "constexprs": {},
              "params": [{"name": p, "kind": "tensor", "dtype": "float32", "rank": 2,
                          "access": "write" if p == "out" else "read"} for p in ("x", "y", "out")]}
             for n in names]
    return driver.UnitResult(stub_bundle(names, variant, display), f"// ir of {display} for {variant.name}\n", infos)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("TL_CACHE_DIR", str(d))
    return d


@pytest.fixture
def stub_driver(monkeypatch, cache_dir):
    """Replaces driver.compile_unit with the stub; counts calls in the returned list."""
    calls = []

    def fake(path, variant, *a, **k):
        calls.append((Path(path).name, variant.name))
        return stub_compile_unit(path, variant, *a, **k)
    monkeypatch.setattr(driver, "compile_unit", fake)
    return calls


@pytest.fixture
def kernel_dir(tmp_path):
    """A source dir with two kernel files, a private file and a non-kernel file."""
    d = tmp_path / "ops"
    d.mkdir()
    (d / "add.py").write_text(ADD_SRC.format(name="add"))
    (d / "more.py").write_text(ADD_SRC.format(name="add2") + "\n\n" + ADD_SRC.format(name="add3").split("\n", 2)[2])
    (d / "_private.py").write_text(ADD_SRC.format(name="hidden"))
    (d / "helpers.py").write_text("def f():\n    return 1\n")
    return d
