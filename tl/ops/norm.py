"""Normalisations composed from the library's kernels: instance_norm, group_norm (ONNX
InstanceNormalization / GroupNormalization-21, torch.nn.functional.instance_norm / group_norm
in inference form), lp_normalize (ONNX LpNormalization, torch.nn.functional.normalize without
eps) and mean_variance_normalization (ONNX MeanVarianceNormalization).

Statistics come from the layer_norm kernel (ops/norm.py: two passes, float32 Neumaier sums,
biased variance) over rows of the reshaped input; the per-channel affine is one broadcast
multiply-add. Float dtypes float32/float16/bfloat16. Errors: ValueError naming the argument.

Also softmax / log_softmax (row kernels, ops/short_rows.py for rows of 2-32 elements),
layer_norm and rms_norm over the last axis (ops/norm.py), normalize, cosine_similarity and
pairwise_distance.
"""
from __future__ import annotations

import numpy as np

from tl.ops._core import _arr, _axis_last, _BY_NAME, _dest, _launch, _out, _shape2d, _to2d, _writable_view
from tl.ops.elementwise import add, div, mul, sub
from tl.ops._opmath import opmath
from tl.ops.pointwise import abs as _abs, equal, maximum, sqrt, where
from tl.ops.data import contiguous, permute
from tl.ops.reduce import _short_block, reduce_sum
from tl.ops._registry import names_in, public_op


def _affine(y, weight, bias, c, nd, name):
    """y (N, C, ...) * weight[c] + bias[c] (either may be None)."""
    shape = (c,) + (1,) * (nd - 2)
    for v, what in ((weight, "weight"), (bias, "bias")):
        if v is not None and np.asarray(v).shape != (c,):
            raise ValueError(f"tl.ops.{name}: {what} has shape {np.asarray(v).shape}, expected ({c},)")
    if weight is not None:
        y = mul(y, np.asarray(weight, y.dtype).reshape(shape))
    if bias is not None:
        y = add(y, np.asarray(bias, y.dtype).reshape(shape))
    return y


def _rows_norm(x, rows, eps):
    """layer_norm over the rows of x reshaped to (rows, -1), reshaped back."""
    flat = contiguous(x).reshape(rows, -1)
    if flat.shape[1] == 0:
        return np.empty(x.shape, x.dtype)
    return layer_norm(flat, None, None, eps).reshape(x.shape)


@public_op
@opmath
def instance_norm(x, weight=None, bias=None, eps: float = 1e-5):
    """(x - mean) / sqrt(var + eps) * weight[c] + bias[c], statistics over the spatial axes of
    each (n, c). x: (N, C, d1, ...) with at least one spatial axis; weight, bias: (C,)."""
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"tl.ops.instance_norm: x must be (N, C, d1, ...), got shape {x.shape}")
    y = _rows_norm(x, x.shape[0] * x.shape[1], eps)
    return _affine(y, weight, bias, x.shape[1], x.ndim, "instance_norm")


