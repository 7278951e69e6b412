"""The project's own modules are imported plainly: no test skips when one fails to import
(``pytest.importorskip`` of tl/tlc, ``try: import tl... except ImportError``), and no module of
tl/, tlc/ or tools/ stubs another one out on ImportError. Third-party imports (torch, onnx,
ml_dtypes) and the optional compiled extension tl/_fastcall may still be optional."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the project's packages and the tests' own helper modules
OWN = ("tl", "tlc", "builders", "harness", "pkg_helpers", "stub_emit", "kernels_basic", "golden_cases",
       "ops_helpers", "rt_helpers")
IMPORTORSKIP = re.compile(r"importorskip\(\s*['\"](" + "|".join(OWN) + r")\b")
OPTIONAL = {"tl._fastcall"}      # the optional C extension (setup.py builds it with optional=True)


def _own(name: str) -> bool:
    return name.split(".")[0] in OWN and name not in OPTIONAL


def guarded_own_imports(source: str) -> list[int]:
    """Line numbers of ``try:`` blocks that import an own module and catch ImportError (or
    ModuleNotFoundError, or everything)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Try):
            continue
        caught = set()
        for h in node.handlers:
            types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
            caught |= {getattr(t, "id", None) for t in types} if h.type is not None else {"ImportError"}
        if not caught & {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}:
            continue
        names = []
        for stmt in node.body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.Import):
                    names += [a.name for a in n.names]
                elif isinstance(n, ast.ImportFrom) and n.level == 0 and n.module:
                    names += [n.module] + [f"{n.module}.{a.name}" for a in n.names]
        if any(_own(n) for n in names) and not any(n in OPTIONAL for n in names):
            lines.append(node.lineno)
    return lines


def _py(*dirs):
    for d in dirs:
        yield from sorted(p for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)


def test_tests_import_the_project_plainly():
    bad = []
    for p in _py("tests"):
        text = p.read_text()
        bad += [f"{p.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)!r}"
                for m in IMPORTORSKIP.finditer(text)]
        bad += [f"{p.relative_to(ROOT)}:{n}: try/except ImportError" for n in guarded_own_imports(text)]
    assert not bad, "tests that skip or stub when the project's own modules fail to import:\n" + "\n".join(bad)


def test_modules_do_not_stub_each_other():
    bad = [f"{p.relative_to(ROOT)}:{n}" for p in _py("tl", "tlc", "tools") for n in guarded_own_imports(p.read_text())]
    assert not bad, "own modules imported under try/except ImportError:\n" + "\n".join(bad)


def test_the_checks_see_what_they_forbid():
    assert IMPORTORSKIP.search('x = pytest.importorskip(' '"tlc.lower.pass_manager")')
    assert not IMPORTORSKIP.search('torch = pytest.importorskip("torch")')
    assert guarded_own_imports("try:\n    from tlc.errors import E\nexcept ImportError:\n    pass\n") == [1]
    assert guarded_own_imports("def f():\n    try:\n        x = 1\n        import tl.ops\n"
                               "    except (ValueError, ModuleNotFoundError):\n        pass\n") == [2]
    assert guarded_own_imports("try:\n    import ml_dtypes\nexcept ImportError:\n    pass\n") == []
    assert guarded_own_imports("try:\n    from tl import _fastcall\nexcept ImportError:\n    pass\n") == []
    assert guarded_own_imports("try:\n    import tl\nexcept KeyError:\n    pass\n") == []
