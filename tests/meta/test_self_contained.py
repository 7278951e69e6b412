"""The repository reads and tests whole on its own: no tracked file points outside it (to a shared
design-notes folder or its files), every ``docs/<page>.md#anchor`` citation names an anchor that
exists, semantics cases are cited through docs/semantics.md, and the case table
(tests/data/semantics_cases.json) agrees with docs/semantics.md and names tests that exist."""
import ast
import json
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# built from pieces so that this file does not match itself
OUTSIDE = [re.compile(p) for p in (re.escape("/work/" + "shared"), r"\.\./" + "shared\\b",
                                   r"\bSEMANTICS" + r"\s+C-\d")]
NOTE_NAMES = [n + ".md" for n in ("ARCHITECTURE", "TESTING", "STYLE", "BENCHMARKING", "SEMANTICS_CASES")]
BARE_CASE = re.compile(r"(?<![#\w])C-\d\d\b")
CASE_HOMES = {"docs/semantics.md", "tests/data/semantics_cases.json"}
CITATION = re.compile(r"\bdocs/([\w-]+\.md)#([\w-]+)")
DOC_LINK = re.compile(r"\]\(([\w-]+\.md)#([\w-]+)\)")
SKIP_DIRS = {".git", ".venv", "build", "__pycache__", ".pytest_cache", "node_modules"}


def tracked_files():
    """Paths (relative to the repository root) of the tracked files, or of every file outside
    build/venv/cache folders when this is not a git checkout."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not files:
        for d, dirs, names in os.walk(ROOT):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.endswith(".egg-info")]
            files += [os.path.relpath(os.path.join(d, n), ROOT) for n in names]
    return sorted(f for f in files if os.path.isfile(os.path.join(ROOT, f)))


def texts():
    """(path, text) of every tracked text file."""
    for f in tracked_files():
        with open(os.path.join(ROOT, f), "rb") as fh:
            data = fh.read()
        if b"\0" in data[:8192]:
            continue
        try:
            yield f, data.decode("utf-8")
        except UnicodeDecodeError:
            continue


def anchors(md_path):
    """Explicit ``<a id=...>`` anchors and GitHub heading slugs of a Markdown file."""
    text = open(md_path, encoding="utf-8").read()
    ids = set(re.findall(r'<a\s+(?:id|name)="([^"]+)"', text))
    for h in re.findall(r"^#+\s+(.+?)\s*$", text, re.M):
        ids.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", h.lower())))
    return ids


def where(text, pos):
    return text.count("\n", 0, pos) + 1


def test_no_reference_outside_the_repository():
    bad = []
    for f, text in texts():
        for pat in OUTSIDE:
            bad += [f"{f}:{where(text, m.start())}: {m.group(0)!r}" for m in pat.finditer(text)]
        for name in NOTE_NAMES:
            bad += [f"{f}:{where(text, m.start())}: {name}" for m in re.finditer(re.escape(name), text)]
    assert not bad, "references to files outside the repository:\n" + "\n".join(bad)


def test_cases_are_cited_through_docs_semantics():
    bad = []
    for f, text in texts():
        if f not in CASE_HOMES:
            bad += [f"{f}:{where(text, m.start())}: {m.group(0)} (write docs/semantics.md#{m.group(0).lower()})"
                    for m in BARE_CASE.finditer(text)]
    assert not bad, "\n".join(bad)


def test_doc_anchors_exist():
    seen, bad = 0, []
    cache = {}
    for f, text in texts():
        links = [(m, os.path.join("docs", m.group(1))) for m in CITATION.finditer(text)]
        if f.startswith("docs/") and f.endswith(".md"):
            links += [(m, os.path.join("docs", m.group(1))) for m in DOC_LINK.finditer(text)]
        for m, page in links:
            seen += 1
            path = os.path.join(ROOT, page)
            if page not in cache:
                cache[page] = anchors(path) if os.path.exists(path) else None
            if cache[page] is None or m.group(2) not in cache[page]:
                bad.append(f"{f}:{where(text, m.start())}: {page}#{m.group(2)}")
    assert seen > 20, seen     # the docstrings do cite the cases
    assert not bad, "citations of missing pages or anchors:\n" + "\n".join(bad)


def test_case_table_matches_docs_and_names_real_tests():
    cases = json.load(open(os.path.join(ROOT, "tests", "data", "semantics_cases.json")))["cases"]
    ids = [c["id"] for c in cases]
    assert ids == [f"C-{i:02d}" for i in range(1, len(ids) + 1)], ids
    doc_ids = {a for a in anchors(os.path.join(ROOT, "docs", "semantics.md")) if re.fullmatch(r"c-\d\d", a)}
    assert doc_ids == {i.lower() for i in ids}
    missing = []
    for c in cases:
        assert c["title"] and c["expected"] and c["tests"], c["id"]
        for t in c["tests"]:
            path, func = t.split("::")
            full = os.path.join(ROOT, path)
            defs = set()
            if os.path.exists(full):
                defs = {n.name for n in ast.parse(open(full).read()).body if isinstance(n, ast.FunctionDef)}
            if func not in defs:
                missing.append(f"{c['id']}: {t}")
    assert not missing, "tests named in semantics_cases.json that do not exist:\n" + "\n".join(missing)


@pytest.mark.parametrize("bad, pattern", [("see /work/" + "shared/x", 0), ("../" + "shared/a", 1),
                                          ("SEMANTICS" + " C" + "-10", 2)])
def test_patterns_catch_what_they_are_for(bad, pattern):
    assert OUTSIDE[pattern].search(bad)
    assert BARE_CASE.search("(C" + "-12)") and not BARE_CASE.search("docs/semantics.md#c-12")