@public_op
@opmath
def group_norm(x, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """Group normalisation: channels split into ``num_groups`` groups, statistics over each
    (n, group) across its channels and spatial axes; then weight[c], bias[c] per channel.
    x: (N, C, ...) with C divisible by num_groups; weight, bias: (C,)."""
    x = np.asarray(x)
    g = int(num_groups)
    if x.ndim < 2 or g <= 0 or x.shape[1] % g:
        raise ValueError(f"tl.ops.group_norm: num_groups={num_groups} must divide the channels of x "
                         f"(shape {x.shape})")
    y = _rows_norm(x, x.shape[0] * g, eps)
    return _affine(y, weight, bias, x.shape[1], max(x.ndim, 2), "group_norm")


def _lp_norm(x, p, axis, keepdims, op):
    """||x||_p along ``axis`` for p = 1 or 2 (float32 sums)."""
    if p not in (1, 2):
        raise ValueError(f"tl.ops.{op}: p must be 1 or 2, got {p}")
    n = reduce_sum(_abs(x) if p == 1 else mul(x, x), axis, keepdims=keepdims)
    return sqrt(n) if p == 2 else n


@public_op
@opmath
def lp_normalize(x, p: int = 2, axis: int = -1):
    """x / ||x||_p along ``axis`` (p = 1 or 2); a zero norm gives 0 (ONNX LpNormalization)."""
    x = np.asarray(x)
    n = _lp_norm(x, p, axis, True, "lp_normalize")
    zero = np.zeros((), x.dtype)
    return where(equal(n, zero), zero, div(x, n))


@public_op
@opmath
def mean_variance_normalization(x, axes=(0, 2, 3)):
    """(x - mean) / sqrt(var) over ``axes`` (biased variance; ONNX MeanVarianceNormalization,
    whose reference adds no epsilon: constant slices give NaN)."""
    x = np.asarray(x)
    axes = tuple(sorted(int(a) % x.ndim for a in axes))
    rest = tuple(a for a in range(x.ndim) if a not in axes)
    xt = permute(x, rest + axes)
    rows = int(np.prod([x.shape[a] for a in rest], dtype=np.int64))
    y = _rows_norm(xt, rows, 0.0)
    return contiguous(np.transpose(y, np.argsort(rest + axes)))


# ----------------------------------------------------------------------------- torch.nn.functional vector norms
@public_op
@opmath
def normalize(x, p: float = 2.0, axis: int = 1, eps: float = 1e-12):
    """x / max(||x||_p, eps) along ``axis`` (torch.nn.functional.normalize; p = 1 or 2)."""
    x = np.asarray(x)
    n = _lp_norm(x, p, axis, True, "normalize")
    return div(x, maximum(n, np.asarray(eps, x.dtype)))


@public_op
@opmath
def cosine_similarity(x1, x2, axis: int = 1, eps: float = 1e-8):
    """sum(x1 x2) / sqrt(max(sum(x1^2) sum(x2^2), eps^2)) along ``axis`` (torch's form);
    x1 and x2 broadcast."""
    a, b = np.asarray(x1), np.asarray(x2)
    w = reduce_sum(mul(a, b), axis)
    n = mul(reduce_sum(mul(a, a), axis), reduce_sum(mul(b, b), axis))
    return div(w, sqrt(maximum(n, np.asarray(eps * eps, w.dtype))))


@public_op
@opmath
def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """||x1 - x2 + eps||_p over the last axis (p = 1 or 2)."""
    a, b = np.asarray(x1), np.asarray(x2)
    d = add(sub(a, b), np.asarray(eps, a.dtype))
    return _lp_norm(d, p, -1, keepdim, "pairwise_distance")


def _rowwise(kernel: str, op: str, x, axis, out):
    x, dt = _arr(x, "x", op)
    out = _out(out, x.shape, dt, op)
    if out.size == 0:
        return out
    ax, xm = _axis_last(x, axis, op)
    if xm.shape[-1] == 1:
        # one element per row: softmax is exp(0) / 1 = 1 and log_softmax 0 - log(1) = +0, both
        # NaN where x is +-inf or NaN (x - max is inf - inf or NaN), i.e. (x - x) [+ 1]: two
        # flat elementwise launches instead of one program per one-element row
        sub(x, x, out=out)
        if kernel == "softmax":
            add(out, np.ones((), out.dtype), out=out)
        return out
    om = np.moveaxis(out, ax, -1) if out.ndim else out
    o2, wb = _dest(om, _shape2d(om.shape))
    bn = _short_block(xm.shape[-1])
    if bn:   # short rows: 32 whole rows per program (ops/short_rows.py)
        _launch(f"softmax_short__BN_{bn}__DT_{dt}__LOG_{int(kernel == 'log_softmax')}", _to2d(xm), o2)
    else:
        _launch(f"{kernel}__DT_{dt}", _to2d(xm), o2)
    if wb:
        wb()
    return out


@public_op
def softmax(x, axis: int = -1, out=None):
    """exp(x - max) / sum(exp(x - max)) along ``axis``; a row of all -inf gives NaN."""
    return _rowwise("softmax", "softmax", x, axis, out)


@public_op
def log_softmax(x, axis: int = -1, out=None):
    """(x - max) - log(sum(exp(x - max))) along ``axis``."""
    return _rowwise("log_softmax", "log_softmax", x, axis, out)


def _param(p, n: int, dt: str, arg: str, op: str, fill: float):
    if p is None:
        return np.full((n,), fill, _BY_NAME[dt])
    p, pd = _arr(p, arg, op)
    if pd != dt:
        raise TypeError(f"tl.ops.{op}: argument '{arg}' has dtype {pd}, expected {dt} (the dtype of 'x')")
    if p.shape != (n,):
        raise ValueError(f"tl.ops.{op}: argument '{arg}' has shape {p.shape}, expected ({n},)")
    return p


@public_op
def layer_norm(x, weight=None, bias=None, eps: float = 1e-5, out=None):
    """(x - mean) / sqrt(var + eps) * weight + bias over the last axis (biased variance, two
    passes). weight/bias: shape (x.shape[-1],), the dtype of x, default ones/zeros."""
    x, dt = _arr(x, "x", "layer_norm")
    if x.ndim == 0:
        raise ValueError("tl.ops.layer_norm: argument 'x' must have at least one axis")
    n = x.shape[-1]
    w = _param(weight, n, dt, "weight", "layer_norm", 1.0)
    b = _param(bias, n, dt, "bias", "layer_norm", 0.0)
    out = _out(out, x.shape, dt, "layer_norm")
    if out.size == 0:
        return out
    o2, wb = _writable_view(out, "2d")
    _launch(f"layer_norm__DT_{dt}", _to2d(x), w, b, o2, float(eps))
    if wb:
        wb()
    return out


@public_op
def rms_norm(x, weight=None, eps: float = 1e-6, out=None):
    """x / sqrt(mean(x^2) + eps) * weight over the last axis; weight: (x.shape[-1],)."""
    x, dt = _arr(x, "x", "rms_norm")
    if x.ndim == 0:
        raise ValueError("tl.ops.rms_norm: argument 'x' must have at least one axis")
    n = x.shape[-1]
    w = _param(weight, n, dt, "weight", "rms_norm", 1.0)
    out = _out(out, x.shape, dt, "rms_norm")
    if out.size == 0:
        return out
    o2, wb = _writable_view(out, "2d")
    _launch(f"rms_norm__DT_{dt}", _to2d(x), w, o2, float(eps))
    if wb:
        wb()
    return out


__all__ = names_in(__name__)
