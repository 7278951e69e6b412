"""The import graph of tl/ and tlc/ (issue 14: no import cycle among their modules).

Every ``import`` and ``from ... import`` of every module counts, those inside function bodies
too (a cycle hidden in a function body still makes a module half-built when it runs). An edge
goes to the module named, or to ``pkg.name`` when ``from pkg import name`` names a submodule;
the implicit import of a package's ``__init__`` by its submodules is not an edge. Neither tl/ (tl.ops
included) nor tlc/ may have a cycle (issue 14's target).
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("tl", "tlc")


def modules() -> dict[str, Path]:
    """module name -> file, for every .py under tl/ and tlc/."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[".".join(parts)] = path
    return out


def extensions() -> set[str]:
    """Compiled extension modules (tl/_fastcall.c): imported, but not Python sources."""
    return {".".join(p.relative_to(ROOT).with_suffix("").parts) for pkg in PACKAGES
            for p in (ROOT / pkg).rglob("*.c") if (p.parent / "__init__.py").exists()}


def _package_of(name: str, path: Path) -> str:
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def edges(mods: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the tl/tlc modules it imports (anywhere in its body)."""
    graph = {m: set() for m in mods}
    ext = extensions()
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = _package_of(name, path).split(".")
                    pkg = pkg[:len(pkg) - (node.level - 1)]
                    base = ".".join(pkg + ([base] if base else []))
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    if sub not in ext:
                        targets.append(sub if sub in mods else base)
            for t in (t for t in targets if t not in ext):
                while t and t not in mods:          # import a.b.c of a module a.b's attribute
                    t = t.rpartition(".")[0]
                if t and t != name:
                    graph[name].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, ...]]:
    """The strongly connected components with more than one module (Tarjan), sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(tuple(sorted(comp)))

    import sys
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10000))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


@pytest.fixture(scope="module")
def graph():
    return edges(modules())


def test_the_walk_sees_the_ops_package(graph):
    assert "tl.ops._core" in graph["tl.ops.elementwise"]
    assert "tl.ops.linalg" in graph["tl.ops.nn"]
    assert "tlc.specs" in graph["tl.ops._interp"] and "tlc.specs" in graph["tlc.parse.kernels"]


def test_no_cycle_among_tl_modules(graph):
    found = [c for c in cycles(graph) if any(m == "tl" or m.startswith("tl.") for m in c)]
    assert found == [], f"import cycles among tl/ modules: {found}"


def test_tl_ops_modules_import_one_way(graph):
    """No module of tl.ops imports the package itself (``tl.ops``) back, nor tl's __init__."""
    back = {m: sorted(graph[m] & {"tl.ops", "tl"}) for m in graph if m.startswith("tl.ops.")}
    assert {m: b for m, b in back.items() if b} == {}


def test_no_cycle_among_tlc_modules(graph):
    assert [c for c in cycles(graph) if all(m.startswith("tlc") for m in c)] == []
