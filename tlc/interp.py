"""The NumPy reference interpreter of the tile IR (a debugging tool and a second test oracle).

``interpret_kernel(kernel, args, grid=None, constexprs=None)`` runs every program of the grid.
``kernel`` is a ``tl.kernel`` KernelFunction or an :class:`ir.Kernel` (straight from the
frontend or after passes up to, not including, fusion). ``args`` are the runtime parameters in
order: NumPy arrays for tensors (any strides; stores write into them in place; bfloat16 tensors
as uint16 arrays of raw bits, or ml_dtypes.bfloat16 when installed) and Python numbers for
scalars. The grid: an explicit ``grid`` (int or 1..3-tuple) wins, else the kernel's grid rule
evaluated on the args; programs run in row-major order of (pid2, pid1, pid0).

Semantics (docs: ir.OPCODES): tile lanes are held in ``DType.compute`` (float16/bfloat16 in
float32, rounded at casts and stores; bool/int8/int32 in int32 (bool kept as numpy bool)).
Loads are bounds-safe (lanes outside the tensor or masked off read ``other``, else 0); stores
drop them. Integer ``//``/``%`` floor (Python), ``truncdiv``/``fmod`` truncate (C); INT_MIN // -1
wraps; division by zero gives 0 for integers. ``maximum``/``minimum`` are IEEE-754-2019 (NaN
propagates, min(-0, +0) = -0). ``dot`` accumulates k ascending in float32 with fused multiply-add
(products exact in float64, one rounding per step). Float ``sum`` is computed in float64 and
rounded once (float16/bfloat16 results stay in float32 lanes). ``const``/``full`` values are
rounded to their dtype (a float16 literal 0.1 is float16(0.1)). argmax/argmin: first index wins; NaN is both max and min (first NaN wins).
Transcendentals are computed in float64 and rounded to float32.
"""
from __future__ import annotations

import math

import numpy as np

from tlc.lower import ir
from tlc.lower.dtypes import DType

try:  # pragma: no cover - optional
    import ml_dtypes
    _BF16 = np.dtype(ml_dtypes.bfloat16)
except ImportError:  # pragma: no cover
    _BF16 = None

_COMPUTE_NP = {DType.bool: np.bool_, DType.int8: np.int32, DType.int32: np.int32,
               DType.int64: np.int64, DType.float16: np.float32, DType.bfloat16: np.float32,
               DType.float32: np.float32}
_STORAGE_NP = {DType.bool: np.bool_, DType.int8: np.int8, DType.int32: np.int32,
               DType.int64: np.int64, DType.float16: np.float16, DType.bfloat16: np.uint16,
               DType.float32: np.float32}
_erf = np.vectorize(math.erf, otypes=[np.float64])
_gelu = np.vectorize(lambda v: 0.5 * v * math.erfc(-v / math.sqrt(2.0)), otypes=[np.float64])


class InterpError(RuntimeError):
    """Bad arguments to the interpreter (wrong count, dtype, rank) or a missing grid."""


# ----------------------------------------------------------------------------- dtype helpers
def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """Round-to-nearest-even float32 -> bfloat16 raw bits (NaN stays NaN)."""
    x = np.ascontiguousarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(x)
    return np.where(nan, ((u >> 16) | 0x40).astype(np.uint16), r)


