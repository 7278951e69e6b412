"""Shape-class workloads (`make bench`, group "shapes"): tl.ops against NumPy on the shapes that
fixed 2-D tiles used to handle badly -- 1-D, (N, 1), (1, N), tall-skinny, short-wide, small,
3-D with a size-1 axis -- next to a square shape, for elementwise, math, reductions (over the
last and the first axis), softmax, cast and transpose. 1 thread (the goal is per core: >= 0.9x
NumPy in every cell). Each shape holds about 2^20 elements except the small one, so the GB/s of
different classes compare directly.
"""
from __future__ import annotations

import numpy as np

import tl.ops as tlops

# class name -> shape (float32)
SHAPE_CLASSES = {
    "1-D": (1 << 20,),
    "(N,1)": (777600, 1),
    "(1,N)": (1, 777600),
    "tall-skinny": (131072, 8),
    "short-wide": (8, 131072),
    "small": (37, 41),
    "3-D size-1": (256, 4096, 1),
    "square": (1024, 1024),
}


def _x(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def _case(op, shape):
    """(contenders, bytes that must move) for ``op`` on a float32 input of ``shape``."""
    x = _x(shape)
    n = x.size
    if op == "add":
        y = _x(shape, 1)
        o = np.empty_like(x)
        return {"tl": lambda: tlops.add(x, y, out=o), "numpy": lambda: np.add(x, y, out=o)}, 12 * n
    if op in ("exp", "sin"):
        o = np.empty_like(x)
        f, g = getattr(tlops, op), getattr(np, op)
        return {"tl": lambda: f(x, out=o), "numpy": lambda: g(x, out=o)}, 8 * n
    if op == "relu":
        o = np.empty_like(x)
        return {"tl": lambda: tlops.relu(x, out=o), "numpy": lambda: np.maximum(x, 0, out=o)}, 8 * n
    if op in ("sum last", "sum first"):
        ax = -1 if op == "sum last" else 0
        return {"tl": lambda: tlops.sum(x, axis=ax), "numpy": lambda: np.sum(x, axis=ax)}, 4 * n
    if op == "softmax":
        o = np.empty_like(x)

        def np_sm():
            np.subtract(x, x.max(axis=-1, keepdims=True), out=o)
            np.exp(o, out=o)
            np.divide(o, o.sum(axis=-1, keepdims=True), out=o)
        return {"tl": lambda: tlops.softmax(x, out=o), "numpy": np_sm}, 8 * n
    if op == "cast f32->f16":
        o = np.empty(shape, np.float16)
        return {"tl": lambda: tlops.cast(x, np.float16, out=o), "numpy": lambda: np.copyto(o, x)}, 6 * n
    if op == "transpose":
        perm = tuple(reversed(range(x.ndim)))
        o = np.empty(tuple(reversed(shape)), np.float32)
        return {"tl": lambda: tlops.transpose(x, perm, out=o),
                "numpy": lambda: np.copyto(o, np.transpose(x, perm))}, 8 * n
    raise KeyError(op)


SHAPE_OPS = ("add", "exp", "sin", "relu", "sum last", "sum first", "softmax", "cast f32->f16", "transpose")


def shape_workloads(workload_cls) -> list:
    """One Workload per (op, shape class), group "shapes", timed on 1 thread only."""
    ws = []
    for op in SHAPE_OPS:
        for cls, shape in SHAPE_CLASSES.items():
            nbytes = _case_bytes(op, shape)

            def setup(op=op, shape=shape):
                return _case(op, shape)[0]
            ws.append(workload_cls(f"shape {op} {cls}", "shapes", 0.0, float(nbytes), setup, ">= 0.9x numpy",
                                   dict(op=op, shape=list(shape), cls=cls, threads=[1])))
    return ws


def _case_bytes(op, shape) -> int:
    n = int(np.prod(shape))
    return {"add": 12, "sum last": 4, "sum first": 4, "cast f32->f16": 6}.get(op, 8) * n
