"""Test harness for the C emitter: a tiny IR builder, gcc compilation of emitted bundles and a
ctypes caller that dlopens a bundle, calls tl_bundle_query and runs kernel entries directly."""
from __future__ import annotations

import ctypes as C
import hashlib
import shlex
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from host_cpu import skip_unless_runs_here
from tl import _runtime as _rt
from tlc.emit_c import emit_bundle
from tlc.lower import ir
from tlc.lower.dtypes import DType
from tlc.backends.cpu import build
from tlc.backends.cpu.targets import X86_64

VARIANTS = {v.isa: v for v in X86_64.variants}
_CACHE = Path(tempfile.gettempdir()) / "tl_emit_c_tests"
# the bundle ABI headers the generated C includes, part of the cache key
_ABI_HEADERS = "".join(p.read_text() for p in sorted((Path(__file__).resolve().parents[2] / "libtl_runtime" /
                                                      "include" / "tl").glob("*.h")))
LOC = ir.Loc("test_kernel.py", 1, 1)


# ------------------------------------------------------------------ IR builder
class B:
    """Collects ops of one block; methods return ops (typed by hand, as the frontend would)."""

    def __init__(self):
        self.ops: list[ir.Op] = []
        self.line = 1

    def _add(self, op):
        self.ops.append(op)
        return op

    def mk(self, opcode, operands=(), type=ir.NONE, regions=(), **attrs):
        self.line += 1
        return self._add(ir.make(opcode, operands, type, ir.Loc("test_kernel.py", self.line, 5), regions, **attrs))

    def const(self, v, dt=DType.int64):
        return self.mk("const", (), ir.ScalarType(dt), value=v)

    def pid(self, a):
        return self.mk("program_id", (), ir.ScalarType(DType.int64), axis=a)

    def view(self, t, *offs):
        return self.mk("view", (t, *offs), t.type)

    def load(self, v, shape, mask=None, other=None, checked=None):
        ops = (v,) + ((mask,) if mask is not None else ()) + ((other,) if other is not None else ())
        return self.mk("load", ops, ir.TileType(v.type.dtype, tuple(shape)), shape=tuple(shape),
                       has_mask=mask is not None, has_other=other is not None,
                       checked=checked or (True,) * len(shape))

    def store(self, v, x, mask=None):
        return self.mk("store", (v, x) + ((mask,) if mask is not None else ()), ir.NONE,
                       has_mask=mask is not None, checked=(True,) * len(x.type.shape))

    def ew(self, opcode, *xs, dtype=None):
        t = xs[-1].type
        if opcode in ir.COMPARISONS or opcode == "isnan":
            dtype = DType.bool
        dt = dtype or t.dtype
        typ = ir.TileType(dt, t.shape) if isinstance(t, ir.TileType) else ir.ScalarType(dt)
        return self.mk(opcode, xs, typ)

    def cast(self, x, dt):
        t = x.type
        typ = ir.TileType(dt, t.shape) if isinstance(t, ir.TileType) else ir.ScalarType(dt)
        return self.mk("cast", (x,), typ, dtype=dt)

    def reduce(self, x, op, axis, keepdims=False):
        shape = list(x.type.shape)
        if keepdims:
            shape[axis] = 1
        else:
            del shape[axis]
        dt = DType.int32 if op in ("argmax", "argmin") else (
            DType.int32 if op == "sum" and x.type.dtype in (DType.bool, DType.int8) else x.type.dtype)
        return self.mk("reduce", (x,), ir.TileType(dt, tuple(shape)), op=op, axis=axis, keepdims=keepdims)

    def dot(self, a, b, acc=None):
        M, N = a.type.shape[0], b.type.shape[1]
        dt = DType.int32 if a.type.dtype is DType.int8 else DType.float32
        return self.mk("dot", (a, b) + ((acc,) if acc is not None else ()), ir.TileType(dt, (M, N)),
                       has_acc=acc is not None, out_dtype=dt)

    def block(self, args=()):
        return ir.Block(tuple(args), tuple(self.ops))


def targ(name, index, dt=DType.float32, rank=1):
    return ir.make("arg", (), ir.TensorType(dt, rank), name=name, index=index)


def sarg(name, index, dt=DType.int64):
    return ir.make("arg", (), ir.ScalarType(dt), name=name, index=index)


def kernel(name, args, body: ir.Block, grid: ir.Block | None = None, workspace=0):
    params = tuple(ir.Param(a.attr("name"), "tensor" if isinstance(a.type, ir.TensorType) else "scalar",
                            a.type.dtype, a.type.rank if isinstance(a.type, ir.TensorType) else 0)
                   for a in args)
    return ir.Kernel(name, params, body, grid, LOC, workspace, name)


# ------------------------------------------------------------------ compile + call
def compile_command(c: Path, so: Path, variant) -> list[str]:
    """The compiler command of :func:`compile_bundle`: the package build's own compiler and flags
    (tlc.backends.cpu.build.cc_for and cflags: BASE_CFLAGS, the variant's ISA flags, the ABI headers),
    linked ``-shared`` with libgcc as a bundle is, into one .so without the aggregator."""
    return [*shlex.split(build.cc_for(variant)), *build.cflags(variant), "-shared", str(c), "-o", str(so), "-lgcc"]


