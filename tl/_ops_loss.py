"""Loss tl.ops composed from the library's kernels: nll_loss (negative log-likelihood over
log-probabilities; cross_entropy in _ops_nn.py is log_softmax followed by the same gather).

Semantics follow torch.nn.functional.nll_loss and ONNX NegativeLogLikelihoodLoss (opset 13):
loss_i = -w[t_i] * x[i, t_i, d...]; targets equal to ``ignore_index`` contribute 0 and are left
out of the weighted mean, which divides by sum_i w[t_i] (NaN when every target is ignored).
Float dtypes float32/float16/bfloat16; the sums accumulate in float32.
"""
from __future__ import annotations

import numpy as np

from tl import ops as _o
from tl import _ops_ew as ew
from tl._ops_data import gather, gather_elements
from tl._ops_reduce import reduce_sum


def nll_loss(input, target, weight=None, ignore_index: int | None = -100, reduction: str = "mean"):
    """Negative log-likelihood loss.

    input: (N, C, d1, ...) or (N, C) log-probabilities, float32/float16/bfloat16.
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
    picked = gather_elements(_o.contiguous(lp), tsafe[:, None], 1)[:, 0]
    wt = (gather(wts, tsafe) * valid).astype(dt)
    loss = _o.mul(ew.neg(picked), wt)
    if reduction == "none":
        return loss.reshape(rshape)
    tot = reduce_sum(loss)
    if reduction == "sum":
        return tot
    denom = reduce_sum(wt.astype(np.float32))
    with np.errstate(invalid="ignore", divide="ignore"):
        return _o.div(np.asarray(tot, dt), np.asarray(denom, dt))


__all__ = ["nll_loss"]
