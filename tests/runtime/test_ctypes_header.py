"""The ctypes mirror in tl/_runtime.py must match the C headers: every function of runtime.h is
declared with the right number of parameters, and every structure has the C fields in C order,
at the C offsets, with the C size."""
from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest
from pycparser import c_ast, c_parser

import tl._runtime as R

REPO = Path(__file__).resolve().parents[2]
INCLUDE = REPO / "libtl_runtime" / "include"

_FAKE_STDINT = """
typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long int64_t;
typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;
typedef unsigned long uint64_t; typedef unsigned long uintptr_t;
"""
_FAKE_STDDEF = "typedef unsigned long size_t; typedef long ptrdiff_t;\n#define NULL ((void*)0)\n"


@pytest.fixture(scope="module")
def ast(tmp_path_factory):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    fake = tmp_path_factory.mktemp("fakeinc")
    (fake / "stdint.h").write_text(_FAKE_STDINT)
    (fake / "stddef.h").write_text(_FAKE_STDDEF)
    src = fake / "all.h"
    src.write_text('#include "tl/runtime.h"\n#include "tl/bundle_abi.h"\n')
    text = subprocess.run([cc, "-E", "-P", "-nostdinc", f"-I{fake}", f"-I{INCLUDE}", "-D__attribute__(x)=",
                           "-D__extension__=", str(src)], check=True, capture_output=True, text=True).stdout
    return c_parser.CParser().parse(text, filename="runtime.h")


def _functions(ast):
    out = {}
    for node in ast.ext:
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl):
            params = node.type.args.params if node.type.args else []
            if (len(params) == 1 and isinstance(params[0], c_ast.Typename)
                    and isinstance(params[0].type, c_ast.TypeDecl)
                    and getattr(params[0].type.type, "names", None) == ["void"]):
                params = []
            out[node.name] = len(params)
    return out


def _records(ast):
    """typedef'd struct/union name -> [field names]."""
    out = {}
    for node in ast.ext:
        if isinstance(node, c_ast.Typedef) and isinstance(node.type, c_ast.TypeDecl):
            rec = node.type.type
            if isinstance(rec, (c_ast.Struct, c_ast.Union)) and rec.decls is not None:
                out[node.name] = [d.name for d in rec.decls]
    return out


def test_every_function_declared(ast):
    funcs = _functions(ast)
    declared = {n for n in funcs if n.startswith("tl_")}
    assert declared == set(R.FUNCTIONS), (declared ^ set(R.FUNCTIONS))
    for name, (_restype, argtypes) in R.FUNCTIONS.items():
        assert len(argtypes) == funcs[name], name


def test_library_exports_exactly_the_header(ast):
    lib = Path(R.library_path())
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm")
    out = subprocess.run([nm, "-D", "--defined-only", str(lib)], check=True, capture_output=True, text=True).stdout
    exported = {line.split()[-1] for line in out.splitlines() if line.strip()}
    assert exported == set(R.FUNCTIONS)


def test_struct_fields_match(ast):
    records = _records(ast)
    for name, cls in R.STRUCTS.items():
        assert name in records, f"{name} is not a struct/union typedef in the headers"
        assert [f[0] for f in cls._fields_] == records[name], name
    # every struct of the contract is mirrored
    missing = set(records) - set(R.STRUCTS)
    assert not missing, missing


def test_struct_layout_matches(tmp_path):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "tl/runtime.h"', "int main(void) {"]
    expect = []
    for name, cls in R.STRUCTS.items():
        lines.append(f'  printf("%zu\\n", sizeof({name}));')
        expect.append((name, "sizeof", ctypes.sizeof(cls)))
        for fname, _ in cls._fields_:
            lines.append(f'  printf("%zu\\n", offsetof({name}, {fname}));')
            expect.append((name, fname, getattr(cls, fname).offset))
    lines += ["  return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", f"-I{INCLUDE}", str(src), "-o", str(exe)], check=True)
    got = [int(x) for x in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()]
    assert len(got) == len(expect)
    for (name, field, want), value in zip(expect, got):
        assert value == want, f"{name}.{field}: C {value}, ctypes {want}"
