"""Cache keys change with everything that changes the output, and only with that."""
import dataclasses

from tlc.backends.cpu import build
from tlc.package import cache
from tlc.backends.cpu.targets import X86_64

V0, V1 = X86_64.variants[0], X86_64.variants[1]


def key(src=b"x", variant=V0, unit="u", cc="gcc 12", flags=None, options=None):
    return cache.object_key(src, variant, unit, cc, flags if flags is not None else build.cflags(variant, unit), options)


def test_key_is_deterministic_hex():
    assert key() == key()
    assert len(key()) == 64 and int(key(), 16) >= 0


def test_key_changes_with_source_variant_flags_unit_compiler():
    base = key()
    assert key(src=b"y") != base
    assert key(variant=V1, flags=build.cflags(V0, "u")) != base
    assert key(flags=build.cflags(V0, "u") + ["-O3"]) != base
    assert key(unit="v", flags=build.cflags(V0, "u")) != base
    assert key(cc="gcc 13") != base
    assert key(options={"display": "b.py"}) != base
    changed = dataclasses.replace(V0, cflags=V0.cflags + ("-mfoo",))
    assert key(variant=changed, flags=build.cflags(V0, "u")) != base


def test_key_changes_with_compiler_sources(monkeypatch):
    base = key()
    monkeypatch.setattr(cache, "compiler_hash", lambda: "0" * 64)
    assert key() != base


def test_bundle_key_depends_on_object_order_and_keys():
    a = cache.bundle_key(V0, [("a", "1"), ("b", "2")], "gcc")
    assert a == cache.bundle_key(V0, [("a", "1"), ("b", "2")], "gcc")
    assert a != cache.bundle_key(V0, [("b", "2"), ("a", "1")], "gcc")
    assert a != cache.bundle_key(V0, [("a", "1"), ("b", "3")], "gcc")
    assert a != cache.bundle_key(V1, [("a", "1"), ("b", "2")], "gcc")


def test_publish_is_atomic_and_first_writer_wins(tmp_path):
    c = cache.Cache(tmp_path)
    assert c.lookup("objects", "ab" * 32) is None
    s1 = c.staging("objects", "ab" * 32)
    (s1 / "f").write_text("one")
    s2 = c.staging("objects", "ab" * 32)
    (s2 / "f").write_text("two")
    e1 = c.publish("objects", "ab" * 32, s1, {"n": 1})
    e2 = c.publish("objects", "ab" * 32, s2, {"n": 2})
    assert e1 == e2 == c.lookup("objects", "ab" * 32)
    assert (e1 / "f").read_text() == "one" and c.meta(e1) == {"n": 1}
    assert not s2.exists()
    assert cache.Cache(tmp_path, enabled=False).lookup("objects", "ab" * 32) is None


def test_cache_dir_from_env(monkeypatch, tmp_path):
    from tlc import config
    monkeypatch.setenv("TL_CACHE_DIR", str(tmp_path / "c"))
    assert config.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("TL_CACHE_DIR")
    assert config.cache_dir().parts[-2:] == (".cache", "tl-compiler")


def test_key_names_the_abi_include_dir_not_where_it_lies(monkeypatch, tmp_path):
    """Checkouts in other places, a wheel build's sdist directory and an installed wheel share
    entries: the -I of the ABI headers is keyed by a placeholder (their content is in compiler_hash)."""
    base = key()
    moved = tmp_path / "site-packages" / "tl" / "include"
    monkeypatch.setattr(cache, "include_dir", lambda: str(moved))
    flags = [f if not f.startswith("-I") else f"-I{moved}" for f in build.cflags(V0, "u")]
    assert key(flags=flags) == base
    assert key(flags=[*flags, "-I/other/include"]) != base
