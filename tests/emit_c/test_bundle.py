"""Bundle-level properties: determinism, header, exported symbols, ABI handshake, tables."""
import ctypes as C
import subprocess

import pytest

from harness import Loaded, VARIANTS, compile_bundle
from test_add import add_kernel
from tlc.emit_c import emit_bundle, isa
from tlc.backends.cpu.targets import Variant


def test_deterministic_and_header():
    v = VARIANTS["avx2"]
    a = emit_bundle([add_kernel()], v, "ops/add.py")
    b = emit_bundle([add_kernel()], v, "ops/add.py")
    assert a == b
    head = a.splitlines()[:3]
    assert "bundle.j2" in head[0] and "ops/add.py" in head[1]
    assert "/* test_kernel.py:" in a   # per-op source comments


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_symbols_and_handshake(name):
    so = compile_bundle([add_kernel()], name)
    out = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True, text=True).stdout
    syms = [l.split()[-1] for l in out.splitlines() if l.strip()]
    assert syms == ["tl_bundle_query"], syms
    und = subprocess.run(["nm", "-D", "--undefined-only", str(so)], capture_output=True, text=True).stdout
    assert und.strip() == "", und
    lib = Loaded(so)
    assert not lib.query(0, None)
    b = lib.bundle
    assert b.abi_version == 1 and b.num_kernels == 1 and b.target.decode() == VARIANTS[name].name
    k = lib.kernels["add"]
    assert k.num_params == 3 and k.params[2].name == b"out" and k.params[0].rank == 2 and k.grid


def test_isa_tables_complete_and_missing_entry():
    for key, tab in isa.ISA.items():
        for entry in isa.REQUIRED:
            assert entry in tab, (key, entry)
    with pytest.raises(KeyError, match="no emitter table"):
        emit_bundle([add_kernel()], Variant("x", "x86_64", "avx9", (), 0, "", "gcc", (), 32), "a.py")
    with pytest.raises(KeyError, match="has no entry"):
        isa.entry("sse2", "gather")
