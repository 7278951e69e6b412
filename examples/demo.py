"""`make run`: one transformer block's forward pass through tl.ops, checked op by op.

Batch 2, sequence 64, d_model 256, 4 heads of 64, SwiGLU MLP of 512 (and a GELU branch), a
small LM head of 512 logits. Every tl.ops call is checked against a float64 NumPy reference of
that op on the same inputs, and timed. One table row per op type: shape and dtype of the first
call, max abs error, max relative error (over elements with |ref| >= 1e-3 max|ref|), median time (ms).
Exits 1 if any op exceeds its tolerance (|err| <= atol + rtol*|ref| elementwise).
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tl.ops as ops  # noqa: E402
from scipy.special import erfc  # noqa: E402

BF16 = ops.bfloat16
RECORDS: dict[str, dict] = {}
# op -> (rtol, atol) for float32 results (docs/testing.md#tolerances); reductions scale atol
TOL = {"add": (1.3e-6, 0), "mul": (1.3e-6, 0), "matmul": (1e-5, 1e-5), "transpose": (0, 0),
       "layer_norm": (1e-5, 1e-5), "rms_norm": (1e-5, 1e-5), "softmax": (4e-6, 1e-7),
       "log_softmax": (4e-6, 1e-5), "gelu": (2e-6, 1e-30), "silu": (2e-6, 1e-30),
       "cast": (0, 0), "sum": (1.3e-6, 1e-5), "max": (0, 0), "argmax": (0, 0)}


def f64(a):
    return np.asarray(a).astype(np.float64)


def run(name, fn, ref, *args, scale=1.0, reps=5, **kw):
    """Calls ``fn(*args, **kw)``, compares with ``ref`` (on float64 copies), times ``reps`` runs."""
    out = fn(*args, **kw)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(*args, **kw)
        times.append((time.perf_counter() - t0) * 1e3)
    r = np.asarray(ref(*[f64(a) if isinstance(a, np.ndarray) else a for a in args]), np.float64)
    g = f64(out)
    with np.errstate(invalid="ignore"):
        err = np.abs(g - r)
    err[(np.isnan(g) & np.isnan(r)) | (g == r)] = 0
    big = np.abs(r) >= 1e-3 * np.abs(r[np.isfinite(r)]).max(initial=0)
    rel = float((err[big] / np.abs(r[big])).max()) if big.any() else 0.0
    rtol, atol = TOL[name]
    ok = bool((err <= atol * scale + rtol * np.abs(r)).all())
    rec = RECORDS.setdefault(name, {"shape": tuple(np.shape(args[0])), "dtype": str(np.asarray(args[0]).dtype),
                                    "abs": 0.0, "rel": 0.0, "times": [], "ok": True, "calls": 0})
    rec["abs"] = max(rec["abs"], float(err.max()) if err.size else 0.0)
    rec["rel"] = max(rec["rel"], rel)
    rec["times"] += times
    rec["ok"] &= ok
    rec["calls"] += 1
    return out


# ---------------------------------------------------------------- float64 references
def ln_ref(x, w, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + eps) * w + b


def rms_ref(x, w, eps=1e-6):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def softmax_ref(x, axis=-1):
    e = np.exp(x - x.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def log_softmax_ref(x, axis=-1):
    m = x.max(axis, keepdims=True)
    return (x - m) - np.log(np.exp(x - m).sum(axis, keepdims=True))


def main() -> int:
    seed = int(os.environ.get("TL_DEMO_SEED", "0"))
    rng = np.random.default_rng(seed)
    B, S, D, H, F, V = 2, 64, 256, 4, 512, 512
    hd = D // H

    def w(*shape, s=None):
        return (rng.standard_normal(shape) * (s or 1 / np.sqrt(shape[0]))).astype(np.float32)

    x = rng.standard_normal((B, S, D)).astype(np.float32)
    g1, b1 = (1 + 0.1 * rng.standard_normal(D)).astype(np.float32), (0.1 * rng.standard_normal(D)).astype(np.float32)
    g2 = (1 + 0.1 * rng.standard_normal(D)).astype(np.float32)
    wq, wk, wv = w(D, D), w(D, D), w(D, D)
    wo_torch = w(D, D)                       # (out, in) layout, transposed below
    w1, w3, w2 = w(D, F), w(D, F), w(F, D)
    wg = w(D, D)
    wlm = w(D, V)

    # attention
    h = run("layer_norm", ops.layer_norm, ln_ref, x, g1, b1, eps=1e-5)
    q = run("matmul", ops.matmul, np.matmul, h, wq, scale=D)
    k = run("matmul", ops.matmul, np.matmul, h, wk, scale=D)
    v = run("matmul", ops.matmul, np.matmul, h, wv, scale=D)
    heads = lambda t: t.reshape(B, S, H, hd).transpose(0, 2, 1, 3)  # strided views, no copy
    qh, kh, vh = heads(q), heads(k), heads(v)
    scores = run("matmul", ops.matmul, np.matmul, qh, kh.swapaxes(-1, -2), scale=hd)
    scores = run("mul", ops.mul, np.multiply, scores, np.float32(1 / np.sqrt(hd)))
    causal = np.triu(np.full((S, S), -np.inf, np.float32), 1)
    scores = run("add", ops.add, np.add, scores, causal)
    p = run("softmax", ops.softmax, softmax_ref, scores)
    ctx = run("matmul", ops.matmul, np.matmul, p, vh, scale=S)
    ctx = np.ascontiguousarray(ctx.transpose(0, 2, 1, 3)).reshape(B, S, D)
    wo = run("transpose", ops.transpose, lambda t: t.T, wo_torch)
    attn = run("matmul", ops.matmul, np.matmul, ctx, wo, scale=D)
    x1 = run("add", ops.add, np.add, x, attn)

    # MLP: SwiGLU in bfloat16 matmuls, plus a GELU branch
    h2 = run("rms_norm", ops.rms_norm, rms_ref, x1, g2, eps=1e-6)
    h2b = run("cast", ops.cast, lambda t, d: t.astype(np.float32).astype(BF16).astype(np.float64), h2, BF16)
    w1b, w3b = w1.astype(BF16), w3.astype(BF16)
    a1 = run("matmul", ops.matmul, np.matmul, h2b, w1b, scale=D)
    a3 = run("matmul", ops.matmul, np.matmul, h2b, w3b, scale=D)
    sil = run("silu", ops.silu, lambda t: t / (1 + np.exp(-t)), a1)
    gated = run("mul", ops.mul, np.multiply, sil, a3)
    down = run("matmul", ops.matmul, np.matmul, gated, w2, scale=F)
    gb = run("gelu", ops.gelu, lambda t: 0.5 * t * erfc(-t / np.sqrt(2)),
             run("matmul", ops.matmul, np.matmul, h2, wg, scale=D))
    x2 = run("add", ops.add, np.add, x1, down)
    x2 = run("add", ops.add, np.add, x2, gb)

    # LM head: log-probabilities, greedy tokens, sanity sums
    logits = run("matmul", ops.matmul, np.matmul, x2, wlm, scale=D)
    lp = run("log_softmax", ops.log_softmax, log_softmax_ref, logits)
    run("argmax", ops.argmax, lambda t: np.argmax(t, -1), lp, axis=-1)
    run("max", ops.max, lambda t: t.max(-1), lp, axis=-1)
    run("sum", ops.sum, lambda t: t.sum(-1), p, scale=S, axis=-1)

    print(f"transformer block: batch {B}, seq {S}, d_model {D}, heads {H}, mlp {F}, vocab {V} (seed {seed})")
    print(f"{'op':<12} {'shape':<18} {'dtype':<9} {'calls':>5} {'max abs err':>12} {'max rel err':>12} "
          f"{'median ms':>10}  status")
    bad = 0
    for name, r in RECORDS.items():
        bad += not r["ok"]
        print(f"{name:<12} {str(r['shape']):<18} {r['dtype']:<9} {r['calls']:>5} {r['abs']:>12.3e} "
              f"{r['rel']:>12.3e} {np.median(r['times']):>10.3f}  {'ok' if r['ok'] else 'FAIL'}")
    if bad:
        print(f"demo FAILED: {bad} of {len(RECORDS)} ops exceed their tolerance")
        return 1
    print(f"demo OK: {len(RECORDS)} ops within tolerance")
    return 0


if __name__ == "__main__":
    sys.exit(main())
