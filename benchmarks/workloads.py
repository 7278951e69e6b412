"""The benchmark workloads: each is a :class:`Workload` with its FLOPs, the fewest bytes it must
move, a goal, and a ``setup(threads) -> {contender: callable}`` that allocates random inputs and
preallocated outputs (in-place against in-place; a contender that can only allocate says so in
its name, e.g. ``torch (alloc)``).

Contenders: ``tl`` (the compiled operator library through ``tl.ops``), ``numpy`` (OpenBLAS for
matmul; NumPy expressions elsewhere), ``torch`` (PyTorch CPU eager). Inputs that fit in cache
rotate among several buffers; DRAM-sized ones do not need to.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import tl.ops as tlops

SQRT_2_PI = math.sqrt(2.0 / math.pi)


@dataclass
class Workload:
    name: str
    group: str                 # matmul | skinny | epilogue | bf16 | memory | overhead
    flops: float
    bytes: float
    setup: Callable[[], dict] = field(repr=False)
    goal: str = ""
    params: dict = field(default_factory=dict)


def _rng():
    return np.random.default_rng(0)


def _rand(shape, dtype=np.float32, scale=1.0):
    return (_rng().standard_normal(shape, dtype=np.float32) * scale).astype(dtype)


def _rot(bufs):
    """A callable cycling through ``bufs`` (tuples of arguments)."""
    state = [0]

    def nxt():
        state[0] = (state[0] + 1) % len(bufs)
        return bufs[state[0]]
    return nxt


# ----------------------------------------------------------------------------- matmul
def _matmul_setup(m, k, n, copies):
    def setup():
        import torch
        bufs = [(_rand((m, k)), _rand((k, n), scale=1.0 / math.sqrt(k))) for _ in range(copies)]
        tb = [(torch.from_numpy(a), torch.from_numpy(b)) for a, b in bufs]
        c = np.empty((m, n), np.float32)
        tc = torch.from_numpy(np.empty((m, n), np.float32))
        nb, ntb = _rot(bufs), _rot(tb)

        def run_tl():
            a, b = nb()
            tlops.matmul(a, b, out=c)

        def run_np():
            a, b = nb()
            np.matmul(a, b, out=c)

        def run_torch():
            a, b = ntb()
            torch.mm(a, b, out=tc)
        return {"tl": run_tl, "numpy": run_np, "torch": run_torch}
    return setup


def _bf16_setup(n):
    def setup():
        import torch
        a, b = _rand((n, n), tlops.bfloat16), _rand((n, n), tlops.bfloat16, 1.0 / math.sqrt(n))
        ta = torch.from_numpy(a.view(np.uint16).astype(np.int32) << 16).view(torch.float32).to(torch.bfloat16)
        tb = torch.from_numpy(b.view(np.uint16).astype(np.int32) << 16).view(torch.float32).to(torch.bfloat16)
        c = np.empty((n, n), np.float32)
        tc = torch.empty((n, n), dtype=torch.bfloat16)
        return {"tl": lambda: tlops.matmul(a, b, out=c), "torch": lambda: torch.mm(ta, tb, out=tc)}
    return setup


def _np_gelu_tanh(x, out):
    """0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) into ``out``, which must not alias ``x``."""
    np.multiply(x, x, out=out)
    out *= x
    out *= 0.044715
    out += x
    out *= SQRT_2_PI
    np.tanh(out, out=out)
    out += 1.0
    out *= x
    out *= 0.5
    return out


def _epilogue_setup(n):
    def setup():
        import torch
        a, w = _rand((n, n)), _rand((n, n), scale=1.0 / math.sqrt(n))
        bias = _rand((n,))
        c = np.empty((n, n), np.float32)
        g = np.empty((n, n), np.float32)      # gelu's output: _np_gelu_tanh must not overwrite its input
        ta, tw, tbias = torch.from_numpy(a), torch.from_numpy(w), torch.from_numpy(bias)
        tc = torch.empty((n, n))
        linear = getattr(tlops, "linear", None)

        def run_tl():
            if linear is not None:
                linear(a, w.T, bias=bias, activation="gelu_tanh", out=c)
            else:       # composite until the fused kernel exists
                tlops.matmul(a, w, out=c)
                tlops.add(c, bias, out=c)
                tlops.gelu(c, approximate="tanh", out=c)

        def run_np():
            np.matmul(a, w, out=c)
            np.add(c, bias, out=c)
            _np_gelu_tanh(c, g)

        def run_torch():
            torch.addmm(tbias, ta, tw, out=tc)
            torch.ops.aten.gelu_(tc, approximate="tanh")
        return {"tl": run_tl, "numpy": run_np, "torch": run_torch}
    return setup


# ----------------------------------------------------------------------------- memory-bound
def _erf_np(x, out):
    """erf by Abramowitz-Stegun 7.1.26 in NumPy (|error| < 1.5e-7): NumPy has no erf."""
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-x * x)
    np.copysign(y, x, out=out)
    return out


def _membound(op, n):
    """(setup, bytes) for one memory-bound op on an (n, n) float32 input."""
    def setup():
        import torch
        import torch.nn.functional as F
        x = _rand((n, n))
        tx = torch.from_numpy(x)
        o = np.empty((n, n), np.float32)
        to = torch.from_numpy(np.empty((n, n), np.float32))
        if op == "add":
            y = _rand((n, n))
            ty = torch.from_numpy(y)
            return {"tl": lambda: tlops.add(x, y, out=o), "numpy": lambda: np.add(x, y, out=o),
                    "torch": lambda: torch.add(tx, ty, out=to)}
        if op == "exp":
            return {"tl": lambda: tlops.exp(x, out=o), "numpy": lambda: np.exp(x, out=o),
                    "torch": lambda: torch.exp(tx, out=to)}
        if op == "gelu_tanh":
            return {"tl": lambda: tlops.gelu(x, approximate="tanh", out=o), "numpy": lambda: _np_gelu_tanh(x, o),
                    "torch": lambda: torch.ops.aten.gelu.out(tx, approximate="tanh", out=to)}
        if op == "gelu":
            def np_gelu():
                _erf_np(x * (1.0 / math.sqrt(2.0)), o)
                np.add(o, 1.0, out=o)
                np.multiply(o, x, out=o)
                np.multiply(o, 0.5, out=o)
            return {"tl": lambda: tlops.gelu(x, out=o), "numpy": np_gelu,
                    "torch": lambda: torch.ops.aten.gelu.out(tx, out=to)}
        if op == "silu":
            def np_silu():
                np.negative(x, out=o)
                np.exp(o, out=o)
                np.add(o, 1.0, out=o)
                np.divide(x, o, out=o)
            return {"tl": lambda: tlops.silu(x, out=o), "numpy": np_silu,
                    "torch": lambda: torch.ops.aten.silu.out(tx, out=to)}
        if op in ("softmax", "log_softmax"):
            def np_sm():
                m = x.max(axis=1, keepdims=True)
                np.subtract(x, m, out=o)
                if op == "softmax":
                    np.exp(o, out=o)
                    np.divide(o, o.sum(axis=1, keepdims=True), out=o)
                else:
                    np.subtract(o, np.log(np.exp(o).sum(axis=1, keepdims=True)), out=o)
            tfn = torch.ops.aten._softmax.out if op == "softmax" else torch.ops.aten._log_softmax.out
            return {"tl": lambda: getattr(tlops, op)(x, out=o), "numpy": np_sm,
                    "torch": lambda: tfn(tx, -1, False, out=to)}
        if op == "layer_norm":
            w, b = _rand((n,)), _rand((n,))
            tw, tb = torch.from_numpy(w), torch.from_numpy(b)

            def np_ln():
                mu = x.mean(axis=1, keepdims=True)
                np.subtract(x, mu, out=o)
                var = np.mean(o * o, axis=1, keepdims=True)
                np.multiply(o, 1.0 / np.sqrt(var + 1e-5), out=o)
                np.multiply(o, w, out=o)
                np.add(o, b, out=o)
            return {"tl": lambda: tlops.layer_norm(x, w, b, out=o), "numpy": np_ln,
                    "torch (alloc)": lambda: F.layer_norm(tx, (n,), tw, tb)}
        if op == "rms_norm":
            w = _rand((n,))
            tw = torch.from_numpy(w)

            def np_rms():
                ms = np.einsum("ij,ij->i", x, x)[:, None] * (1.0 / n)
                np.multiply(x, 1.0 / np.sqrt(ms + 1e-6), out=o)
                np.multiply(o, w, out=o)
            return {"tl": lambda: tlops.rms_norm(x, w, out=o), "numpy": np_rms,
                    "torch (alloc)": lambda: F.rms_norm(tx, (n,), tw, 1e-6)}
        if op == "sum":
            s = np.empty((n,), np.float32)
            ts = torch.empty((n,))
            return {"tl": lambda: tlops.sum(x, axis=-1, out=s), "numpy": lambda: np.sum(x, axis=1, out=s),
                    "torch": lambda: torch.sum(tx, dim=1, out=ts)}
        raise KeyError(op)
    nbytes = {"add": 3, "sum": 1}.get(op, 2) * n * n * 4
    return setup, nbytes


MEMORY_OPS = ("add", "exp", "gelu", "gelu_tanh", "silu", "softmax", "log_softmax", "layer_norm",
              "rms_norm", "sum")


def _overhead_setup():
    import torch
    x, y, o = (np.ones((1, 1), np.float32) for _ in range(3))
    tx, ty, to = (torch.ones(1) for _ in range(3))
    k = tlops.package().kernel("add__DT_float32")
    fns = {"tl kernel": lambda: k(x, y, o), "tl.ops": lambda: tlops.add(x, y, out=o),
           "numpy": lambda: np.add(x, y, out=o), "torch": lambda: torch.add(tx, ty, out=to)}
    try:   # the same launch from C (benchmarks/percall.c): tl_kernel_launch, and the kernel body alone
        from benchmarks import percall
        fns.update(percall.contenders(tlops.package().path))
    except (RuntimeError, OSError) as e:
        print(f"per-call C loop skipped: {e}", flush=True)
    return fns


def all_workloads(quick: bool = False) -> list[Workload]:
    ws: list[Workload] = []
    square = (256, 1024, 2048) if quick else (256, 1024, 2048, 4096)
    for n in square:
        ws.append(Workload(f"matmul {n}x{n}x{n}", "matmul", 2.0 * n ** 3, 3 * 4.0 * n * n,
                           _matmul_setup(n, n, n, 4 if n <= 1024 else 1),
                           ">= 1.0x numpy; >= 92% FMA peak from 1024", dict(n=n)))
    for m in (1, 16, 128):
        k = n = 4096
        ws.append(Workload(f"matmul {m}x{k}x{n}", "skinny", 2.0 * m * k * n, 4.0 * (m * k + k * n + m * n),
                           _matmul_setup(m, k, n, 2), ">= 1.0x best peer" + ("; >= 85% bandwidth" if m == 1 else ""),
                           dict(m=m)))
    for n in ((1024,) if quick else (1024, 2048)):
        ws.append(Workload(f"matmul+bias+gelu {n}", "epilogue", 2.0 * n ** 3, 4.0 * (3 * n * n + n),
                           _epilogue_setup(n), ">= 1.3x numpy composite", dict(n=n)))
        ws.append(Workload(f"bf16 matmul {n}", "bf16", 2.0 * n ** 3, 2.0 * 2 * n * n + 4.0 * n * n,
                           _bf16_setup(n), ">= 0.9x torch bf16", dict(n=n)))
    for n in ((4096,) if quick else (4096, 8192)):
        for op in MEMORY_OPS:
            setup, nbytes = _membound(op, n)
            ws.append(Workload(f"{op} {n}^2", "memory", 0.0, float(nbytes), setup,
                               ">= 80% triad; >= 2x numpy; >= 1x torch", dict(op=op, n=n)))
    ws.append(Workload("add 1 element (per call)", "overhead", 0.0, 0.0, _overhead_setup,
                       "tl.ops <= torch.add"))
    ws.extend(nn_workloads())
    from benchmarks.shapes import shape_workloads
    ws.extend(shape_workloads(Workload))
    return ws


# ----------------------------------------------------------------------------- conv / attention / models
# (name, N, Cin, H, Cout, K, stride, pad): ResNet-50 layer shapes.
CONV_SHAPES = (("7x7/2 3->64 @224", 3, 224, 64, 7, 2, 3), ("3x3 64->64 @56", 64, 56, 64, 3, 1, 1),
               ("1x1 256->64 @56", 256, 56, 64, 1, 1, 0), ("3x3 256->256 @14", 256, 14, 256, 3, 1, 1))


def _conv_setup(n, ci, hw, co, k, s, p):
    def setup():
        import torch
        import torch.nn.functional as F
        x = _rand((n, ci, hw, hw))
        w = _rand((co, ci, k, k), scale=math.sqrt(2.0 / (ci * k * k)))
        tx, tw = torch.from_numpy(x), torch.from_numpy(w)

        def run_torch():
            with torch.no_grad():
                F.conv2d(tx, tw, stride=s, padding=p)
        return {"tl": lambda: tlops.conv2d(x, w, stride=s, padding=p), "torch (alloc)": run_torch}
    return setup


def _attention_setup(b, h, s, e):
    def setup():
        import torch
        import torch.nn.functional as F
        q, k, v = (_rand((b, h, s, e)) for _ in range(3))
        tq, tk, tv = (torch.from_numpy(a) for a in (q, k, v))

        def run_torch():
            with torch.no_grad():
                F.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
        return {"tl": lambda: tlops.scaled_dot_product_attention(q, k, v, is_causal=True),
                "torch (alloc)": run_torch}
    return setup


def _model_setup(which):
    def setup():
        import os
        import sys
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                        "tests", "models"))
        import models as M
        rng = np.random.default_rng(0)
        if which.startswith("resnet50"):
            p = M.resnet50_params(rng)
            x = rng.standard_normal((int(which[-1]), 3, 224, 224)).astype(np.float32)
            return {"tl": lambda: M.resnet50_tl(p, x), "torch (alloc)": lambda: M.resnet50_torch(p, x)}
        if which == "bert":
            p = M.bert_params(rng)
            x = rng.standard_normal((1, 512, 768)).astype(np.float32)
            keep = np.ones((1, 512), bool)
            return {"tl": lambda: M.bert_layer_tl(p, x, keep), "torch (alloc)": lambda: M.bert_layer_torch(p, x, keep)}
        p = M.llama_params(rng)
        x = rng.standard_normal((1, 512, 512)).astype(np.float32)
        cos, sin = M.rope_tables(512, 512 // p["heads"])
        return {"tl": lambda: M.llama_layer_tl(p, x, cos, sin),
                "torch (alloc)": lambda: M.llama_layer_torch(p, x, cos, sin)}
    return setup


def nn_workloads() -> list[Workload]:
    """conv2d on ResNet-50 layer shapes (batch 1, 8), causal attention, whole-model forwards."""
    ws = []
    for name, ci, hw, co, k, s, p in CONV_SHAPES:
        oh = (hw + 2 * p - k) // s + 1
        for n in (1, 8):
            ws.append(Workload(f"conv2d {name} b{n}", "conv", 2.0 * n * co * ci * k * k * oh * oh,
                               4.0 * (n * ci * hw * hw + co * ci * k * k + n * co * oh * oh),
                               _conv_setup(n, ci, hw, co, k, s, p), ">= 0.8x torch", dict(n=n)))
    b, h, s, e = 1, 16, 2048, 64
    ws.append(Workload(f"attention causal {s}x{h}x{e}", "attention", 2.0 * b * h * s * s * e,
                       4.0 * 4 * b * h * s * e, _attention_setup(b, h, s, e), ">= 1.0x torch SDPA"))
    for which, desc in (("resnet50 b1", "224x224"), ("resnet50 b8", "224x224"), ("bert", "layer 1x512x768"),
                        ("llama", "layer 1x512x512 (8 heads, 2 kv)")):
        ws.append(Workload(f"model {which} {desc}", "model", 0.0, 0.0, _model_setup(which.replace(" b", "_b")),
                           "vs torch"))
    return ws
