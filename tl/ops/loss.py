"""Loss tl.ops composed from the library's kernels: nll_loss (negative log-likelihood over
log-probabilities; cross_entropy in nn.py is log_softmax followed by the same gather) and
the pointwise losses of torch.nn.functional: mse_loss, l1_loss, smooth_l1_loss, huber_loss,
binary_cross_entropy, binary_cross_entropy_with_logits, kl_div (reduction "mean", "sum" or
"none"; inputs of one float dtype and one shape).

Semantics follow torch.nn.functional.nll_loss and ONNX NegativeLogLikelihoodLoss (opset 13):
loss_i = -w[t_i] * x[i, t_i, d...]; targets equal to ``ignore_index`` contribute 0 and are left
out of the weighted mean, which divides by sum_i w[t_i] (NaN when every target is ignored).
Float dtypes float32/float16/bfloat16; the sums accumulate in float32.
"""
from __future__ import annotations

import numpy as np

from tl.ops.elementwise import add, div, exp, mul, sub
from tl.ops._opmath import opmath
from tl.ops.pointwise import abs as _abs, less, less_equal, log, maximum, neg, not_equal, softplus, where
from tl.ops.data import contiguous, gather, gather_elements
from tl.ops.reduce import mean, reduce_sum
from tl.ops._registry import names_in, public_op


@public_op
@opmath
def nll_loss(input, target, weight=None, ignore_index: int | None = -100, reduction: str = "mean"):
    """Negative log-likelihood loss.

    input: (N, C, d1, ...), (N, C) or unbatched (C,) log-probabilities, float32/float16/bfloat16.
    target: int class indices of shape (N, d1, ...); values in [0, C) or ``ignore_index``
    (None: no class is ignored, ONNX's default).
    weight: optional (C,) per-class weights (input's dtype).
    reduction: "mean" (weighted mean over non-ignored targets), "sum" or "none" (shape of target).
    Returns a scalar array (mean/sum) or an array of target's shape, in input's dtype.
    Errors: ValueError naming the argument for a bad reduction, mismatched shapes or a class
    index out of range (other than ignore_index).
    """
    x = np.asarray(input)
    tgt = np.asarray(target)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"tl.ops.nll_loss: unknown reduction {reduction!r}")
    if x.ndim == 1 and tgt.ndim == 0:               # unbatched (C,) input and a class index, like torch
        r = nll_loss(x[None], tgt[None], weight, ignore_index, reduction)
        return r.reshape(()) if reduction == "none" else r
    if x.ndim < 2:
        raise ValueError(f"tl.ops.nll_loss: input must be (N, C, ...), got shape {x.shape}")
    if tgt.dtype.kind not in "iu":
        raise ValueError(f"tl.ops.nll_loss: target must hold integer class indices, got {tgt.dtype}")
    c = x.shape[1]
    rshape = (x.shape[0],) + x.shape[2:]
    if tgt.shape != rshape:
        raise ValueError(f"tl.ops.nll_loss: target shape {tgt.shape} does not match input {x.shape} "
                         f"(expected {rshape})")
    dt = x.dtype
    wts = np.ones(c, dt) if weight is None else np.asarray(weight, dt)
    if wts.shape != (c,):
        raise ValueError(f"tl.ops.nll_loss: weight has shape {wts.shape}, expected ({c},)")
    lp = np.moveaxis(x, 1, -1).reshape(-1, c)
    tf = tgt.astype(np.int64).reshape(-1)
    valid = np.ones(tf.shape, bool) if ignore_index is None else tf != ignore_index
    if np.any(valid & ((tf < 0) | (tf >= c))):
        raise ValueError(f"tl.ops.nll_loss: target class out of range [0, {c})")
    tsafe = np.where(valid, tf, 0)
    picked = gather_elements(contiguous(lp), tsafe[:, None], 1)[:, 0]
    wt = (gather(wts, tsafe) * valid).astype(dt)
    loss = mul(neg(picked), wt)
    if reduction == "none":
        return loss.reshape(rshape)
    tot = reduce_sum(loss)
    if reduction == "sum":
        return tot
    denom = reduce_sum(wt.astype(np.float32))
    with np.errstate(invalid="ignore", divide="ignore"):
        return div(np.asarray(tot, dt), np.asarray(denom, dt))


def _reduce(loss, reduction, op):
    if reduction == "none":
        return loss
    if reduction == "sum":
        return reduce_sum(loss)
    if reduction == "mean":
        return mean(loss) if loss.size else np.asarray(np.nan, loss.dtype)
    raise ValueError(f"tl.ops.{op}: unknown reduction {reduction!r}")


