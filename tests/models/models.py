"""Reference models written twice over one set of NumPy float32 weights: with ``tl.ops``
(``*_tl``) and with ``torch.nn.functional`` on CPU (``*_torch``).

- ResNet-50 (torchvision layout, NCHW, eval-mode batch norm with random running stats),
  ``resnet50_params(rng, classes)`` / ``resnet50_tl(p, x)`` / ``resnet50_torch(p, x)``.
- A BERT-base encoder layer (post-norm, erf GELU, padding mask), ``bert_params`` /
  ``bert_layer_tl(p, x, keep)`` / ``bert_layer_torch``; keep: bool (B, S), True = attend.
- A LLaMA-style decoder layer (pre-norm RMSNorm, half-rotation rotary, grouped-query causal
  attention, SwiGLU MLP), ``llama_params`` / ``llama_layer_tl(p, x, cos, sin)`` /
  ``llama_layer_torch``.
"""
from __future__ import annotations

import numpy as np

import tl.ops as T
from tl.ops import linear as _linear_pt   # PyTorch layout: weight (out, in)

# ----------------------------------------------------------------------------- ResNet-50
STAGES = [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]  # (width, blocks, stride)


def _conv_w(rng, co, ci, k):
    return (rng.standard_normal((co, ci, k, k)) * np.sqrt(2.0 / (ci * k * k))).astype(np.float32)


def _bn(rng, c):
    return dict(w=rng.uniform(0.5, 1.0, c).astype(np.float32), b=rng.uniform(-0.1, 0.1, c).astype(np.float32),
                m=rng.uniform(-0.1, 0.1, c).astype(np.float32), v=rng.uniform(0.5, 1.5, c).astype(np.float32))


def resnet50_params(rng, classes=1000):
    p = {"conv1": _conv_w(rng, 64, 3, 7), "bn1": _bn(rng, 64), "blocks": []}
    cin = 64
    for width, n, stride in STAGES:
        for i in range(n):
            blk = {"stride": stride if i == 0 else 1,
                   "c1": _conv_w(rng, width, cin, 1), "b1": _bn(rng, width),
                   "c2": _conv_w(rng, width, width, 3), "b2": _bn(rng, width),
                   "c3": _conv_w(rng, width * 4, width, 1), "b3": _bn(rng, width * 4)}
            if i == 0:
                blk["cd"] = _conv_w(rng, width * 4, cin, 1)
                blk["bd"] = _bn(rng, width * 4)
            p["blocks"].append(blk)
            cin = width * 4
    p["fc_w"] = (rng.standard_normal((classes, 2048)) / np.sqrt(2048)).astype(np.float32)
    p["fc_b"] = rng.uniform(-0.1, 0.1, classes).astype(np.float32)
    return p


def _bn_tl(x, b, activation=None, residual=None):
    """Inference batch norm with the fused epilogue act(bn(x) + residual) (one pass)."""
    return T.batch_norm(x, b["m"], b["v"], b["w"], b["b"], eps=1e-5, activation=activation, residual=residual)


def resnet50_tl(p, x):
    y = _bn_tl(T.conv2d(x, p["conv1"], stride=2, padding=3), p["bn1"], "relu")
    y = T.max_pool2d(y, 3, 2, 1)
    for blk in p["blocks"]:
        h = _bn_tl(T.conv2d(y, blk["c1"]), blk["b1"], "relu")
        h = _bn_tl(T.conv2d(h, blk["c2"], stride=blk["stride"], padding=1), blk["b2"], "relu")
        sc = _bn_tl(T.conv2d(y, blk["cd"], stride=blk["stride"]), blk["bd"]) if "cd" in blk else y
        y = _bn_tl(T.conv2d(h, blk["c3"]), blk["b3"], "relu", sc)
    y = T.global_avg_pool2d(y).reshape(y.shape[0], -1)
    return _linear_pt(y, p["fc_w"], p["fc_b"])


def resnet50_torch(p, x):
    import torch
    import torch.nn.functional as F
    t = torch.from_numpy

    def bn(x, b):
        return F.batch_norm(x, t(b["m"]), t(b["v"]), t(b["w"]), t(b["b"]), False, 0.0, 1e-5)

    with torch.no_grad():
        y = F.relu(bn(F.conv2d(t(x), t(p["conv1"]), stride=2, padding=3), p["bn1"]))
        y = F.max_pool2d(y, 3, 2, 1)
        for blk in p["blocks"]:
            h = F.relu(bn(F.conv2d(y, t(blk["c1"])), blk["b1"]))
            h = F.relu(bn(F.conv2d(h, t(blk["c2"]), stride=blk["stride"], padding=1), blk["b2"]))
            h = bn(F.conv2d(h, t(blk["c3"])), blk["b3"])
            sc = bn(F.conv2d(y, t(blk["cd"]), stride=blk["stride"]), blk["bd"]) if "cd" in blk else y
            y = F.relu(h + sc)
        y = F.adaptive_avg_pool2d(y, 1).flatten(1)
        return F.linear(y, t(p["fc_w"]), t(p["fc_b"])).numpy()


# ----------------------------------------------------------------------------- BERT-base layer
def _lin(rng, o, i):
    return ((rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32),
            rng.uniform(-0.1, 0.1, o).astype(np.float32))


def bert_params(rng, d=768, heads=12, ff=3072):
    p = {"heads": heads}
    for k, (o, i) in {"q": (d, d), "k": (d, d), "v": (d, d), "o": (d, d), "f1": (ff, d), "f2": (d, ff)}.items():
        p[k + "_w"], p[k + "_b"] = _lin(rng, o, i)
    for k in ("ln1", "ln2"):
        p[k + "_w"] = rng.uniform(0.5, 1.5, d).astype(np.float32)
        p[k + "_b"] = rng.uniform(-0.1, 0.1, d).astype(np.float32)
    return p


