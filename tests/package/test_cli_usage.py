"""tlc build/compile refusals from a fresh user's report: an output that is an input or not a
.tlpkg, files without kernels, TL_CACHE_DIR that is a file, duplicate variants, the summary line."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from pkg_helpers import ADD_SRC
from tlc.cli import cli
from tlc.backends import resolve


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _one_line_error(r, *needles):
    assert r.exit_code == 1, r.output
    assert "Traceback" not in r.output and r.exception is None or isinstance(r.exception, SystemExit), r.output
    for n in needles:
        assert n in r.output, r.output


def test_output_that_is_an_input_is_refused(tmp_path, stub_driver):
    src = tmp_path / "my_add.py"
    src.write_text(ADD_SRC.format(name="add"))
    before = src.read_bytes()
    _one_line_error(run("build", src, "-o", src), "is one of the inputs")
    assert src.read_bytes() == before
    d = tmp_path / "ops"
    d.mkdir()
    (d / "k.py").write_text(ADD_SRC.format(name="k"))
    _one_line_error(run("build", d, "-o", d / "k.py"), "is one of the inputs")
    assert (d / "k.py").read_text() == ADD_SRC.format(name="k")


def test_output_must_end_in_tlpkg(tmp_path, stub_driver):
    src = tmp_path / "my_add.py"
    src.write_text(ADD_SRC.format(name="add"))
    _one_line_error(run("build", src, "-o", tmp_path / "my_add.zip"), "does not end in .tlpkg")
    assert not (tmp_path / "my_add.zip").exists()
    for bad in ("", ".tlpkg", str(tmp_path / ".tlpkg")):    # was a traceback / 'name it .tlpkg.tlpkg'
        _one_line_error(run("build", src, "-o", bad), "is not a package file name")


def test_file_without_kernels(tmp_path, stub_driver):
    f = tmp_path / "nokernel.py"
    f.write_text("import tl\n\ndef f(x):\n    return x\n")
    _one_line_error(run("build", f, "-o", tmp_path / "a.tlpkg"), f"no @tl.kernel functions in {f}")
    fake = tmp_path / "fake.py"                    # mentions @tl.kernel, defines none
    fake.write_text("import tl\n# @tl.kernel\nX = 1\n")
    _one_line_error(run("build", fake, "-o", tmp_path / "a.tlpkg"), "no @tl.kernel functions in")
    d = tmp_path / "empty_ops"
    d.mkdir()
    (d / "helpers.py").write_text("def g():\n    return 2\n")
    _one_line_error(run("build", d, "-o", tmp_path / "a.tlpkg"), "no ")


def test_compile_file_without_kernels(tmp_path):
    f = tmp_path / "nokernel.py"
    f.write_text("import tl\n\ndef f(x):\n    return x\n")
    _one_line_error(run("compile", f), f"no @tl.kernel functions in {f}")


def test_directory_skips_files_without_kernels(kernel_dir, tmp_path, stub_driver):
    r = run("build", kernel_dir, "-t", "x86_64-baseline", "-o", tmp_path / "a.tlpkg")
    assert r.exit_code == 0, r.output
    assert "3 kernels from 2 files, 1 bundle (x86_64-baseline)" in r.output


def test_cache_dir_that_is_a_file(tmp_path, stub_driver, monkeypatch):
    src = tmp_path / "my_add.py"
    src.write_text(ADD_SRC.format(name="add"))
    f = tmp_path / "not_a_dir"
    f.write_text("x")
    monkeypatch.setenv("TL_CACHE_DIR", str(f))
    r = run("build", src, "-o", tmp_path / "a.tlpkg")
    _one_line_error(r, "TL_CACHE_DIR", "not a directory")
    assert len(r.output.strip().splitlines()) == 1
    monkeypatch.setenv("TL_CACHE_DIR", str(f / "sub"))
    _one_line_error(run("build", src, "-o", tmp_path / "a.tlpkg"), "TL_CACHE_DIR")


def test_duplicate_variants_are_listed_once(tmp_path, stub_driver):
    assert [v.name for v in resolve("x86_64-avx2,x86_64-avx2")] == ["x86_64-avx2"]
    assert [v.name for v in resolve("x86_64-baseline,x86_64")] == ["x86_64-baseline", "x86_64-avx512bf16",
                                                                   "x86_64-avx512", "x86_64-avx2"]
    src = tmp_path / "my_add.py"
    src.write_text(ADD_SRC.format(name="add"))
    out = tmp_path / "a.tlpkg"
    r = run("build", src, "-t", "x86_64-avx2,x86_64-avx2", "-o", out)
    assert r.exit_code == 0, r.output
    assert "1 kernel from 1 file, 1 bundle (x86_64-avx2)" in r.output
    data = json.loads(run("inspect", out, "--json").output)
    assert [b["variant"] for b in data["bundles"]] == ["x86_64-avx2"]
