"""Small linear-algebra ops composed from the matmul, elementwise and copy kernels (torch names):
outer, dot, mv, addmm, diagonal, trace.

float32 (and bfloat16 where matmul takes it) products accumulate in float32 (ops/matmul.py);
outer is one broadcast multiply. Errors: ValueError naming the argument for bad shapes.

Also matmul (ops/matmul.py; the kernel per shape: matmul_rows for few rows, matmul_big tiles,
matmul_gemv where the bundle streams B (tl/ops/_dispatch.py), matmul_bf16), linear (the fused
epilogue kernels of ops/matmul_epilogue.py), mm, gemm, bmm and baddbmm (a's dtype, rounded once).
"""
from __future__ import annotations

import numpy as np

from tl.ops._dispatch import gemv_streams_b, tall_matmul_tiles
from tl.ops._core import _arr, _dest, _FLOATS, _launch, _NAMES, _np, _out
from tl.ops.elementwise import add, cast, gelu, mul, relu, silu
from tl.ops.data import contiguous
from tl.ops.reduce import reduce_sum
from tl.ops._registry import names_in, public_op


def _vec(v, name, op):
    v = np.asarray(v)
    if v.ndim != 1:
        raise ValueError(f"tl.ops.{op}: argument '{name}' must be 1-D, got shape {v.shape}")
    return v


@public_op
def outer(a, b):
    """a[i] * b[j]: (M,), (N,) -> (M, N)."""
    a, b = _vec(a, "a", "outer"), _vec(b, "b", "outer")
    return mul(a[:, None], b[None, :])


@public_op
def dot(a, b):
    """sum(a * b) of two 1-D arrays of one length (float32 accumulation), a 0-d array."""
    a, b = _vec(a, "a", "dot"), _vec(b, "b", "dot")
    if a.shape != b.shape:
        raise ValueError(f"tl.ops.dot: lengths differ: {a.shape[0]} and {b.shape[0]}")
    return np.asarray(matmul(a, b))


@public_op
def mv(m, v):
    """Matrix (M, K) times vector (K,) -> (M,)."""
    m, v = np.asarray(m), _vec(v, "v", "mv")
    if m.ndim != 2 or m.shape[1] != v.shape[0]:
        raise ValueError(f"tl.ops.mv: shapes {m.shape} and {v.shape} do not match")
    return matmul(m, v)


@public_op
def addmm(input, m1, m2, beta: float = 1.0, alpha: float = 1.0):
    """beta * input + alpha * (m1 @ m2) (torch.addmm; input broadcasts to (M, N))."""
    return gemm(m1, m2, input, alpha, beta)


@public_op
def diagonal(x, offset: int = 0, axis1: int = 0, axis2: int = 1):
    """The diagonal ``offset`` of the (axis1, axis2) planes as a new contiguous array (NumPy's
    axis order: the diagonal is the last axis)."""
    return contiguous(np.diagonal(np.asarray(x), offset, axis1, axis2))


@public_op
def trace(x, offset: int = 0):
    """Sum of the diagonal of a 2-D array (float32 accumulation for floats)."""
    x = np.asarray(x)
    if x.ndim != 2:
        raise ValueError(f"tl.ops.trace: x must be 2-D, got shape {x.shape}")
    return reduce_sum(diagonal(x, offset))


_GEMV_MIN = 1 << 20     # k * n from which one-row products use matmul_gemv (B past the L2 cache)