def _heads(x, h):
    b, s, d = x.shape
    return x.reshape(b, s, h, d // h).transpose(0, 2, 1, 3)


def bert_layer_tl(p, x, keep):
    b, s, d = x.shape
    h = p["heads"]
    q, k, v = (_heads(_linear_pt(x, p[n + "_w"], p[n + "_b"]), h) for n in "qkv")
    a = T.scaled_dot_product_attention(q, k, v, attn_mask=keep[:, None, None, :])
    a = _linear_pt(T.contiguous(a.transpose(0, 2, 1, 3)).reshape(b, s, d), p["o_w"], p["o_b"])
    y = T.layer_norm(T.add(a, x), p["ln1_w"], p["ln1_b"], 1e-12)
    f = _linear_pt(T.gelu(_linear_pt(y, p["f1_w"], p["f1_b"])), p["f2_w"], p["f2_b"])
    return T.layer_norm(T.add(f, y), p["ln2_w"], p["ln2_b"], 1e-12)


def bert_layer_torch(p, x, keep):
    import torch
    import torch.nn.functional as F
    t = torch.from_numpy
    b, s, d = x.shape
    h = p["heads"]
    with torch.no_grad():
        xt = t(x)
        q, k, v = (F.linear(xt, t(p[n + "_w"]), t(p[n + "_b"])).view(b, s, h, d // h).transpose(1, 2) for n in "qkv")
        a = F.scaled_dot_product_attention(q, k, v, attn_mask=t(keep)[:, None, None, :])
        a = F.linear(a.transpose(1, 2).reshape(b, s, d), t(p["o_w"]), t(p["o_b"]))
        y = F.layer_norm(a + xt, (d,), t(p["ln1_w"]), t(p["ln1_b"]), 1e-12)
        f = F.linear(F.gelu(F.linear(y, t(p["f1_w"]), t(p["f1_b"]))), t(p["f2_w"]), t(p["f2_b"]))
        return F.layer_norm(f + y, (d,), t(p["ln2_w"]), t(p["ln2_b"]), 1e-12).numpy()


# ----------------------------------------------------------------------------- LLaMA layer
def llama_params(rng, d=512, heads=8, kv_heads=2, ff=1408):
    hd = d // heads
    p = {"heads": heads, "kv_heads": kv_heads}
    for k, (o, i) in {"q": (d, d), "k": (kv_heads * hd, d), "v": (kv_heads * hd, d), "o": (d, d),
                      "gate": (ff, d), "up": (ff, d), "down": (d, ff)}.items():
        p[k] = _lin(rng, o, i)[0]
    p["n1"] = rng.uniform(0.5, 1.5, d).astype(np.float32)
    p["n2"] = rng.uniform(0.5, 1.5, d).astype(np.float32)
    return p


def rope_tables(s, hd, base=10000.0):
    """cos, sin of shape (S, hd/2) (float32)."""
    inv = 1.0 / base ** (np.arange(0, hd, 2, dtype=np.float64) / hd)
    ang = np.arange(s)[:, None] * inv[None, :]
    return np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32)


def llama_layer_tl(p, x, cos, sin):
    b, s, d = x.shape
    h, hk = p["heads"], p["kv_heads"]
    xn = T.rms_norm(x, p["n1"], 1e-6)
    q = _heads(_linear_pt(xn, p["q"]), h)
    k = _heads(_linear_pt(xn, p["k"]), hk)
    v = _heads(_linear_pt(xn, p["v"]), hk)
    q, k = T.rotary_embedding(q, cos, sin), T.rotary_embedding(k, cos, sin)
    a = T.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    a = _linear_pt(T.contiguous(a.transpose(0, 2, 1, 3)).reshape(b, s, d), p["o"])
    hn, h1 = T.add_rms_norm(a, x, p["n2"], 1e-6)
    m = _linear_pt(T.swiglu(_linear_pt(hn, p["gate"]), _linear_pt(hn, p["up"])), p["down"])
    return T.add(h1, m)


def llama_layer_torch(p, x, cos, sin):
    import torch
    import torch.nn.functional as F
    t = torch.from_numpy
    b, s, d = x.shape
    h, hk = p["heads"], p["kv_heads"]
    hd = d // h

    def rms(z, w):
        return z * torch.rsqrt(z.pow(2).mean(-1, keepdim=True) + 1e-6) * t(w)

    def rope(z):
        c = torch.cat([t(cos), t(cos)], -1)
        sn = torch.cat([t(sin), t(sin)], -1)
        z1, z2 = z[..., : hd // 2], z[..., hd // 2:]
        return z * c + torch.cat([-z2, z1], -1) * sn

    with torch.no_grad():
        xt = t(x)
        xn = rms(xt, p["n1"])
        q = F.linear(xn, t(p["q"])).view(b, s, h, hd).transpose(1, 2)
        k = F.linear(xn, t(p["k"])).view(b, s, hk, hd).transpose(1, 2)
        v = F.linear(xn, t(p["v"])).view(b, s, hk, hd).transpose(1, 2)
        a = F.scaled_dot_product_attention(rope(q), rope(k), v, is_causal=True, enable_gqa=True)
        h1 = xt + F.linear(a.transpose(1, 2).reshape(b, s, d), t(p["o"]))
        hn = rms(h1, p["n2"])
        m = F.linear(F.silu(F.linear(hn, t(p["gate"]))) * F.linear(hn, t(p["up"])), t(p["down"]))
        return (h1 + m).numpy()
