"""Attention: ``scaled_dot_product_attention`` (PyTorch semantics: the flash_attention kernel of
ops/flash_attention.py where it applies, else matmul + softmax0 in float32) and ONNX
``Attention`` (opsets 23-25) with the operator's own rounding: ``onnx_attention``.

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

import builtins
import math

import numpy as np

from tl.ops._core import _launch, _NAMES
from tl.ops._opmath import opmath
from tl.ops.elementwise import add, cast, div, mul, tanh
from tl.ops.pointwise import where
from tl.ops.data import contiguous
from tl.ops.linalg import mm
from tl.ops._registry import names_in, public_op


# ONNX TensorProto data types accepted for softmax_precision
def _flash_sdpa(q, k, v, attn_mask, is_causal, scale):
    """scaled_dot_product_attention through the flash_attention kernel (ops/flash_attention.py),
    or None where it does not apply (mixed dtypes, head dim > 128, batch dims that differ,
    Hq not a multiple of Hk, a mask that does not broadcast to (..., Hq, L, S))."""
    dt = _NAMES.get(q.dtype)
    if dt not in ("float32", "float16", "bfloat16") or k.dtype != q.dtype or v.dtype != q.dtype:
        return None
    if q.ndim < 2 or k.ndim != q.ndim or v.ndim != q.ndim:
        return None
    q3 = q if q.ndim >= 3 else q[None]
    k3 = k if k.ndim >= 3 else k[None]
    v3 = v if v.ndim >= 3 else v[None]
    lead, hq, L, e = q3.shape[:-3], q3.shape[-3], q3.shape[-2], q3.shape[-1]
    hk, S, ev = k3.shape[-3], k3.shape[-2], v3.shape[-1]
    if (k3.shape[:-3] != lead or v3.shape[:-2] != k3.shape[:-2] or k3.shape[-1] != e or hk == 0
            or hq % hk):
        return None
    d = next((b for b in (32, 64, 128) if builtins.max(e, ev) <= b), None)
    if d is None:
        return None
    bh = int(np.prod(lead, dtype=np.int64)) * hq
    out = np.empty(q.shape[:-1] + (ev,), q.dtype)
    if out.size == 0 or S == 0:
        out[...] = 0
        return out
    sc = 1.0 / math.sqrt(e) if scale is None else float(scale)
    mflag = 0
    mask = np.zeros((1, 1, 1), np.float32)
    if attn_mask is not None:
        am = np.asarray(attn_mask)
        am = np.where(am, np.float32(0), np.float32(-np.inf)) if am.dtype == np.bool_ else am.astype(np.float32)
        try:
            am = np.broadcast_to(am, lead + (hq, L, S))
        except ValueError:
            return None
        mask, mflag = am.reshape(bh, L, S), 1
    mask = np.broadcast_to(mask, (bh, L, S))
    o3 = out.reshape(bh, L, ev)
    _launch(f"flash_attention__CAUSAL_{int(bool(is_causal))}__D_{d}__DT_{dt}__MASK_{mflag}",
            q3.reshape(bh, L, e), contiguous(np.swapaxes(k3.reshape(-1, S, e), 1, 2)), v3.reshape(-1, S, ev), mask, o3,
            np.float32(sc), hq // hk, 0)
    return out


@public_op
def scaled_dot_product_attention(q, k, v, attn_mask=None, is_causal=False, scale=None,
                                 enable_gqa=False):
    """softmax(q k^T * scale + mask) v. q (..., Hq, L, E), k/v (..., Hk, S, E) with Hq a
    multiple of Hk (grouped-query heads are repeated when Hq != Hk). attn_mask: bool (True =
    attend) or additive float, broadcast to (..., L, S). A fully masked row gives 0 (docs/semantics.md#c-11)."""
    q, k, v = np.asarray(q), np.asarray(k), np.asarray(v)
    hq0, hk0 = q.shape[-3] if q.ndim >= 3 else 1, k.shape[-3] if k.ndim >= 3 else 1
    if hk0 == 0 or hq0 % hk0:
        raise ValueError(f"tl.ops.scaled_dot_product_attention: query heads Hq={hq0} must be a "
                         f"multiple of key/value heads Hk={hk0}")
    y = _flash_sdpa(q, k, v, attn_mask, is_causal, scale)
    if y is not None:
        return y
    return _sdpa_composed(q, k, v, attn_mask, is_causal, scale)


@opmath
def _sdpa_composed(q, k, v, attn_mask, is_causal, scale):
    """scaled_dot_product_attention from matmul, softmax0 and elementwise kernels (float32 for
    float16/bfloat16 inputs: scores, softmax and both products unrounded, one rounding at the end)."""
    hq, hk = q.shape[-3] if q.ndim >= 3 else 1, k.shape[-3] if k.ndim >= 3 else 1
    if hq != hk:
        k = np.repeat(k, hq // hk, axis=-3)
        v = np.repeat(v, hq // hk, axis=-3)
    e = q.shape[-1]
    sc = 1.0 / math.sqrt(e) if scale is None else float(scale)
    s = mm(q, np.swapaxes(k, -1, -2))
    s = mul(s, np.asarray(sc, s.dtype))
    L, S = s.shape[-2:]
    if is_causal:
        cm = np.tril(np.ones((L, S), bool))
        s = where(cm, s, np.asarray(-np.inf, s.dtype))
    if attn_mask is not None:
        am = np.asarray(attn_mask)
        if am.dtype == np.bool_:
            s = where(am, s, np.asarray(-np.inf, s.dtype))
        else:
            s = add(s, am.astype(s.dtype))
    s2 = np.ascontiguousarray(s).reshape(-1, S)
    p = np.empty_like(s2)
    if s2.size:
        _launch(f"softmax0__DT_{_NAMES[s2.dtype]}", s2, p)
    return mm(p.reshape(s.shape), v)


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
