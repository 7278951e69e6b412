"""Build progress (tlc/package/progress.py): plain lines when stderr is not a terminal (pipes, CI
logs, `make run`), click's bar on a terminal, nothing with -q or on a no-change rebuild."""
import io
import re
import time

import pytest
from click.testing import CliRunner

from tlc.cli import cli
from tlc.package import pack
from tlc.package.progress import Progress

LINE = re.compile(r"^tlc build: compiling (\d+)/(\d+) objects(?: \((\d+) from the cache\))?, \d+ s(; at .*)?$")


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


def _counts(text):
    return [(int(m[1]), int(m[2])) for m in map(LINE.match, text.splitlines()) if m]


def test_lines_every_tenth_and_done_over_total():
    out = io.StringIO()
    p = Progress(None, stream=out, interval=60)
    assert p.mode == "lines"        # a StringIO is no terminal
    with p.counted("compiling", "object", 40, done=10, cached=10) as step:
        for _ in range(30):
            step()
    counts = _counts(out.getvalue())
    assert counts[0] == (10, 40) and counts[-1] == (40, 40)
    assert [d for d, _ in counts] == [10, 12, 16, 20, 24, 28, 32, 36, 40]   # one line per 10%
    assert "(10 from the cache)" in out.getvalue()


def test_heartbeat_while_nothing_finishes():
    out = io.StringIO()
    p = Progress("lines", stream=out, interval=0.2)
    with p.counted("compiling", "object", 3, busy=lambda: ["ops/a.py x86_64-avx2"]) as step:
        time.sleep(1.3)             # one slow object: still a line at least every 0.2 s (checked each 0.2 s)
        step()
    counts = _counts(out.getvalue())
    assert counts.count((0, 3)) >= 3 and counts[-1] == (1, 3)
    assert out.getvalue().count("; at ops/a.py x86_64-avx2\n") == counts.count((0, 3)) - 1   # not the first
    with p.running("linking 4 bundles"):
        time.sleep(0.7)
    assert re.search(r"^tlc build: linking 4 bundles, \d+ s$", out.getvalue(), re.M)


def test_off_and_bad_mode():
    out = io.StringIO()
    p = Progress(False, stream=out)
    with p.counted("compiling", "object", 5) as step:
        step()
    with p.running("linking"):
        pass
    p.line("x")
    assert out.getvalue() == ""
    with pytest.raises(ValueError, match="progress must be"):
        Progress("loud", stream=out)


def test_piped_build_prints_progress_lines(kernel_dir, tmp_path, stub_driver, monkeypatch):
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    pack.build_package([kernel_dir], "host", tmp_path / "a.tlpkg", jobs=2, progress=None)
    text = err.getvalue()
    counts = _counts(text)
    assert counts[0] == (0, 8) and counts[-1] == (8, 8), text     # 2 files x 4 variants
    assert "tlc build: linking 4 bundles" in text and f"tlc build: writing {tmp_path / 'a.tlpkg'}" in text
    err.truncate(0)
    err.seek(0)
    pack.build_package([kernel_dir], "host", tmp_path / "a.tlpkg", jobs=2, progress=None)
    assert err.getvalue() == ""     # a no-change rebuild (all cache hits) says nothing


def test_partial_rebuild_counts_cache_hits(kernel_dir, tmp_path, stub_driver, monkeypatch):
    pack.build_package([kernel_dir], "host", tmp_path / "a.tlpkg", jobs=1, progress=False)
    (kernel_dir / "add.py").write_text((kernel_dir / "add.py").read_text() + "\n# changed\n")
    err = io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    pack.build_package([kernel_dir], "host", tmp_path / "a.tlpkg", jobs=1, progress=None)
    assert "compiling 4/8 objects (4 from the cache)" in err.getvalue()
    assert _counts(err.getvalue())[-1] == (8, 8)


def test_terminal_keeps_the_bar(kernel_dir, tmp_path, stub_driver, monkeypatch):
    err = FakeTTY()
    monkeypatch.setattr("sys.stderr", err)
    pack.build_package([kernel_dir], "host", tmp_path / "a.tlpkg", jobs=1, progress=None)
    text = err.getvalue()
    assert "compiling 8/8 objects" in text and "\r" in text and "#" in text    # click redraws in place
    assert not _counts(text)


def test_cli_quiet_prints_nothing(kernel_dir, tmp_path, stub_driver):
    r = CliRunner().invoke(cli, ["build", str(kernel_dir), "-o", str(tmp_path / "a.tlpkg"), "-j", "1", "-q"])
    assert r.exit_code == 0 and r.output == "" and r.stderr == ""
    (kernel_dir / "add.py").write_text((kernel_dir / "add.py").read_text() + "\n# changed\n")
    r = CliRunner().invoke(cli, ["build", str(kernel_dir), "-o", str(tmp_path / "a.tlpkg"), "-j", "1"])
    assert r.exit_code == 0 and _counts(r.stderr)[-1] == (8, 8) and "3 kernels from 2 files" in r.stderr
