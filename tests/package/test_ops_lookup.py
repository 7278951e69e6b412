"""Which operator package tl.ops loads (tl.ops._package): use_package(), $TL_OPS_PACKAGE, a source
checkout's build/ops.tlpkg, the per-user package, the wheel's copy; and where tl._resources finds
the runtime, headers and operator sources in a checkout and in a wheel's layout (simulated by
pointing tl._resources.PKG_DIR at a temporary directory laid out like an installed ``tl``)."""
import os

import pytest

import tl.ops
from tl import _resources
from tl.ops import _package as _ops_package

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def _clean(monkeypatch, tmp_path):
    monkeypatch.delenv("TL_OPS_PACKAGE", raising=False)
    monkeypatch.delenv("TL_RUNTIME_LIB", raising=False)
    monkeypatch.setenv("TL_CACHE_DIR", str(tmp_path / "cache"))
    yield
    tl.ops.use_package(None)


@pytest.fixture
def wheel_layout(monkeypatch, tmp_path):
    """A tl/ directory as a wheel installs it (no checkout above it), as tl._resources' PKG_DIR."""
    pkg = tmp_path / "site-packages" / "tl"
    for sub in ("_lib", "_data/ops", "include/tl"):
        (pkg / sub).mkdir(parents=True)
    (pkg / "_lib" / "libtl_runtime.so").write_bytes(b"\x7fELF")
    monkeypatch.setattr(_resources, "PKG_DIR", str(pkg))
    return pkg


def _touch(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(b"PK")
    return str(path)


def test_checkout_uses_its_own_build_and_nothing_else():
    assert _resources.checkout_root() == REPO
    assert _ops_package.candidates() == [("the source checkout's build/ops.tlpkg",
                                          os.path.join(REPO, "build", "ops.tlpkg"))]
    assert _resources.include_dir() == os.path.join(REPO, "libtl_runtime", "include")
    assert _resources.runtime_library() == os.path.join(REPO, "build", "runtime", "libtl_runtime.so")
    assert _resources.ops_source_dir() == os.path.join(REPO, "ops")


def test_explicit_then_environment(monkeypatch, tmp_path):
    a, b = _touch(tmp_path / "a.tlpkg"), _touch(tmp_path / "b.tlpkg")
    monkeypatch.setenv("TL_OPS_PACKAGE", b)
    assert tl.ops.package_path() == b
    tl.ops.use_package(a)
    assert tl.ops.package_path() == a
    tl.ops.use_package(None)
    assert tl.ops.package_path() == b


def test_use_package_checks_its_argument(tmp_path):
    with pytest.raises(FileNotFoundError, match="argument 'path': no file .*missing.tlpkg"):
        tl.ops.use_package(tmp_path / "missing.tlpkg")
    with pytest.raises(TypeError, match="argument 'path' must be a str or os.PathLike, got int"):
        tl.ops.use_package(3)


def test_a_set_environment_variable_is_never_skipped(monkeypatch, tmp_path, wheel_layout):
    _touch(wheel_layout / "_data" / "ops.tlpkg")
    monkeypatch.setenv("TL_OPS_PACKAGE", str(tmp_path / "nope.tlpkg"))
    with pytest.raises(FileNotFoundError, match=r"\$TL_OPS_PACKAGE: .*nope.tlpkg.*tlc build-ops"):
        tl.ops.package_path()


def test_wheel_order_user_package_then_shipped(tmp_path, wheel_layout):
    assert _resources.checkout_root() is None
    shipped = _touch(wheel_layout / "_data" / "ops.tlpkg")
    assert tl.ops.package_path() == shipped
    user = _touch(tmp_path / "cache" / f"ops-{_resources.VERSION}.tlpkg")
    assert _resources.user_ops_package() == user
    assert tl.ops.package_path() == user


def test_wheel_without_any_package_says_where_it_looked(tmp_path, wheel_layout):
    with pytest.raises(FileNotFoundError) as e:
        tl.ops.package_path()
    msg = str(e.value)
    assert str(tmp_path / "cache" / f"ops-{_resources.VERSION}.tlpkg") in msg
    assert str(wheel_layout / "_data" / "ops.tlpkg") in msg
    assert "tlc build-ops" in msg and "make ops" not in msg and REPO + os.sep not in msg


def test_wheel_layout_resources(wheel_layout, monkeypatch):
    assert _resources.include_dir() == str(wheel_layout / "include")
    assert _resources.runtime_library() == str(wheel_layout / "_lib" / "libtl_runtime.so")
    assert _resources.ops_source_dir() == str(wheel_layout / "_data" / "ops")
    monkeypatch.setenv("TL_RUNTIME_LIB", "/elsewhere/libtl_runtime.so")
    assert _resources.runtime_library() == "/elsewhere/libtl_runtime.so"


def test_build_ops_writes_the_per_user_package(monkeypatch, tmp_path):
    """`tlc build-ops` builds the installed operator sources into the package tl.ops looks for."""
    from click.testing import CliRunner
    from tlc.cli import cli
    import tlc.package.pack as pack
    seen = {}

    def fake_build(sources, target, out, **kw):
        seen.update(sources=sources, target=target, out=out)
        kw["stats"].update(units=23, objects_built=0, objects_total=92)
        return {"kernels": [], "bundles": []}

    monkeypatch.setattr(pack, "build_package", fake_build)
    r = CliRunner().invoke(cli, ["build-ops", "-t", "x86_64-baseline"])
    assert r.exit_code == 0, r.output
    assert seen == {"sources": [os.path.join(REPO, "ops")], "target": "x86_64-baseline",
                    "out": _resources.user_ops_package()}
    assert os.path.isdir(os.path.dirname(_resources.user_ops_package()))


def test_build_ops_without_sources_is_a_clear_error(wheel_layout):
    from click.testing import CliRunner
    from tlc.cli import cli
    (wheel_layout / "_data" / "ops").rmdir()
    r = CliRunner().invoke(cli, ["build-ops"])
    assert r.exit_code == 1 and "the operator sources are not installed" in r.output, r.output


def test_paths_names_this_installation(wheel_layout):
    import json
    from click.testing import CliRunner
    from tlc.cli import cli
    shipped = _touch(wheel_layout / "_data" / "ops.tlpkg")
    r = CliRunner().invoke(cli, ["paths", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output) == {"include": str(wheel_layout / "include"),
                                    "runtime_library": str(wheel_layout / "_lib" / "libtl_runtime.so"),
                                    "ops_sources": str(wheel_layout / "_data" / "ops"), "ops_package": shipped,
                                    "checkout": None}


def test_version_naming_the_user_package_is_the_distributions():
    import re
    with open(os.path.join(REPO, "pyproject.toml"), encoding="utf-8") as f:
        version = re.search(r'^version = "([^"]+)"', f.read(), re.M).group(1)
    assert _resources.VERSION == version
    assert _resources.user_ops_package().endswith(f"ops-{version}.tlpkg")


def test_paths_gives_c_flags(wheel_layout):
    from click.testing import CliRunner
    from tlc.cli import cli
    lib = wheel_layout / "_lib"
    r = CliRunner().invoke(cli, ["paths", "--cflags", "--libs"])
    assert r.exit_code == 0 and r.output.split() == [f"-I{wheel_layout / 'include'}", f"-L{lib}", "-ltl_runtime",
                                                     f"-Wl,-rpath,{lib}"], r.output
    r = CliRunner().invoke(cli, ["paths", "--cflags"])
    assert r.output.split() == [f"-I{wheel_layout / 'include'}"]