def round_to(x: np.ndarray, d: DType) -> np.ndarray:
    """Converts compute-held values to dtype ``d`` (rounding/wrapping), returned compute-held."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        if d is DType.bool:
            return x != 0
        if d.is_float:
            x32 = x.astype(np.float32)
            if d is DType.float16:
                return x32.astype(np.float16).astype(np.float32)
            if d is DType.bfloat16:
                return bf16_to_f32(f32_to_bf16(x32))
            return x32
        if x.dtype.kind == "f":
            x = np.trunc(np.nan_to_num(x.astype(np.float64), nan=0.0))
            info = np.iinfo(_STORAGE_NP[d])
            x = np.clip(x, info.min, info.max)
        return x.astype(np.int64).astype(_STORAGE_NP[d]).astype(_COMPUTE_NP[d])


def _to_storage(x: np.ndarray, d: DType) -> np.ndarray:
    x = round_to(x, d)
    if d is DType.bfloat16:
        return f32_to_bf16(x)
    return x.astype(_STORAGE_NP[d])


def _from_storage(x: np.ndarray, d: DType) -> np.ndarray:
    if d is DType.bfloat16:
        if x.dtype == np.uint16:
            return bf16_to_f32(x)
        return np.asarray(x).astype(np.float32)
    return np.asarray(x).astype(_COMPUTE_NP[d])


# ----------------------------------------------------------------------------- values
class View:
    """A tensor (NumPy array) with int64 offsets per axis."""

    __slots__ = ("array", "offsets", "dtype")

    def __init__(self, array, offsets, dtype):
        self.array, self.offsets, self.dtype = array, tuple(offsets), dtype

    def indices(self, shape):
        """Per-axis index vectors (broadcastable) and the in-bounds mask for a tile ``shape``."""
        idx, valid = [], np.ones(shape, bool)
        for ax, (o, n) in enumerate(zip(self.offsets, shape)):
            v = np.arange(n, dtype=np.int64) + np.int64(o)
            v = v.reshape([-1 if i == ax else 1 for i in range(len(shape))])
            valid = valid & (v >= 0) & (v < self.array.shape[ax])
            idx.append(v)
        return idx, valid


def _ieee_max(a, b):
    r = np.maximum(a, b)
    if r.dtype.kind == "f":
        z = (a == 0) & (b == 0)
        if np.any(z):
            r = np.where(z, a + b, r)
    return r


def _ieee_min(a, b):
    r = np.minimum(a, b)
    if r.dtype.kind == "f":
        z = (a == 0) & (b == 0)
        if np.any(z):
            r = np.where(z, -((-a) + (-b)), r)
    return r


def _floordiv(a, b):
    if a.dtype.kind == "f":
        return np.floor_divide(a, b)
    zero = b == 0
    bb = np.where(zero, 1, b)
    return np.where(zero, 0, np.floor_divide(a, bb)).astype(a.dtype)


def _mod(a, b):
    if a.dtype.kind == "f":
        return np.remainder(a, b)
    zero = b == 0
    return np.where(zero, 0, np.remainder(a, np.where(zero, 1, b))).astype(a.dtype)


def _truncdiv(a, b):
    if a.dtype.kind == "f":
        return np.trunc(a / b).astype(a.dtype)
    zero = b == 0
    bb = np.where(zero, 1, b)
    q = np.floor_divide(a, bb)
    r = np.remainder(a, bb)
    q = np.where((r != 0) & ((a < 0) != (bb < 0)), q + 1, q)
    return np.where(zero, 0, q).astype(a.dtype)


def _fmod(a, b):
    if a.dtype.kind == "f":
        return np.fmod(a, b)
    zero = b == 0
    return np.where(zero, 0, np.fmod(a, np.where(zero, 1, b))).astype(a.dtype)


def _f64(fn):
    return lambda x: fn(x.astype(np.float64)).astype(np.float32)


_UNARY = {
    "neg": np.negative, "abs": np.abs, "exp": _f64(np.exp), "log": _f64(np.log),
    "sqrt": _f64(np.sqrt), "rsqrt": _f64(lambda x: 1.0 / np.sqrt(x)), "tanh": _f64(np.tanh),
    "erf": _f64(lambda x: _erf(x) if x.size else x),
    "gelu": _f64(lambda x: _gelu(x) if x.size else x), "sigmoid": _f64(lambda x: 1.0 / (1.0 + np.exp(-x))),
    "floor": np.floor, "ceil": np.ceil, "isnan": np.isnan,
    "not": lambda x: np.logical_not(x) if x.dtype == np.bool_ else np.invert(x),
}
_BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "floordiv": _floordiv, "mod": _mod, "truncdiv": _truncdiv, "fmod": _fmod,
    "maximum": _ieee_max, "minimum": _ieee_min, "pow": np.power,
    "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
    "eq": np.equal, "ne": np.not_equal,
    "and": lambda a, b: np.logical_and(a, b) if a.dtype == np.bool_ else np.bitwise_and(a, b),
    "or": lambda a, b: np.logical_or(a, b) if a.dtype == np.bool_ else np.bitwise_or(a, b),
    "xor": lambda a, b: np.logical_xor(a, b) if a.dtype == np.bool_ else np.bitwise_xor(a, b),
}


def _reduce(x, op, axis, keepdims, dtype):
    if op in ("argmax", "argmin"):
        r = (np.argmax if op == "argmax" else np.argmin)(x, axis=axis)
        r = r.astype(np.int32)
        return np.expand_dims(r, axis) if keepdims else r
    if op == "sum":
        if x.dtype.kind == "f":   # float16/bfloat16 sums stay in float32 lanes (no rounding)
            return np.sum(x.astype(np.float64), axis=axis, keepdims=keepdims).astype(np.float32)
        return round_to(np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims), dtype)
    f = np.maximum if op == "max" else np.minimum
    r = f.reduce(x, axis=axis, keepdims=keepdims)
    if x.dtype.kind == "f":
        zero = r == 0
        if np.any(zero):
            pos = np.any((x == 0) & ~np.signbit(x), axis=axis, keepdims=keepdims)
            neg = np.any((x == 0) & np.signbit(x), axis=axis, keepdims=keepdims)
            signed = np.where(pos, 0.0, -0.0) if op == "max" else np.where(neg, -0.0, 0.0)
            r = np.where(zero, signed.astype(r.dtype), r)
    return r


def _dot(a, b, acc, out_dtype):
    m, n = a.shape[0], b.shape[1]
    if a.dtype.kind != "f":
        r = a.astype(np.int64) @ b.astype(np.int64)
        if acc is not None:
            r = r + acc.astype(np.int64)
        return round_to(r, out_dtype)
    c = np.zeros((m, n), np.float32) if acc is None else acc.astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    for k in range(a.shape[1]):
        c = (c.astype(np.float64) + a64[:, k:k + 1] * b64[k:k + 1, :]).astype(np.float32)
    return c   # a float16/bfloat16 out_dtype stays in float32 lanes until a cast or store


# ----------------------------------------------------------------------------- execution
class _Program:
    def __init__(self, pid, nprog):
        self.pid, self.nprog = pid, nprog

    def run_block(self, block: ir.Block, env: dict, args) -> list:
        for a, v in zip(block.args, args):
            env[a] = v
        for op in block.ops:
            if op.opcode == "yield":
                return [env[o] for o in op.operands]
            env[op] = self.eval(op, env)
        return []

    def eval(self, op: ir.Op, env: dict):
        oc = op.opcode
        xs = [env[o] for o in op.operands]
        t = op.type
        with np.errstate(all="ignore"):
            if oc in _BINARY:
                return np.asarray(_BINARY[oc](xs[0], xs[1]))
            if oc in _UNARY:
                return np.asarray(_UNARY[oc](xs[0]))
            if oc == "const":
                return round_to(np.asarray(op.attr("value")), t.dtype)[()]
            if oc == "program_id":
                return np.int64(self.pid[op.attr("axis")])
            if oc == "num_programs":
                return np.int64(self.nprog[op.attr("axis")])
            if oc == "dim":
                v, ax = xs[0], op.attr("axis")
                return np.int64(v.array.shape[ax] - v.offsets[ax])
            if oc == "where":
                return np.where(xs[0], xs[1], xs[2])
            if oc == "fma":   # exact product in float64, then the sum rounded (twice: 53, 24 bits)
                r = round_to(np.asarray(xs[0], np.float64) * xs[1] + np.asarray(xs[2], np.float64), t.dtype)
                return r[()] if r.ndim == 0 else r
            if oc == "cast":
                return round_to(xs[0], t.dtype)
            if oc == "splat":
                return np.full(t.shape, xs[0], _COMPUTE_NP[t.dtype])
            if oc == "broadcast":
                return np.broadcast_to(xs[0], t.shape).copy()
            if oc == "arange":
                return np.arange(op.attr("start"), op.attr("stop"), dtype=np.int32)
            if oc == "full":
                return round_to(np.full(t.shape, op.attr("value")), t.dtype)
            if oc == "view":
                v = xs[0]
                return View(v.array, [o + int(d) for o, d in zip(v.offsets, xs[1:])], v.dtype)
            if oc == "load":
                return self.load(op, xs)
            if oc == "store":
                return self.store(op, xs)
            if oc == "dot":
                return _dot(xs[0], xs[1], xs[2] if op.attr("has_acc") else None, t.dtype)
            if oc == "reduce":
                return _reduce(xs[0], op.attr("op"), op.attr("axis"), op.attr("keepdims"), t.dtype)
            if oc == "reshape":
                return np.reshape(xs[0], t.shape)
            if oc == "item":
                return xs[0].reshape(-1)[0]
            if oc == "trans":
                return np.transpose(xs[0], op.attr("perm")).copy()
            if oc == "getitem":
                return xs[0][op.attr("index")]
            if oc == "for":
                return self.loop(op, xs, env)
            if oc == "if":
                region = op.regions[0] if bool(xs[0]) else op.regions[1]
                return tuple(self.run_block(region, env, []))
        raise InterpError(f"the interpreter does not run opcode {oc!r} (run it before fusion)")

    def loop(self, op, xs, env):
        lo, hi, step = (int(v) for v in xs[:3])
        carried = list(xs[3:])
        for i in range(lo, hi, step):
            carried = self.run_block(op.regions[0], env, [np.int64(i)] + carried)
        return tuple(carried)

    def load(self, op, xs):
        view: View = xs[0]
        shape = op.attr("shape")
        idx, valid = view.indices(shape)
        i = 1
        if op.attr("has_mask"):
            valid = valid & xs[i]
            i += 1
        other = xs[i] if op.attr("has_other") else 0
        clipped = [np.clip(v, 0, max(n - 1, 0)) for v, n in zip(idx, view.array.shape)]
        dtype = _COMPUTE_NP[view.dtype]
        if view.array.size == 0:
            vals = np.zeros(shape, dtype)
        else:
            vals = _from_storage(view.array[tuple(clipped)], view.dtype)
        return np.where(valid, vals, np.asarray(other, dtype)).astype(dtype)

    def store(self, op, xs):
        view: View = xs[0]
        value = np.broadcast_to(xs[1], op.operands[1].type.shape)
        idx, valid = view.indices(value.shape)
        if op.attr("has_mask"):
            valid = valid & xs[2]
        full = [np.broadcast_to(v, value.shape)[valid] for v in idx]
        if full and full[0].size:
            view.array[tuple(full)] = _to_storage(value[valid], view.dtype)
        return None


def _check_args(kernel: ir.Kernel, args):
    params = kernel.runtime_params
    if len(args) != len(params):
        raise InterpError(f"{kernel.name} takes {len(params)} runtime arguments "
                          f"({', '.join(p.name for p in params)}), got {len(args)}")
    values = []
    for p, a in zip(params, args):
        if p.kind == "tensor":
            if not isinstance(a, np.ndarray):
                raise InterpError(f"argument `{p.name}` must be a NumPy array, got {type(a).__name__}")
            want = np.dtype(_STORAGE_NP[p.dtype])
            ok = a.dtype == want or (p.dtype is DType.bfloat16 and _BF16 is not None and a.dtype == _BF16)
            if not ok:
                raise InterpError(f"argument `{p.name}` must have dtype {p.dtype} "
                                  f"(numpy {want}), got {a.dtype}")
            if a.ndim != p.rank:
                raise InterpError(f"argument `{p.name}` must have rank {p.rank}, got {a.ndim}")
            if p.dtype is DType.bfloat16 and a.dtype != np.uint16:
                a = a.view(np.uint16)
            values.append(View(a, (0,) * a.ndim, p.dtype))
        else:
            values.append(np.asarray(a, _COMPUTE_NP[p.dtype])[()])
    _check_dims(kernel, args)
    _check_overlap(kernel, args)
    return values


def _check_dims(kernel: ir.Kernel, args) -> None:
    """The shape contract (``tl.tensor(DT, ("M", "N"))``), as the runtime checks it at launch
    (libtl_runtime/src/launch.c check_dims), with the same messages."""
    seen: dict[str, tuple[int, str, int]] = {}
    for p, a in zip(kernel.runtime_params, args):
        if p.kind != "tensor" or p.dims is None:
            continue
        for axis, (d, n) in enumerate(zip(p.dims, a.shape)):
            if isinstance(d, int):
                if n != d:
                    raise InterpError(f"kernel {kernel.name}: argument '{p.name}' axis {axis} is {n} but the "
                                      f"kernel's signature fixes it to {d}")
            elif d not in seen:
                seen[d] = (n, p.name, axis)
            elif seen[d][0] != n:
                m, other, oaxis = seen[d]
                raise InterpError(f"kernel {kernel.name}: argument '{p.name}' axis {axis} ({d}) is {n} but "
                                  f"argument '{other}' axis {oaxis} ({d}) is {m}")


def _check_overlap(kernel: ir.Kernel, args) -> None:
    """The runtime's aliasing checks (libtl_runtime/src/launch.c), with the same messages: a
    written tensor may not have a stride 0 on an axis of extent > 1, nor overlap another argument
    unless it is the exact same view."""
    from tlc.lower.passes.infer_access import _kernel as infer_access
    params = [p for p in infer_access(kernel).params if p.kind != "constexpr"]
    tensors = [(i, p, a) for i, (p, a) in enumerate(zip(params, args)) if p.kind == "tensor" and a.size > 0]
    for i, p, a in tensors:
        if p.access not in ("write", "readwrite"):
            continue
        for d in range(a.ndim):
            if a.shape[d] > 1 and a.strides[d] == 0:
                raise InterpError(f"kernel {kernel.name}: argument '{p.name}' (#{i}): is written by the kernel "
                                  f"but has stride 0 on axis {d} (extent {a.shape[d]}), so distinct elements "
                                  f"alias; pass a tensor that does not overlap itself (e.g. a contiguous copy)")
        for j, q, b in tensors:
            if j == i or not np.may_share_memory(a, b):
                continue
            same = (a.__array_interface__["data"][0] == b.__array_interface__["data"][0] and a.dtype == b.dtype
                    and a.shape == b.shape and all(a.strides[d] == b.strides[d] for d in range(a.ndim)
                                                   if a.shape[d] > 1))
            if not same:
                raise InterpError(f"kernel {kernel.name}: argument '{p.name}' is written by the kernel and overlaps "
                                  f"the memory of argument '{q.name}'; pass non-overlapping tensors (or the exact "
                                  f"same view)")


def _grid(kernel: ir.Kernel, values, grid) -> tuple[int, int, int]:
    if grid is None:
        if kernel.grid is None:
            raise InterpError(f"kernel {kernel.name} has no grid rule; pass grid=(...)")
        grid = tuple(int(v) for v in _Program((0, 0, 0), (1, 1, 1)).run_block(kernel.grid, {}, values))
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3:
        raise InterpError(f"the grid must have 1 to 3 dimensions, got {grid}")
    if any(g < 0 for g in grid):
        raise InterpError(f"kernel {kernel.name}: grid {grid} has a negative size")
    return grid + (1,) * (3 - len(grid))


def _select(kernel_function, args, constexprs) -> ir.Kernel:
    from tlc.parse import parse_file
    name = kernel_function.name
    path = kernel_function.source_file
    if constexprs:
        mod = parse_file(path, only={name})
        for k in mod.kernels:
            if all(dict(k.constexprs).get(n) == v for n, v in constexprs.items()):
                return k
        return parse_file(path, only={name}, overrides=dict(constexprs)).kernels[0]
    mod = parse_file(path, only={name})
    for k in mod.kernels:
        tensors = [p for p in k.runtime_params if p.kind == "tensor"]
        arrays = [a for p, a in zip(k.runtime_params, args) if p.kind == "tensor"]
        if all(isinstance(a, np.ndarray) and (a.dtype == _STORAGE_NP[p.dtype] or
                                              (p.dtype is DType.bfloat16 and a.dtype == _BF16))
               for p, a in zip(tensors, arrays)):
            return k
    return mod.kernels[0]


def interpret_kernel(kernel, args, grid=None, constexprs=None) -> None:
    """Runs ``kernel`` (KernelFunction or ir.Kernel) on ``args`` over the grid (see module doc)."""
    if not isinstance(kernel, ir.Kernel):
        kernel = _select(kernel, args, constexprs)
    values = _check_args(kernel, list(args))
    g = _grid(kernel, values, grid)
    for p2 in range(g[2]):
        for p1 in range(g[1]):
            for p0 in range(g[0]):
                _Program((p0, p1, p2), g).run_block(kernel.body, {}, values)


def interpret_file(path: str, name: str, args, grid=None, constexprs=None) -> None:
    """Parses ``path`` and interprets its kernel instance (or base name) ``name``."""
    from tlc.parse import parse_file
    mod = parse_file(path, only={name}, overrides=dict(constexprs) if constexprs else None)
    exact = [k for k in mod.kernels if k.name == name] or list(mod.kernels)
    if not exact:
        raise InterpError(f"no kernel named {name!r} in {path}")
    interpret_kernel(exact[0], args, grid=grid)