def _gemv(a3, b3, o3, nb: int, n: int) -> int:
    """c = a @ b for one row (a3 (nb, 1, k), b3 (nb, k, n), o3 (nb, 1, n)) by matmul_gemv when a
    BN in (4096, 2048, 1024) divides n with at least one program per thread (the widest such).
    Returns how many columns are left for matmul_rows: 0, or n when none fits. (n = 5000 ran
    0.94x at 1 thread as 4096 columns by matmul_gemv and 904 by matmul_rows: B read in two
    sweeps, and the 256-column strips lose most at power-of-two row strides, not at 20000 bytes.)"""
    from tl import _runtime
    threads = _runtime.num_threads() or 1
    bn = next((w for w in (4096, 2048, 1024) if n % w == 0 and nb * (n // w) >= threads), 0)
    if not bn:
        return n
    _launch(f"matmul_gemv__BN_{bn}", a3, b3, o3)
    return 0


@public_op
def matmul(a, b, out=None):
    """a @ b with NumPy's matmul shapes (1-D promotion, broadcast batch axes). float32 inputs
    give float32; float16 inputs are widened exactly to float32 as the kernel loads its tiles
    and give the float32 product of those values (float32 accumulation, no float16
    intermediate; cast the result once for a float16 answer, as tl.ops.linear does); bfloat16
    inputs accumulate in float32 and give float32 (AVX512_BF16 CPUs sum pairs with vdpbf16ps,
    flushing denormals: see ops/matmul_bf16.py for the accuracy contract). a and b must share
    a dtype (TypeError naming both otherwise)."""
    a, da = _arr(a, "a", "matmul", _FLOATS)
    b, db = _arr(b, "b", "matmul", _FLOATS)
    if da != db:
        raise TypeError(f"tl.ops.matmul: arguments 'a' ({da}) and 'b' ({db}) must have the same dtype")
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("tl.ops.matmul: arguments must have at least one axis")
    a_vec, b_vec = a.ndim == 1, b.ndim == 1
    a3 = a[None, :] if a_vec else a
    b3 = b[:, None] if b_vec else b
    (m, k), (k2, n) = a3.shape[-2:], b3.shape[-2:]
    if k != k2:
        raise ValueError(f"tl.ops.matmul: shapes {a.shape} and {b.shape} are not aligned "
                         f"({k} != {k2})")
    try:
        batch = () if a3.ndim == b3.ndim == 2 else np.broadcast_shapes(a3.shape[:-2], b3.shape[:-2])
    except ValueError:
        raise ValueError(f"tl.ops.matmul: batch axes of {a.shape} and {b.shape} do not broadcast") from None
    shape = batch + ((m,) if not a_vec else ()) + ((n,) if not b_vec else ())
    out = _out(out, shape, "float32", "matmul")
    if out.size == 0:
        return out
    if k == 0:
        out[...] = 0
        return out
    nb = int(np.prod(batch)) if batch else 1

    def to3(t, tail):
        t = np.broadcast_to(t, batch + tail)
        try:
            return np.reshape(t, (nb,) + tail, copy=False)
        except ValueError:
            return np.ascontiguousarray(t).reshape((nb,) + tail)

    if a.ndim == 2 and b.ndim == 2:   # one product: (1, ., .) views, no broadcast or reshape
        a3, b3, o3, wb = a[None], b[None], out[None], None
    else:
        a3, b3 = to3(a3, (m, k)), to3(b3, (k, n))
        o3, wb = _dest(out, (nb, m, n))
    name = f"matmul__DT_{da}"
    if da == "float32" and m == 1 and k * n >= _GEMV_MIN and gemv_streams_b():
        if _gemv(a3, b3, o3, nb, n) == 0:   # n a multiple of 1024: matmul_gemv
            if wb:
                wb()
            return out
    f32_family = da in ("float32", "float16")   # float16 runs the float32 kernels' float16 instances
    if f32_family and m <= 128:   # few rows: stream b once (ops/matmul.py matmul_rows)
        name = f"matmul_rows__BM_{1 if m == 1 else 8 if m <= 8 else 16 if m <= 16 else 32 if m <= 32 else 128}__DT_{da}"
    elif f32_family and n >= 512 and k >= 256 and nb * -(-m // 256) * -(-n // 256) >= 4:
        name = f"matmul_big__BM_256__BN_256__DT_{da}"   # 256 x 256 tiles: A copied half as often (same fma order)
        if m >= 1024 and -(-m // 512) * 2 == -(-m // 256) and tall_matmul_tiles():
            # 512 x 128 tiles: B packed half as often (same fma order); AVX-512 bundles only
            # (the AVX2 bundle ran 0-3% slower with them on Zen 5)
            name = f"matmul_big__BM_512__BN_128__DT_{da}"
    elif da == "bfloat16":   # ops/matmul_bf16.py: vdpbf16ps where the CPU has AVX512_BF16
        name = f"matmul_bf16__BM_{16 if m <= 16 else 64 if m <= 64 else 256}"
    _launch(name, a3, b3, o3)
    if wb:
        wb()
    return out


def _once(y32, dt):
    """A float32 result rounded once to ``dt`` (nothing to do for float32)."""
    return y32 if np.dtype(dt) == np.float32 else cast(y32, dt)


@public_op
def mm(a, b):
    """matmul returning a's dtype: for float16/bfloat16 the float32 product (float32
    accumulation of the exactly widened inputs) rounded once."""
    a = np.asarray(a)
    return _once(matmul(a, b), a.dtype)


@public_op
def gemm(a, b, c=None, alpha: float = 1.0, beta: float = 1.0, trans_a=False, trans_b=False):
    """ONNX Gemm: alpha * A' @ B' + beta * C (C broadcast); float16/bfloat16: computed in
    float32 (each step a float32 op) and rounded once to A's dtype."""
    a = np.asarray(a).T if trans_a else np.asarray(a)
    b = np.asarray(b).T if trans_b else np.asarray(b)
    y = matmul(a, b)
    f32 = np.float32
    if alpha != 1.0:
        y = mul(y, np.asarray(alpha, f32))
    if c is not None and beta != 0.0:
        c = np.asarray(c, f32)
        y = add(y, c if beta == 1.0 else mul(c, np.asarray(beta, f32)))
    return _once(y, a.dtype)


@public_op
def bmm(a, b):
    """Batched (B, M, K) @ (B, K, N), in a's dtype (see mm)."""
    return mm(a, b)


@public_op
def baddbmm(inp, a, b, beta: float = 1.0, alpha: float = 1.0):
    """beta * inp + alpha * (a @ b), in a's dtype: float16/bfloat16 compute in float32 and round once."""
    a = np.asarray(a)
    y = matmul(a, b)
    f32 = np.float32
    if alpha != 1.0:
        y = mul(y, np.asarray(alpha, f32))
    return _once(add(y, mul(np.asarray(inp, f32), np.asarray(beta, f32))), a.dtype)


_ACTIVATIONS = {None: 0, "none": 0, "relu": 1, "gelu": 2, "gelu_tanh": 3, "silu": 4}


@public_op
def linear(x, weight, bias=None, activation=None, residual=None, out=None):
    """act(x @ weight.T + bias) + residual, PyTorch ``nn.functional.linear`` layout, in one fused
    kernel for float32 (ops/matmul_epilogue.py); other float dtypes compose matmul and add.

    x: (..., K); weight: (N, K) (out_features x in_features); bias: (N,) or None;
    activation: None/"none", "relu", "gelu" (erf form), "gelu_tanh", "silu"; residual: the
    result's shape (..., N) or None. Returns (..., N) in x's dtype. float16/bfloat16 (x and
    weight of one dtype): the float32 product of the exactly widened inputs (tl.ops.matmul),
    then bias, activation and residual in float32, rounded once to x's dtype. ValueError for
    bad shapes or an unknown activation; TypeError for unsupported dtypes.
    """
    if activation not in _ACTIVATIONS:
        raise ValueError(f"tl.ops.linear: unknown activation {activation!r}; "
                         f"known: {', '.join(str(k) for k in _ACTIVATIONS)}")
    xa = _np(x, "x", "linear")
    if _NAMES.get(xa.dtype) in ("float16", "bfloat16"):
        return _linear_half(xa, weight, bias, activation, residual, out)
    x, dx = _arr(x, "x", "linear", ("float32",))
    weight, dw = _arr(weight, "weight", "linear", ("float32",))
    if x.ndim < 1 or weight.ndim != 2 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"tl.ops.linear: x {x.shape} and weight {weight.shape} are not aligned "
                         "(weight must be (out_features, in_features))")
    w = weight.T                                 # (K, N) strided view: the kernel takes strides
    k, n = w.shape
    lead = x.shape[:-1]
    m = int(np.prod(lead)) if lead else 1
    b = np.zeros((n,), np.float32) if bias is None else _arr(bias, "bias", "linear", ("float32",))[0]
    if b.shape != (n,):
        raise ValueError(f"tl.ops.linear: bias has shape {b.shape}, expected ({n},)")
    out = _out(out, lead + (n,), "float32", "linear")
    if out.size == 0:
        return out
    if k == 0:
        out[...] = _np_act(np.broadcast_to(b, out.shape).copy(), activation)
        if residual is not None:
            out += residual
        return out
    x2 = np.ascontiguousarray(x).reshape(m, k)
    o2, wb = _dest(out, (m, n))
    if residual is not None:
        r, _ = _arr(residual, "residual", "linear", ("float32",))
        if r.shape != out.shape:
            raise ValueError(f"tl.ops.linear: residual has shape {r.shape}, expected {out.shape}")
        r2 = np.ascontiguousarray(r).reshape(m, n)
    else:
        r2 = np.zeros((1, 1), np.float32)      # not read by the RES=0 instances
    wide = "_wide" if n >= 512 and k >= 256 and -(-m // 256) * -(-n // 256) >= 4 else ""   # 256 x 256 tiles
    _launch(f"linear{wide}__ACT_{_ACTIVATIONS[activation]}__RES_{int(residual is not None)}", x2, w, b, r2, o2)
    if wb:
        wb()
    return out


def _linear_half(x, weight, bias, activation, residual, out):
    """tl.ops.linear for float16/bfloat16 x: float32 throughout, one rounding at the end."""
    dt = _NAMES[x.dtype]
    weight, _ = _arr(weight, "weight", "linear", (dt,))
    if weight.ndim != 2 or x.ndim < 1 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"tl.ops.linear: x {x.shape} and weight {weight.shape} are not aligned "
                         "(weight must be (out_features, in_features))")
    y = matmul(x, weight.T)                                  # float32
    if bias is not None:
        b, _ = _arr(bias, "bias", "linear")
        if b.shape != (weight.shape[0],):
            raise ValueError(f"tl.ops.linear: bias has shape {b.shape}, expected ({weight.shape[0]},)")
        y = add(y, b if b.dtype == np.float32 else cast(b, np.float32), out=y)
    if activation == "relu":
        y = relu(y, out=y)
    elif activation in ("gelu", "gelu_tanh"):
        y = gelu(y, "tanh" if activation == "gelu_tanh" else "none", out=y)
    elif activation == "silu":
        y = silu(y, out=y)
    if residual is not None:
        r, _ = _arr(residual, "residual", "linear")
        if r.shape != y.shape:
            raise ValueError(f"tl.ops.linear: residual has shape {r.shape}, expected {y.shape}")
        y = add(y, r if r.dtype == np.float32 else cast(r, np.float32), out=y)
    return cast(y, dt, out=_out(out, y.shape, dt, "linear"))


def _np_act(v, activation):
    """The activation in NumPy (only for the K == 0 corner, where there is no product)."""
    if activation in (None, "none"):
        return v
    if activation == "relu":
        return np.maximum(v, 0)
    import math
    if activation == "gelu":
        return (0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))).astype(np.float32)
    if activation == "gelu_tanh":
        return (0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))).astype(np.float32)
    return (v / (1 + np.exp(-v))).astype(np.float32)


__all__ = names_in(__name__)
