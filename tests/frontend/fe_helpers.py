"""Helpers shared by the frontend tests: build a TL source into a package, and check a located
compile error (message, line, column, the source line under it, no traceback)."""
import tl
from tlc.errors import TLCompileError
from tlc.package import pack
from tlc.parse import parse_source


def build_source(tmp_path_factory, stem: str, source: str):
    """(path of the written TL file, the loaded host package built from it)."""
    src = tmp_path_factory.mktemp(stem) / f"{stem}.py"
    src.write_text(source)
    out = tmp_path_factory.mktemp(f"{stem}_pkg") / f"{stem}.tlpkg"
    pack.build_package([str(src)], "host", str(out), jobs=2, progress=False)
    return src, tl.load(str(out))


def assert_located(src: str, line: int, col: int, msg: str) -> TLCompileError:
    """Parses ``src`` (as t.py), expects a TLCompileError containing ``msg`` at line:col whose
    rendering shows that source line; returns the error."""
    try:
        parse_source(src, "t.py")
    except TLCompileError as e:
        assert msg in e.message, e.message
        assert (e.loc.line, e.loc.col) == (line, col), str(e)
        text = str(e)
        assert text.startswith(f"t.py:{line}:{col}: error: ")
        src_line, caret = text.splitlines()[1:3]
        assert src_line.strip() == src.splitlines()[line - 1].strip()
        assert caret.index("^") - 4 == col - 1
        assert "Traceback" not in text
        return e
    raise AssertionError(f"no error for:\n{src}")
