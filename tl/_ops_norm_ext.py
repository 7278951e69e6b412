"""Normalisations composed from the library's kernels: instance_norm, group_norm (ONNX
InstanceNormalization / GroupNormalization-21, torch.nn.functional.instance_norm / group_norm
in inference form), lp_normalize (ONNX LpNormalization, torch.nn.functional.normalize without
eps) and mean_variance_normalization (ONNX MeanVarianceNormalization).

Statistics come from the layer_norm kernel (ops/norm.py: two passes, float32 Neumaier sums,
biased variance) over rows of the reshaped input; the per-channel affine is one broadcast
multiply-add. Float dtypes float32/float16/bfloat16. Errors: ValueError naming the argument.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o
from tl._opmath import opmath
from tl._ops_reduce import reduce_sum


def _affine(y, weight, bias, c, nd, name):
    """y (N, C, ...) * weight[c] + bias[c] (either may be None)."""
    shape = (c,) + (1,) * (nd - 2)
    for v, what in ((weight, "weight"), (bias, "bias")):
        if v is not None and np.asarray(v).shape != (c,):
            raise ValueError(f"tl.ops.{name}: {what} has shape {np.asarray(v).shape}, expected ({c},)")
    if weight is not None:
        y = _o.mul(y, np.asarray(weight, y.dtype).reshape(shape))
    if bias is not None:
        y = _o.add(y, np.asarray(bias, y.dtype).reshape(shape))
    return y


def _rows_norm(x, rows, eps):
    """layer_norm over the rows of x reshaped to (rows, -1), reshaped back."""
    flat = _o.contiguous(x).reshape(rows, -1)
    if flat.shape[1] == 0:
        return np.empty(x.shape, x.dtype)
    return _o.layer_norm(flat, None, None, eps).reshape(x.shape)


@opmath
def instance_norm(x, weight=None, bias=None, eps: float = 1e-5):
    """(x - mean) / sqrt(var + eps) * weight[c] + bias[c], statistics over the spatial axes of
    each (n, c). x: (N, C, d1, ...) with at least one spatial axis; weight, bias: (C,)."""
    x = np.asarray(x)
    if x.ndim < 3:
        raise ValueError(f"tl.ops.instance_norm: x must be (N, C, d1, ...), got shape {x.shape}")
    y = _rows_norm(x, x.shape[0] * x.shape[1], eps)
    return _affine(y, weight, bias, x.shape[1], x.ndim, "instance_norm")


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
    n = reduce_sum(_o.abs(x) if p == 1 else _o.mul(x, x), axis, keepdims=keepdims)
    return _o.sqrt(n) if p == 2 else n


@opmath
def lp_normalize(x, p: int = 2, axis: int = -1):
    """x / ||x||_p along ``axis`` (p = 1 or 2); a zero norm gives 0 (ONNX LpNormalization)."""
    x = np.asarray(x)
    n = _lp_norm(x, p, axis, True, "lp_normalize")
    zero = np.zeros((), x.dtype)
    return _o.where(_o.equal(n, zero), zero, _o.div(x, n))


@opmath
def mean_variance_normalization(x, axes=(0, 2, 3)):
    """(x - mean) / sqrt(var) over ``axes`` (biased variance; ONNX MeanVarianceNormalization,
    whose reference adds no epsilon: constant slices give NaN)."""
    x = np.asarray(x)
    axes = tuple(sorted(int(a) % x.ndim for a in axes))
    rest = tuple(a for a in range(x.ndim) if a not in axes)
    xt = _o.permute(x, rest + axes)
    rows = int(np.prod([x.shape[a] for a in rest], dtype=np.int64))
    y = _rows_norm(xt, rows, 0.0)
    return _o.contiguous(np.transpose(y, np.argsort(rest + axes)))


__all__ = ["instance_norm", "group_norm", "lp_normalize", "mean_variance_normalization"]


# ----------------------------------------------------------------------------- torch.nn.functional vector norms
@opmath
def normalize(x, p: float = 2.0, axis: int = 1, eps: float = 1e-12):
    """x / max(||x||_p, eps) along ``axis`` (torch.nn.functional.normalize; p = 1 or 2)."""
    x = np.asarray(x)
    n = _lp_norm(x, p, axis, True, "normalize")
    return _o.div(x, _o.maximum(n, np.asarray(eps, x.dtype)))


@opmath
def cosine_similarity(x1, x2, axis: int = 1, eps: float = 1e-8):
    """sum(x1 x2) / sqrt(max(sum(x1^2) sum(x2^2), eps^2)) along ``axis`` (torch's form);
    x1 and x2 broadcast."""
    a, b = np.asarray(x1), np.asarray(x2)
    w = reduce_sum(_o.mul(a, b), axis)
    n = _o.mul(reduce_sum(_o.mul(a, a), axis), reduce_sum(_o.mul(b, b), axis))
    return _o.div(w, _o.sqrt(_o.maximum(n, np.asarray(eps * eps, w.dtype))))


@opmath
def pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """||x1 - x2 + eps||_p over the last axis (p = 1 or 2)."""
    a, b = np.asarray(x1), np.asarray(x2)
    d = _o.add(_o.sub(a, b), np.asarray(eps, a.dtype))
    return _lp_norm(d, p, -1, keepdim, "pairwise_distance")


__all__ += ["normalize", "cosine_similarity", "pairwise_distance"]
