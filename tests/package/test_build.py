"""Compiling and linking freestanding bundles; errors carry the command that reproduces them."""
import ctypes
import shlex
import subprocess

import pytest
from stub_emit import stub_bundle

from tlc.errors import PackageError
from tlc.backends.cpu import build
from tlc.backends.cpu.targets import X86_64

V = X86_64.variants[-1]   # baseline: runs on any x86-64


def _objects(tmp_path, spec):
    objs = []
    for unit, names in spec:
        c = tmp_path / f"{unit}.c"
        c.write_text(stub_bundle(names, V, f"{unit}.py"))
        build.compile_object(c, tmp_path / f"{unit}.o", V, unit)
        objs.append(tmp_path / f"{unit}.o")
    return objs


def _query(so):
    lib = ctypes.CDLL(str(so))
    q = lib.tl_bundle_query
    q.restype = ctypes.c_void_p
    q.argtypes = [ctypes.c_uint32, ctypes.c_void_p]
    return lib, q


def test_link_two_units_into_one_bundle(tmp_path):
    objs = _objects(tmp_path, [("a", ["k1", "k2"]), ("b", ["k3"])])
    so = tmp_path / "bundle.so"
    build.link_bundle(objs, [("a", 2), ("b", 1)], V, so, tmp_path / "work")
    out = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True).stdout
    assert out.split()[-1] == "tl_bundle_query" and len(out.splitlines()) == 1
    assert subprocess.run(["nm", "-D", "--undefined-only", str(so)], capture_output=True, text=True).stdout == ""
    _lib, q = _query(so)
    assert q(0, None) is None                     # older ABI than the bundle's: refused
    p = q(1, None)
    raw = (ctypes.c_uint32 * 6).from_address(p)
    assert raw[0] == 1 and raw[5] == 3            # abi_version, num_kernels
    kernels = ctypes.c_void_p.from_address(p + 24).value
    desc_size = raw[2]
    names = [ctypes.c_char_p.from_address(kernels + i * desc_size).value for i in range(3)]
    assert names == [b"k1", b"k2", b"k3"]
    assert ctypes.c_char_p.from_address(p + 32).value == V.name.encode()
    assert q(1, None) == p                        # second call: same table


def test_compile_error_contains_reproducing_command(tmp_path):
    c = tmp_path / "bad.c"
    c.write_text("int f(void) { return undeclared_thing; }\n")
    with pytest.raises(PackageError) as e:
        build.compile_object(c, tmp_path / "bad.o", V, "bad")
    msg = str(e.value)
    assert "undeclared_thing" in msg and "-ffreestanding" in msg and "bad.c" in msg
    cmd_line = next(line for line in msg.splitlines() if line.strip().startswith("cd "))
    rerun = subprocess.run(cmd_line, shell=True, capture_output=True, text=True)
    assert rerun.returncode != 0 and "undeclared_thing" in rerun.stderr


def test_libc_call_is_rejected(tmp_path):
    c = tmp_path / "u.c"
    c.write_text(stub_bundle(["k"], V, "u.py", extra="extern int puts(const char*);\n"
                             "__attribute__((used)) static void hello(void) { puts(\"hi\"); }\n"))
    build.compile_object(c, tmp_path / "u.o", V, "u")
    with pytest.raises(PackageError) as e:
        build.link_bundle([tmp_path / "u.o"], [("u", 1)], V, tmp_path / "u.so", tmp_path / "work")
    assert "puts" in str(e.value) and "-nostdlib" in str(e.value)


def test_cflags_and_unit_names():
    flags = build.cflags(V, "ops_add")
    assert "-nostdlib" in flags and "-ffp-contract=off" in flags and "-Dtl_bundle_query=tl__bundle_query_ops_add" in flags
    assert all(f in flags for f in V.cflags) and "-march=native" not in flags
    with pytest.raises(PackageError):
        build.cflags(V, "not-an-identifier")


def test_tl_cc_override(monkeypatch, tmp_path):
    monkeypatch.setenv("TL_CC", "no-such-cc-xyz")
    c = tmp_path / "a.c"
    c.write_text("int x;\n")
    with pytest.raises(PackageError) as e:
        build.compile_object(c, tmp_path / "a.o", V)
    assert "no-such-cc-xyz" in str(e.value)
    assert shlex.split(build.cc_for(V)) == ["no-such-cc-xyz"]


def test_asm(tmp_path):
    c = tmp_path / "a.c"
    c.write_text("float f(float a, float b) { return a * b + 1.0f; }\n")
    assert "mulss" in build.compile_asm(c, V)


MEMCPY = ('__attribute__((visibility("hidden"))) void* memcpy(void* d, const void* s, __SIZE_TYPE__ n) {\n'
          "  unsigned char* a = d; const unsigned char* b = s; while (n--) *a++ = *b++; return d; }\n")


def test_units_may_each_define_libc_helpers(tmp_path):
    objs = []
    for unit in ("a", "b"):
        c = tmp_path / f"{unit}.c"
        c.write_text(stub_bundle([f"k_{unit}"], V, f"{unit}.py", extra=MEMCPY))
        build.compile_object(c, tmp_path / f"{unit}.o", V, unit)
        objs.append(tmp_path / f"{unit}.o")
    build.link_bundle(objs, [("a", 1), ("b", 1)], V, tmp_path / "x.so", tmp_path / "work")


def test_other_duplicate_symbols_are_link_errors(tmp_path):
    objs = []
    for unit in ("a", "b"):
        c = tmp_path / f"{unit}.c"
        c.write_text(stub_bundle([f"k_{unit}"], V, f"{unit}.py", extra="int tl_helper(int x) { return x; }\n"))
        build.compile_object(c, tmp_path / f"{unit}.o", V, unit)
        objs.append(tmp_path / f"{unit}.o")
    with pytest.raises(PackageError, match="multiple definition of `tl_helper'"):
        build.link_bundle(objs, [("a", 1), ("b", 1)], V, tmp_path / "x.so", tmp_path / "work")