def compile_bundle(kernels, isa) -> Path:
    """The bundle .so of ``kernels`` for ``isa`` (a VARIANTS key, or a Variant), cached by content,
    compile command and the bundle ABI headers it includes (the cache is shared by every checkout
    on the machine: a descriptor layout change must not reuse a .so built against the old one)."""
    variant = VARIANTS[isa] if isinstance(isa, str) else isa
    src = emit_bundle(kernels, variant, "test_kernel.py")
    flags = "\0".join(compile_command(Path("c"), Path("so"), variant))
    h = hashlib.sha256((src + "\0" + flags + "\0" + _ABI_HEADERS).encode()).hexdigest()[:20]
    _CACHE.mkdir(exist_ok=True)
    so = _CACHE / f"{h}-{variant.name}.so"
    _VARIANT_OF[so] = variant
    if not so.exists():
        c = _CACHE / f"{h}-{variant.name}.c"
        c.write_text(src)
        cmd = compile_command(c, Path(str(so) + ".tmp"), variant)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError(f"gcc failed: {' '.join(cmd)}\n{r.stderr[:4000]}")
        Path(str(so) + ".tmp").rename(so)
    return so


# The bundle ABI's ctypes mirror, the one tl._runtime checks against bundle_abi.h with pycparser
# (tests/runtime): a private copy here went stale when the ABI appended fields.
Tensor, Arg, Grid, Param = _rt.tl_tensor_t, _rt.tl_arg_t, _rt.tl_grid_t, _rt.tl_param_t
ENTRY, GRIDFN = _rt.tl_kernel_entry_t, _rt.tl_grid_fn_t
KDesc, Bundle = _rt.tl_kernel_desc_t, _rt.tl_bundle_t


_VARIANT_OF: dict[Path, object] = {}


class Loaded:
    def __init__(self, so: Path, variant=None):
        variant = variant or _VARIANT_OF.get(Path(so))
        if variant is not None:
            skip_unless_runs_here(variant)
        self.lib = C.CDLL(str(so))
        q = self.lib.tl_bundle_query
        q.restype = C.POINTER(Bundle)
        q.argtypes = [C.c_uint32, C.c_void_p]
        self.query = q
        self.bundle = q(1, None).contents
        self.kernels = {self.bundle.kernels[i].name.decode(): self.bundle.kernels[i]
                        for i in range(self.bundle.num_kernels)}

    def __call__(self, name, args, grid=None, programs=None):
        k = self.kernels[name]
        keep, cargs = [], (Arg * max(1, len(args)))()
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                t = Tensor()
                t.data = a.ctypes.data
                for d in range(8):
                    t.shape[d] = a.shape[d] if d < a.ndim else 1
                    t.strides[d] = a.strides[d] // a.itemsize if d < a.ndim else 0
                keep.append(t)
                cargs[i].tensor = C.pointer(t)
            elif isinstance(a, float):
                cargs[i].f64 = a
            else:
                cargs[i].i64 = int(a)
        g = Grid()
        if grid is None:
            assert k.grid, "kernel has no grid rule"
            assert GRIDFN(k.grid)(cargs, C.byref(g)) == 0
        else:
            for d in range(3):
                g.size[d] = grid[d] if d < len(grid) else 1
        n = g.size[0] * g.size[1] * g.size[2]
        ws = np.full(max(64, k.workspace_bytes) + 64, 0x7F, np.uint8)
        base = (ws.ctypes.data + 63) // 64 * 64
        first, last = programs if programs is not None else (0, n)
        rc = ENTRY(k.entry)(cargs, C.byref(g), first, last, C.c_void_p(base))
        assert rc == 0
        return tuple(g.size)


def run(kernels, isa, name, args, grid=None):
    return Loaded(compile_bundle(kernels, isa))(name, args, grid)


def dot_kernel(name, M, K, N, variant, with_acc, micro=True, in_dt=DType.float32, a_at=(0, 0), b_at=(0, 0)):
    """(kernel, ukernel): c[0:M, 0:N] (+)= a[a_at:][:M, :K] @ b[b_at:][:K, :N] with a, b of
    ``in_dt`` and c float32; the dot gets lower_dot's microkernel choice when ``micro``."""
    from tlc.backends.cpu.passes import lower_dot
    a, bb, c = targ("a", 0, in_dt, 2), targ("b", 1, in_dt, 2), targ("c", 2, DType.float32, 2)
    b = B()
    z = b.const(0)
    ta = b.load(b.view(a, b.const(a_at[0]), b.const(a_at[1])), (M, K))
    tb = b.load(b.view(bb, b.const(b_at[0]), b.const(b_at[1])), (K, N))
    acc = b.load(b.view(c, z, z), (M, N)) if with_acc else None
    d = b.dot(ta, tb, acc)
    uk = lower_dot.choose(d, variant) if micro else None
    if uk is not None:
        assert b.ops[-1] is d
        d = b.ops[-1] = d.with_(attrs={**dict(d.attrs), "ukernel": uk})
    b.store(b.view(c, z, z), d)
    return kernel(name, [a, bb, c], b.block([a, bb, c])), uk


def run_micro_and_portable(lib, n, A, Bm, C0, with_acc):
    """[microkernel result, portable-loop result] of the dot kernels mm{n}_1 and mm{n}_0 built by
    :func:`dot_kernel` (C starts as C0 with an accumulator, else NaN)."""
    M, N = C0.shape
    outs = []
    for micro in (1, 0):
        C = C0.copy() if with_acc else np.full((M, N), np.nan, np.float32)
        lib(f"mm{n}_{micro}", [A, Bm, C], grid=(1,))
        outs.append(C)
    return outs
