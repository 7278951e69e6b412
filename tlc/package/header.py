"""The generated C header of a package (templates/header.h.j2): per kernel a name macro
``<PKG>_KERNEL_<NAME>``, a signature macro ``<PKG>_SIGNATURE_<NAME>`` and a typed wrapper

    static inline tl_status_t <pkg>_<kernel>(tl_kernel_t* kernel, const DLTensor* x, double eps, ...)

that checks the handle is that kernel (tl_kernel_check: name and signature hash, else
TL_ERROR_INVALID_ARGUMENT with a message naming both kernels), fills tl_value_t in signature order
and calls tl_kernel_launch (grid from the kernel's rule). Tensors are ``const DLTensor*``;
integer/bool scalars ``int64_t``; float scalars ``double``. Each kernel's comment gives its
signature, source, constexprs and the @tl.kernel docstring (once per base kernel), each source
file's its module docstring. Also ``<pkg>_kernels_t`` (one ``tl_kernel_t*`` field per kernel) and
``<pkg>_kernels_resolve(tl_package_t*, <pkg>_kernels_t*)``; an ``#error`` guards the ABI/format
major. The header is C99 and C++ (extern "C"); it compiles with -Wall -Wextra -Werror -pedantic in both.
"""
from __future__ import annotations

import re

from tlc.lower.dtypes import DType
from tlc.package.templating import render

_FLOATS = ("float16", "bfloat16", "float32", "float64")
# tl_param_kind_t and tl_access_t of tl/bundle_abi.h
_KIND = {"tensor": 0, "scalar": 1}
_ACCESS = {None: 0, "none": 0, "read": 1, "write": 2, "readwrite": 3}
_FNV_OFFSET = 14695981039346656037
_FNV_PRIME = 1099511628211


def c_identifier(text: str) -> str:
    """``text`` with every non-identifier character replaced by '_' (and a leading '_' before a digit)."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", text)
    return "_" + ident if not ident or ident[0].isdigit() else ident


def c_comment(text: str) -> str:
    """``text`` safe inside a C block comment: no ``*/`` (it would end the comment), no ``/*``
    (-Wcomment), no ``??`` (a trigraph under -std=c99), no control characters but newlines."""
    text = re.sub(r"[\x00-\x09\x0b-\x1f\x7f]", " ", text)
    while "*/" in text or "/*" in text or "??" in text:
        text = text.replace("*/", "* /").replace("/*", "/ *").replace("??", "? ?")
    return text


def c_string(text: str) -> str:
    """``text`` as a C string literal (quotes, backslashes, '?' and non-printable bytes escaped)."""
    out = []
    for b in text.encode("utf-8"):
        ch = chr(b)
        if ch in '"\\?':
            out.append("\\" + ch)
        elif 0x20 <= b < 0x7f:
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def signature_string(kernel: dict) -> str:
    """The canonical signature of a manifest kernel entry that tl_kernel_check hashes (see
    tl/runtime.h): the name, then per runtime param ``|name:kind:dtype:rank:access`` with the
    tl_param_t codes in decimal (scalars: rank 0, access 0). Raises ValueError for an unknown
    kind, dtype or access."""
    parts = [kernel["name"]]
    for p in kernel["params"]:
        if p["kind"] not in _KIND:
            raise ValueError(f"kernel {kernel['name']}: param {p['name']!r} has unknown kind {p['kind']!r}")
        tensor = p["kind"] == "tensor"
        try:
            dtype = DType[p["dtype"]].value if p.get("dtype") is not None else 0
            access = _ACCESS[p.get("access")] if tensor else 0
        except KeyError as e:
            raise ValueError(f"kernel {kernel['name']}: param {p['name']!r} has unknown dtype or access {e}") from None
        parts.append(f"{p['name']}:{_KIND[p['kind']]}:{dtype}:{p['rank'] if tensor else 0}:{access}")
    return "|".join(parts)


def signature_hash(kernel: dict) -> int:
    """64-bit FNV-1a of :func:`signature_string` (UTF-8), as tl_kernel_check computes it."""
    h = _FNV_OFFSET
    for b in signature_string(kernel).encode("utf-8"):
        h = ((h ^ b) * _FNV_PRIME) & 0xFFFFFFFFFFFFFFFF
    return h


def _param(p: dict) -> dict:
    name = c_identifier(p["name"])
    if p["kind"] == "tensor":
        return {"ctype": "const DLTensor*", "cname": name, "init": f"{name}, 0, 0.0"}
    if p.get("dtype") in _FLOATS:
        return {"ctype": "double", "cname": name, "init": f"NULL, 0, {name}"}
    return {"ctype": "int64_t", "cname": name, "init": f"NULL, {name}, 0.0"}


def _shape(p: dict) -> str:
    """``[2]`` (rank only) or, with a shape contract, ``[M, N]`` / ``[N, 3]`` (symbols, fixed extents)."""
    if p.get("dims") is None:
        return f"[{p['rank']}]"
    return "[" + ", ".join(str(d) for d in p["dims"]) + "]"


def _lines(text: str) -> list[str]:
    return c_comment(text.strip()).splitlines() if text and text.strip() else []


def render_header(package: str, kernels: list[dict], tlc_version: str = "0.1.0",
                  file_docs: dict[str, str] | None = None) -> str:
    """C header text for a package named ``package`` with manifest kernel entries ``kernels``;
    ``file_docs``: source file (as in the entries' ``source``, without ":line") -> module docstring."""
    prefix = c_identifier(package)
    file_docs = file_docs or {}
    items, documented, last_file = [], {}, None
    for k in kernels:
        params = [_param(p) for p in k["params"]]
        sig = ", ".join(f"{p['name']}: {p['dtype']}{_shape(p) if p['kind'] == 'tensor' else ''}"
                        for p in k["params"])
        source = k.get("source", "?")
        file = source.rsplit(":", 1)[0]
        base = k.get("base_name") or k["name"]
        if base in documented:
            doc = [f"(as {documented[base]} above)"] if k.get("doc") else []
        else:
            doc = _lines(k.get("doc", ""))
            documented[base] = k["name"]
        constexprs = ", ".join(f"{n}={v}" for n, v in (k.get("constexprs") or {}).items())
        items.append({"name": k["name"], "name_lit": c_string(k["name"]), "source": c_comment(source),
                      "signature": c_comment(sig), "params": params, "doc": doc,
                      "constexprs": c_comment(constexprs), "hash": f"0x{signature_hash(k):016x}",
                      "file_banner": c_comment(file) if file != last_file else None,
                      "file_doc": _lines(file_docs.get(file, "")) if file != last_file else [],
                      "fn": f"{prefix}_{c_identifier(k['name'])}", "macro": c_identifier(k["name"]).upper(),
                      "field": c_identifier(k["name"])})
        last_file = file
    return render("header.h.j2", name=c_comment(package), name_c=prefix, guard=prefix.upper(), kernels=items,
                  tlc_version=c_comment(tlc_version))
