"""Fixtures shared by every test directory."""
import pytest

from seed_sweep import (pytest_addoption, pytest_collection_modifyitems, pytest_configure,  # noqa: F401
                        pytest_generate_tests, pytest_runtest_logreport, pytest_terminal_summary)


@pytest.fixture
def tl_build(tmp_path):
    """build(source_text, targets="x86_64-avx512,x86_64-baseline") -> the loaded package: writes
    the TL source to tmp_path, runs `tlc build` (no cache) and ``tl.load``s the result."""
    def build(src: str, targets: str = "x86_64-avx512,x86_64-baseline"):
        import tl
        from click.testing import CliRunner
        from tlc.cli import cli
        path = tmp_path / "kernels.py"
        path.write_text(src)
        pkg = tmp_path / "kernels.tlpkg"
        r = CliRunner().invoke(cli, ["build", str(path), "-t", targets, "-o", str(pkg), "-q", "--no-cache"])
        assert r.exit_code == 0, r.output
        return tl.load(str(pkg))
    return build
