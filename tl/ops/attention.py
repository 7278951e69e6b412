"""ONNX ``Attention`` (opsets 23-25) with the operator's own rounding: ``onnx_attention``.

Semantics decision. ``tl.ops.scaled_dot_product_attention`` follows PyTorch: float16/bfloat16
inputs are computed in float32 by the flash kernel and rounded once, at the output (the more
accurate result). ONNX's Attention computes its intermediate results in the input type T
(its reference rounds to T after each stage), so for float16/bfloat16 the two differ by about
one ulp of T, which ONNX's node-test tolerance (rtol 1e-3) rejects for bfloat16. The ONNX
mapping (tools/tl_onnx_map.py) therefore calls ``onnx_attention``, which materialises the
scores and rounds to T where the ONNX reference does:

    qs = T(q * T(sqrt(scale))), ks = T(k * T(sqrt(scale)))      (scale split over q and k)
    s  = T(qs @ ks^T)                                           qk output mode 0
    s  = T(softcap * T(tanh(T(s / softcap))))  if softcap > 0    mode 1
    s  = T(s + bias)                                            mode 2
    p  = softmax_t(s) (ops/attention.py: T(exp(T(s - max))), sum, T(e / sum)), or a float32
         softmax rounded once when softmax_precision is float32; rows whose bias is all -inf
         give 0                                                 mode 3
    y  = T(p @ v)

Matmuls accumulate in float32 and round once. float32 inputs with no softcap and no qk output
take the flash kernel (every rounding above is then within float32 noise).
"""
from __future__ import annotations

import numpy as np

from tl.ops._core import _launch, _NAMES
from tl.ops.elementwise import add, cast, div, mul, tanh
from tl.ops.pointwise import where
from tl.ops.linalg import mm
from tl.ops.nn import scaled_dot_product_attention
from tl.ops._registry import names_in, public_op


# ONNX TensorProto data types accepted for softmax_precision
_PRECISION = {1: np.float32, 10: np.float16, 11: np.float64}


def _rnd(a, dt):
    """a (any float array) rounded to dt through tl.ops.cast."""
    a = np.asarray(a)
    return a if a.dtype == dt else cast(a, dt)


def _softmax_in(s, dt):
    """Row softmax over the last axis of s (dtype dt), every stage rounded to dt."""
    dn = _NAMES[np.dtype(dt)]
    s2 = np.ascontiguousarray(s).reshape(-1, s.shape[-1])
    out = np.empty_like(s2)
    if s2.size:
        acc = 1 if dn == "bfloat16" else 0
        _launch(f"softmax_t__ACC_{acc}__DT_{dn}", s2, out)
    return out.reshape(s.shape)


def onnx_attention(q, k, v, bias=None, scale=None, softcap=0.0, softmax_precision=None,
                   qk_output_mode=None):
    """ONNX Attention on 4-D tensors: q (B, Hq, L, E), k (B, Hk, S, E), v (B, Hk, S, Ev) of
    one float dtype T (float32/float16/bfloat16), Hq a multiple of Hk (grouped-query heads).
    ``bias``: additive float mask broadcastable to (B, Hq, L, S) (causal/window/padding masks
    already folded in as -inf), or None. ``scale``: None for 1/sqrt(E). ``softcap`` > 0 caps
    the scores with softcap * tanh(s / softcap). ``softmax_precision``: an ONNX TensorProto
    dtype code (1 float32, 10 float16, 11 float64) or None (softmax in T). Returns y
    (B, Hq, L, Ev) of T, or (y, qk) when ``qk_output_mode`` is 0-3 (qk: (B, Hq, L, S) of T).
    Raises ValueError for mismatched shapes, TypeError for other dtypes."""
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    dt = q.dtype
    if _NAMES.get(dt) not in ("float32", "float16", "bfloat16") or k.dtype != dt or v.dtype != dt:
        raise TypeError(f"tl.ops.onnx_attention: q, k, v must share one float dtype, got "
                        f"{q.dtype}, {k.dtype}, {v.dtype}")
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4 or k.shape[:3] != v.shape[:3] or \
            k.shape[-1] != q.shape[-1] or k.shape[0] != q.shape[0] or k.shape[1] == 0 or \
            q.shape[1] % k.shape[1]:
        raise ValueError(f"tl.ops.onnx_attention: bad shapes q {q.shape}, k {k.shape}, v {v.shape}")
    e = q.shape[-1]
    sc = 1.0 / np.sqrt(e) if scale is None else float(scale)
    plain = (dt == np.float32 and not softcap and qk_output_mode is None
             and softmax_precision in (None, 1))
    if plain:
        return scaled_dot_product_attention(q, k, v, None if bias is None else
                                            np.asarray(bias, np.float32), False, sc)
    g = q.shape[1] // k.shape[1]
    if g > 1:
        k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    r = np.asarray(np.sqrt(sc), dt)
    qs, ks = mul(q, r), mul(k, r)
    s = mm(qs, np.swapaxes(ks, -1, -2))
    qk = s
    if softcap and softcap > 0:
        c = np.asarray(softcap, dt)
        s = mul(tanh(div(s, c)), c)
        if qk_output_mode == 1:
            qk = s
    if bias is not None:
        b = np.asarray(bias)
        s = add(s, b.astype(dt) if b.dtype != dt else b)
        dead = np.broadcast_to(np.isneginf(b).all(axis=-1, keepdims=True), s.shape[:-1] + (1,))
    else:
        dead = None
    if qk_output_mode == 2:
        qk = s
    pdt = _PRECISION.get(softmax_precision, dt) if softmax_precision is not None else dt
    if pdt == np.float64:
        pdt = np.float32      # float64 softmax: computed in float32 (no float64 kernels)
    p = _rnd(_softmax_in(_rnd(s, pdt), pdt), dt)
    if dead is not None and dead.any():
        p = where(np.broadcast_to(dead, p.shape), np.asarray(0, dt), p)
    if qk_output_mode == 3:
        qk = p
    y = mm(p, v)
    return (y, qk) if qk_output_mode is not None else y


__all__ = names_in(__name__)
