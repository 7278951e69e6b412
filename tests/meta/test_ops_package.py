"""tl.ops is a package driven by one op table (issue 14 item 4): every public op is a visible
``@public_op`` def with its docstring, ``__all__`` is the table's names, no op is created through
``globals()``, and the flat tl/_ops_*.py modules are gone."""
from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

import tl.ops as T
from tl.ops._catalog import OPS, OPS_LIST
from tl.ops._registry import names_in

ROOT = Path(__file__).resolve().parents[2]
OPS_DIR = ROOT / "tl" / "ops"
API = ["package", "package_path", "use_package", "bfloat16"]
# tl.ops.__all__ before the package (the 25 names it listed): still there
BEFORE = ["add", "sub", "mul", "div", "relu", "gelu", "silu", "sigmoid", "exp", "tanh", "cast", "sum", "max",
          "argmax", "softmax", "log_softmax", "layer_norm", "rms_norm", "transpose", "matmul", "linear",
          "package", "package_path", "use_package", "bfloat16"]
OP_MODULES = sorted(p.stem for p in OPS_DIR.glob("*.py") if not p.stem.startswith("_"))


def _sources():
    return {p.stem: ast.parse(p.read_text(encoding="utf-8"), str(p)) for p in sorted(OPS_DIR.glob("*.py"))}


def test_all_is_the_op_table():
    assert T.__all__ == [o.name for o in OPS_LIST] + API
    assert len(set(T.__all__)) == len(T.__all__)
    assert set(BEFORE) <= set(T.__all__)


def test_the_flat_modules_are_gone():
    assert not (ROOT / "tl" / "ops.py").exists()
    assert sorted(p.name for p in (ROOT / "tl").glob("_ops_*.py")) == []
    assert not (ROOT / "tl" / "_opmath.py").exists() and not (ROOT / "tl" / "ops_docs.py").exists()


@pytest.mark.parametrize("name", [o.name for o in OPS_LIST])
def test_every_op_is_a_visible_def_with_its_docstring(name):
    fn = getattr(T, name)
    assert inspect.isfunction(fn) and fn is OPS[name].function
    raw = inspect.unwrap(fn)
    assert raw.__code__.co_name == name and raw.__qualname__ == name, "made by a factory, not a def"
    assert (fn.__doc__ or "").strip(), "no docstring"
    mod = importlib.import_module(fn.__module__)
    assert mod.__name__.startswith("tl.ops.") and name in mod.__all__
    assert Path(mod.__file__).parent == OPS_DIR


def test_each_def_is_decorated_in_its_module_source():
    decorated = {}
    for stem, tree in _sources().items():
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Name) and d.id == "public_op" for d in node.decorator_list):
                assert node.name not in decorated, f"{node.name} in {decorated.get(node.name)} and {stem}"
                assert ast.get_docstring(node), f"{stem}.{node.name} has no docstring"
                decorated[node.name] = stem
    assert sorted(decorated) == sorted(OPS)
    assert {n: f"tl.ops.{m}" for n, m in decorated.items()} == {n: OPS[n].function.__module__ for n in OPS}


def test_no_op_is_made_through_globals():
    for stem, tree in _sources().items():
        calls = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id in ("globals", "setattr", "exec")]
        assert calls == [] or stem == "_interp", f"tl/ops/{stem}.py calls globals()/setattr/exec at lines {calls}"


@pytest.mark.parametrize("stem", OP_MODULES)
def test_module_all_is_its_registered_ops(stem):
    mod = importlib.import_module(f"tl.ops.{stem}")
    assert list(mod.__all__) == names_in(mod.__name__)


def test_out_of_place_ops_and_only_they_are_wrapped():
    for o in OPS_LIST:
        has_out = "out" in inspect.signature(inspect.unwrap(o.function)).parameters
        assert getattr(o.function, "_tl_alias_safe", False) == (o.out_of_place and has_out), o.name
    assert not hasattr(T.add, "__wrapped__") and T.softmax._tl_alias_safe


def test_signature_of_the_table_is_the_functions():
    assert OPS["softmax"].signature == f"softmax{inspect.signature(T.softmax)}"
    assert list(inspect.signature(T.softmax).parameters) == ["x", "axis", "out"]


def test_plain_onnx_entries_name_one_node_and_take_its_inputs():
    """tools/tl_onnx_map.py maps these by the table alone: the node type must be unique and the
    op must take the node's inputs as its leading positional parameters."""
    for o in OPS_LIST:
        if o.onnx_inputs:
            assert o.onnx.isidentifier() and [p.onnx for p in OPS_LIST].count(o.onnx) == 1, o.name
            params = list(inspect.signature(o.function).parameters.values())[:o.onnx_inputs]
            assert all(p.default is p.empty for p in params) and len(params) == o.onnx_inputs, o.name
