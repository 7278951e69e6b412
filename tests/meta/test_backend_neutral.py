"""The backend seam's rule: no file under tlc/lower/passes/ or ops/ names a backend, and imports
run one way (backends import tlc.lower and the emitters; tlc.lower and tlc.parse never import a
backend). Docstrings and comments may name targets (measurements, ulp bounds); code may not:
identifiers, attribute names and string literals are checked."""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BACKEND_WORDS = re.compile(r"(?i)(?<![a-z])(cpu|x86(_64)?|amd64|avx\w*|sse\d?\w*|neon|aarch64|arm64|rvv|riscv\w*|"
                           r"cuda|nvptx|ptx|sm_\d+|npu|ascend|ukernel\w*)(?![a-z])")


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                ids.add(id(body[0].value))
    return ids


def backend_names(text: str) -> list[tuple[int, str]]:
    """(line, word) for every identifier, attribute, keyword or non-docstring string literal of the
    Python source ``text`` that names a backend or a target."""
    tree = ast.parse(text)
    docs = _docstrings(tree)
    hits = []
    for node in ast.walk(tree):
        words = []
        if isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            words = [node.name]
        elif isinstance(node, ast.arg):
            words = [node.arg]
        elif isinstance(node, ast.keyword) and node.arg:
            words = [node.arg]
        elif isinstance(node, ast.alias):
            words = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            words = [node.module or ""]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            words = [node.value]
        for w in words:
            for m in BACKEND_WORDS.finditer(w):
                hits.append((getattr(node, "lineno", 0), m.group(0)))
    return hits


def _files(*dirs: str) -> list[Path]:
    return sorted(p for d in dirs for p in (ROOT / d).rglob("*.py") if "__pycache__" not in p.parts)


def test_the_check_finds_backend_names_in_code_not_in_docs():
    assert backend_names('"""AVX-512 measured."""\nx = 1  # on x86\n') == []
    assert backend_names("if v.isa == 'avx512':\n    pass\n") == [(1, "avx512")]
    assert sorted(w for _, w in backend_names("lanes = variant.ukernel\nfrom tlc.backends.cpu import build\n")) \
        == ["cpu", "ukernel"]
    assert [w for _, w in backend_names("def f(cuda_stream): pass\n")] == ["cuda"]


def test_no_pass_and_no_op_names_a_backend():
    bad = [f"{p.relative_to(ROOT)}:{line}: {word}" for p in _files("tlc/lower/passes", "ops")
           for line, word in backend_names(p.read_text())]
    assert not bad, "backend names in target-neutral code:\n" + "\n".join(bad)


def test_lower_and_parse_never_import_a_backend():
    bad = []
    for p in _files("tlc/lower", "tlc/parse"):
        for node in ast.walk(ast.parse(p.read_text())):
            mods = []
            if isinstance(node, ast.ImportFrom):
                mods = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            if any(m == "tlc.backends" or m.startswith("tlc.backends.") or m == "tlc.target" for m in mods):
                bad.append(f"{p.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "tlc.lower / tlc.parse import a backend:\n" + "\n".join(bad)


def test_a_backend_is_a_folder_and_a_registry_line():
    from tlc import backends
    for name, where in backends.BACKENDS.items():
        module = where.split(":")[0]
        assert module.startswith(f"tlc.backends.{name}."), where
        assert (ROOT / "tlc" / "backends" / name).is_dir()
