"""README.md's C and C++ blocks compile as written. Every ```c / ```cpp block is marked by the
HTML comment on the line before it, either

    <!-- compiled: c11 c++17; output: TEXT -->   a complete program: built with each standard
                                                (-Wall -Wextra -Werror -pedantic) against the build
                                                tree's runtime and run; TEXT is its whole stdout
    <!-- fragment -->                            a piece of code, not built

A program that opens build/my.tlpkg runs next to the package built from the README's
``# my_add.py`` block (tlc build -t host)."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
INCLUDE = REPO / "libtl_runtime" / "include"
LIBDIR = REPO / "build" / "runtime"
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)
MARK = re.compile(r"<!--\s*(compiled|fragment)\b:?\s*(.*?)\s*-->\s*$")
STRICT = ["-Wall", "-Wextra", "-Werror", "-pedantic"]


def blocks(text: str) -> list[dict]:
    """The ```c and ```cpp blocks of text: language, code, line, and the mark on the line before."""
    out = []
    for m in BLOCK.finditer(text):
        lang, code = m.group(1), m.group(2)
        if lang not in ("c", "cpp", "c++"):
            continue
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = MARK.search(before)
        entry = {"lang": lang, "code": code, "line": line, "kind": mark.group(1) if mark else None,
                 "stds": [], "output": None}
        if mark and mark.group(1) == "compiled":
            spec, _, output = mark.group(2).partition("; output:")
            entry["stds"] = spec.split()
            entry["output"] = output.strip() or None
        out.append(entry)
    return out


PROGRAMS = [b for b in blocks(README.read_text()) if b["kind"] == "compiled"]


def test_every_c_block_is_marked():
    found = blocks(README.read_text())
    unmarked = [b["line"] for b in found if b["kind"] is None]
    assert not unmarked, f"README.md lines {unmarked}: mark each C/C++ block <!-- compiled: ... --> or <!-- fragment -->"
    assert PROGRAMS, "README.md has no compiled C program"
    for b in PROGRAMS:
        assert b["stds"] and all(s in ("c11", "c17", "c++17", "c++20") for s in b["stds"]), b["stds"]
        assert b["lang"] == "c" or not any(s.startswith("c1") for s in b["stds"]), "a C++ block built as C"


def test_marks_are_read():
    text = ("<!-- compiled: c11 c++17; output: hi -->\n```c\nint main(void) { return 0; }\n```\n"
            "<!-- fragment -->\n```cpp\nx;\n```\n```c\ny;\n```\n```python\nz\n```\n")
    got = [(b["kind"], b["stds"], b["output"], b["line"]) for b in blocks(text)]
    assert got == [("compiled", ["c11", "c++17"], "hi", 2), ("fragment", [], None, 6), (None, [], None, 9)]


@pytest.fixture(scope="module")
def my_package(tmp_path_factory):
    """build/my.tlpkg from the README's my_add.py, in a directory of its own."""
    d = tmp_path_factory.mktemp("readme")
    m = re.search(r"^```python\n(# my_add\.py\n.*?)^```", README.read_text(), re.S | re.M)
    assert m, "README.md lost its # my_add.py block"
    (d / "my_add.py").write_text(m.group(1))
    r = subprocess.run([sys.executable, "-m", "tlc", "build", "my_add.py", "-t", "host", "-o", "build/my.tlpkg"],
                       cwd=d, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    return d


def _runtime():
    if not (LIBDIR / "libtl_runtime.so").exists():
        subprocess.run(["make", "-C", str(REPO / "libtl_runtime"), f"BUILD={LIBDIR}"], check=True, capture_output=True)


@pytest.mark.parametrize("prog,std", [(b, s) for b in PROGRAMS for s in b["stds"]],
                         ids=[f"line{b['line']}-{s}" for b in PROGRAMS for s in b["stds"]])
def test_program_builds_and_runs(prog, std, tmp_path, request):
    cxx = std.startswith("c++")
    cc = "g++" if cxx else "gcc"
    if shutil.which(cc) is None:
        pytest.skip(f"no {cc}")
    _runtime()
    src = tmp_path / ("app.cpp" if cxx else "app.c")
    src.write_text(prog["code"])
    exe = tmp_path / "app"
    r = subprocess.run([cc, f"-std={std}", *STRICT, f"-I{INCLUDE}", str(src), "-o", str(exe), f"-L{LIBDIR}",
                        f"-Wl,-rpath,{LIBDIR}", "-ltl_runtime"], capture_output=True, text=True)
    assert r.returncode == 0, f"README.md line {prog['line']} as {std}:\n{r.stderr}"
    cwd = request.getfixturevalue("my_package") if "build/my.tlpkg" in prog["code"] else tmp_path
    r = subprocess.run([str(exe)], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    if prog["output"] is not None:
        assert r.stdout.strip() == prog["output"], r.stdout
