"""The generated C header of a package (templates/header.h.j2): per kernel a name macro
``<PKG>_KERNEL_<NAME>`` and a typed wrapper

    static inline tl_status_t <pkg>_<kernel>(tl_kernel_t* kernel, const DLTensor* x, double eps, ...)

that fills tl_value_t in signature order and calls tl_kernel_launch (grid from the kernel's rule).
Tensors are ``const DLTensor*``; integer/bool scalars ``int64_t``; float scalars ``double``.
Also ``<pkg>_kernels_t`` (one ``tl_kernel_t*`` field per kernel) and
``<pkg>_kernels_resolve(tl_package_t*, <pkg>_kernels_t*)``; an ``#error`` guards the ABI/format major.
The header is C99 and C++ (extern "C"); it compiles with -Wall -Wextra -Werror -pedantic in both.
"""
from __future__ import annotations

import re

from tlc.package.templating import render

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def c_identifier(text: str) -> str:
    """``text`` with every non-identifier character replaced by '_' (and a leading '_' before a digit)."""
    ident = re.sub(r"[^A-Za-z0-9_]", "_", text)
    return "_" + ident if not ident or ident[0].isdigit() else ident


def _param(p: dict) -> dict:
    name = c_identifier(p["name"])
    if p["kind"] == "tensor":
        return {"ctype": "const DLTensor*", "cname": name, "init": f"{name}, 0, 0.0"}
    if p.get("dtype") in _FLOATS:
        return {"ctype": "double", "cname": name, "init": f"NULL, 0, {name}"}
    return {"ctype": "int64_t", "cname": name, "init": f"NULL, {name}, 0.0"}


def render_header(package: str, kernels: list[dict], tlc_version: str = "0.1.0") -> str:
    """C header text for a package named ``package`` with manifest kernel entries ``kernels``."""
    prefix = c_identifier(package)
    items = []
    for k in kernels:
        params = [_param(p) for p in k["params"]]
        sig = ", ".join(f"{p['name']}: {p['dtype']}{'[' + str(p['rank']) + ']' if p['kind'] == 'tensor' else ''}"
                        for p in k["params"])
        items.append({"name": k["name"], "source": k.get("source", "?"), "signature": sig, "params": params,
                      "fn": f"{prefix}_{c_identifier(k['name'])}", "macro": c_identifier(k["name"]).upper(), "field": c_identifier(k["name"])})
    return render("header.h.j2", name=package, name_c=prefix, guard=prefix.upper(), kernels=items,
                  tlc_version=tlc_version)