def _pair(x, y, op):
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        raise ValueError(f"tl.ops.{op}: input shape {x.shape} != target shape {y.shape}")
    if x.dtype != y.dtype:
        raise TypeError(f"tl.ops.{op}: input dtype {x.dtype} != target dtype {y.dtype}")
    return x, y


@public_op
@opmath
def mse_loss(input, target, reduction: str = "mean"):
    """(input - target)^2, reduced."""
    x, y = _pair(input, target, "mse_loss")
    d = sub(x, y)
    return _reduce(mul(d, d), reduction, "mse_loss")


@public_op
def l1_loss(input, target, reduction: str = "mean"):
    """|input - target|, reduced."""
    x, y = _pair(input, target, "l1_loss")
    return _reduce(_abs(sub(x, y)), reduction, "l1_loss")


@public_op
@opmath
def smooth_l1_loss(input, target, reduction: str = "mean", beta: float = 1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target; beta = 0 is L1)."""
    x, y = _pair(input, target, "smooth_l1_loss")
    if beta < 0:
        raise ValueError(f"tl.ops.smooth_l1_loss: beta must be >= 0, got {beta}")
    a = _abs(sub(x, y))
    if beta == 0:
        return _reduce(a, reduction, "smooth_l1_loss")
    b = np.asarray(beta, x.dtype)
    quad = div(mul(mul(a, a), np.asarray(0.5, x.dtype)), b)
    lin = sub(a, np.asarray(0.5 * beta, x.dtype))
    return _reduce(where(less(a, b), quad, lin), reduction, "smooth_l1_loss")


@public_op
@opmath
def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0):
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta)."""
    x, y = _pair(input, target, "huber_loss")
    if delta <= 0:
        raise ValueError(f"tl.ops.huber_loss: delta must be > 0, got {delta}")
    a = _abs(sub(x, y))
    dl = np.asarray(delta, x.dtype)
    quad = mul(mul(a, a), np.asarray(0.5, x.dtype))
    lin = mul(dl, sub(a, np.asarray(0.5 * delta, x.dtype)))
    return _reduce(where(less_equal(a, dl), quad, lin), reduction, "huber_loss")


@public_op
@opmath
def binary_cross_entropy(input, target, weight=None, reduction: str = "mean"):
    """-(y log p + (1 - y) log(1 - p)) * weight, each log clamped at -100 like torch.
    Errors: ValueError when a probability lies outside [0, 1]."""
    p, y = _pair(input, target, "binary_cross_entropy")
    if p.size and (np.nanmin(p) < 0 or np.nanmax(p) > 1):
        raise ValueError("tl.ops.binary_cross_entropy: argument 'input' must hold probabilities in [0, 1]")
    one, lo = np.ones((), p.dtype), np.asarray(-100.0, p.dtype)
    lp = maximum(log(p), lo)
    l1p = maximum(log(sub(one, p)), lo)
    loss = neg(add(mul(y, lp), mul(sub(one, y), l1p)))
    if weight is not None:
        loss = mul(loss, np.asarray(weight, p.dtype))
    return _reduce(loss, reduction, "binary_cross_entropy")


@public_op
@opmath
def binary_cross_entropy_with_logits(input, target, weight=None, reduction: str = "mean", pos_weight=None):
    """(1 - y) x + (1 + (pw - 1) y) softplus(-x), the stable form of BCE on sigmoid(x)."""
    x, y = _pair(input, target, "binary_cross_entropy_with_logits")
    one = np.ones((), x.dtype)
    sp = softplus(neg(x))
    lw = one if pos_weight is None else add(one, mul(sub(np.asarray(pos_weight, x.dtype), one), y))
    loss = add(mul(sub(one, y), x), mul(lw, sp))
    if weight is not None:
        loss = mul(loss, np.asarray(weight, x.dtype))
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


@public_op
@opmath
def kl_div(input, target, reduction: str = "mean", log_target: bool = False):
    """target * (log target - input) (0 where target = 0), or exp(t) (t - input) with
    log_target; reduction also "batchmean" (sum / input.shape[0])."""
    x, t = _pair(input, target, "kl_div")
    if log_target:
        loss = mul(exp(t), sub(t, x))
    else:
        zero = np.zeros((), x.dtype)
        nz = not_equal(t, zero)                  # t = 0 gives 0; t < 0 gives NaN (log), like torch's xlogy
        safe = where(nz, t, np.ones((), x.dtype))
        loss = where(nz, mul(t, sub(log(safe), x)), mul(t, zero))
    if reduction == "batchmean":
        return div(reduce_sum(loss), np.asarray(x.shape[0] if x.ndim else 1, x.dtype))
    return _reduce(loss, reduction, "kl_div")


__all__ = names_in(__name__)
