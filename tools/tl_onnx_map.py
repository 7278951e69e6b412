"""ONNX op type -> tl.ops call: ``MAP[op](inputs, attrs, n_outputs) -> output(s)``.

Built from the op table (tl/ops/_catalog.py): an op whose ONNX node is the op called on the
node's inputs (``OpInfo.onnx_inputs``) maps by its table entry; the rest have an adapter here.

Raises ``Skip`` (from onnx_conformance) for attribute combinations tl.ops does not offer.
"""
from __future__ import annotations

import numpy as np

import tl.ops as T
from tl.ops._catalog import OPS_LIST


def _skip(msg):
    from onnx_conformance import Skip
    raise Skip(msg)


def _u(fn, **kw):
    return lambda i, a, n: fn(i[0], **{k: a.get(o, d) for k, (o, d) in kw.items()})


def _b(fn):
    return lambda i, a, n: fn(i[0], i[1])


def _variadic(fn):
    def f(i, a, n):
        r = i[0]
        for x in i[1:]:
            r = fn(r, x)
        return T.contiguous(np.broadcast_to(r, np.broadcast_shapes(*[x.shape for x in i]))) if len(i) > 1 else T.contiguous(r)
    return f


def _mean(i, a, n):
    s = _variadic(T.add)(i, a, n)
    return T.div(s, np.asarray(len(i), s.dtype))


def _div(x, y):
    x = np.asarray(x)
    if x.dtype.kind in "iu":
        return T.trunc_divide(x, y)
    return T.div(x, y)


def _arith(name):
    def f(x, y):
        x = np.asarray(x)
        if x.dtype.kind in "iu":
            return T.binary_int(name, x, y)
        return getattr(T, name)(x, y)
    return f


def _mod(i, a, n):
    return T.fmod(i[0], i[1]) if a.get("fmod", 0) else T.remainder(i[0], i[1])


def _clip(i, a, n):
    lo = i[1] if len(i) > 1 and i[1] is not None else None
    hi = i[2] if len(i) > 2 and i[2] is not None else None
    return T.clamp(i[0], None if lo is None else lo.item(), None if hi is None else hi.item())


def _gelu(i, a, n):
    return T.gelu(i[0], approximate=a.get("approximate", b"none").decode() if isinstance(a.get("approximate"), bytes) else a.get("approximate", "none"))


def _cast(i, a, n):
    from onnx import helper
    dt = helper.tensor_dtype_to_np_dtype(a["to"])
    return T.cast(i[0], dt)


def _axes_input(i, a, idx=1):
    if "axes" in a:
        return tuple(a["axes"])
    if len(i) > idx and i[idx] is not None:
        return tuple(int(v) for v in i[idx].reshape(-1))
    return None


def _reduce(fn):
    def f(i, a, n):
        axes = _axes_input(i, a)
        keep = bool(a.get("keepdims", 1))
        if axes == () or (axes is None and a.get("noop_with_empty_axes", 0) and len(i) > 1):
            if a.get("noop_with_empty_axes", 0):
                return T.contiguous(i[0])
            axes = None
        return fn(i[0], axes, keepdims=keep)
    return f


def _reduce_extreme(fn, sign):
    """ReduceMax/ReduceMin: ONNX gives -inf/+inf (the dtype's lowest/highest for ints) over
    an empty set; tl.ops.amax/amin raise there like NumPy, so the mapping handles it."""
    red = _reduce(fn)

    def f(i, a, n):
        x = i[0]
        axes = _axes_input(i, a)
        if x.size == 0 and not (axes == () and a.get("noop_with_empty_axes", 0)):
            keep = bool(a.get("keepdims", 1))
            shape = np.sum(np.empty(x.shape, np.bool_), axis=None if not axes else axes, keepdims=keep).shape
            if x.dtype.kind == "b":
                val = sign > 0
            elif x.dtype.kind == "f" or x.dtype.name == "bfloat16":
                val = sign * np.inf
            else:
                val = np.iinfo(x.dtype).min if sign < 0 else np.iinfo(x.dtype).max
            return T.full(shape, val, x.dtype)
        return red(i, a, n)
    return f


def _topk(i, a, n):
    k = int(np.asarray(i[1]).reshape(-1)[0])
    v, idx = T.topk(i[0], k, a.get("axis", -1), bool(a.get("largest", 1)), bool(a.get("sorted", 1)))
    return [v, idx][:n]


def _arg(fn):
    return lambda i, a, n: fn(i[0], a.get("axis", 0), keepdims=bool(a.get("keepdims", 1)),
                              select_last_index=bool(a.get("select_last_index", 0)))


def _softmax(fn):
    return lambda i, a, n: fn(i[0], axis=a.get("axis", -1))


def _gemm(i, a, n):
    return T.gemm(i[0], i[1], i[2] if len(i) > 2 else None, a.get("alpha", 1.0), a.get("beta", 1.0),
                  bool(a.get("transA", 0)), bool(a.get("transB", 0)))


def _conv_pads(x, w, a, transpose=False):
    nd = x.ndim - 2
    if nd != 2:
        _skip(f"{nd}-D convolution/pooling (only 2-D is implemented)")
    k = a.get("kernel_shape", w.shape[2:] if w is not None else None)
    s = a.get("strides", [1] * nd)
    d = a.get("dilations", [1] * nd)
    auto = a.get("auto_pad", b"NOTSET")
    auto = auto.decode() if isinstance(auto, bytes) else auto
    pads = list(a.get("pads", [0] * 2 * nd))
    if auto in ("SAME_UPPER", "SAME_LOWER") and not transpose:
        pads = []
        for ax in range(nd):
            h = x.shape[2 + ax]
            o = -(-h // s[ax])
            tot = max((o - 1) * s[ax] + (k[ax] - 1) * d[ax] + 1 - h, 0)
            lo = tot // 2 if auto == "SAME_UPPER" else tot - tot // 2
            pads.append((lo, tot - lo))
        pads = [pads[0][0], pads[1][0], pads[0][1], pads[1][1]]
    elif auto == "VALID":
        pads = [0] * 4
    return k, s, d, pads, auto


def _conv(i, a, n):
    x, w = i[0], i[1]
    k, s, d, p, _ = _conv_pads(x, w, a)
    return T.conv2d(x, w, i[2] if len(i) > 2 else None, s, p, d, a.get("group", 1))


def _convt(i, a, n):
    x, w = i[0], i[1]
    k, s, d, p, auto = _conv_pads(x, w, a, transpose=True)
    k = w.shape[2:]
    op = list(a.get("output_padding", [0, 0]))
    if "output_shape" in a or auto in ("SAME_UPPER", "SAME_LOWER"):
        want = a.get("output_shape", [x.shape[2 + j] * s[j] for j in range(2)])
        want = list(want)[-2:]
        p = [0, 0, 0, 0]
        for j in range(2):
            tot = s[j] * (x.shape[2 + j] - 1) + op[j] + (k[j] - 1) * d[j] + 1 - want[j]
            # ONNX: SAME_UPPER puts the odd unit of padding at the end, otherwise at the start
            # (floor division, so a negative total grows the end / start the same way)
            lo = tot // 2 if auto == "SAME_UPPER" else tot - tot // 2
            p[j], p[j + 2] = lo, tot - lo
    return T.conv_transpose2d(x, w, i[2] if len(i) > 2 else None, s, p, op, d, a.get("group", 1))


def _pool(kind):
    def f(i, a, n):
        x = i[0]
        if n > 1:
            _skip("MaxPool Indices output")
        if a.get("storage_order", 0):
            _skip("storage_order")
        k, s, d, p, _ = _conv_pads(x, None, a)
        s = a.get("strides", [1, 1])
        if kind == "max":
            return T.max_pool2d(x, k, s, p, d, bool(a.get("ceil_mode", 0)))
        return T.avg_pool2d(x, k, s, p, bool(a.get("ceil_mode", 0)), bool(a.get("count_include_pad", 0)), d)
    return f


def _bn(i, a, n):
    x, sc, b, m, v = i[:5]
    if a.get("training_mode", 0):
        mom = a.get("momentum", 0.9)
        rm, rv = m.copy(), v.copy()
        axes = (0,) + tuple(range(2, x.ndim))
        bv, bm = T.var_mean(x, axes)
        y = T.batch_norm(x, bm, bv, sc, b, False, eps=a.get("epsilon", 1e-5))
        nrm = T.add(T.mul(rm, np.asarray(mom, x.dtype)), T.mul(bm, np.asarray(1 - mom, x.dtype)))
        nrv = T.add(T.mul(rv, np.asarray(mom, x.dtype)), T.mul(bv, np.asarray(1 - mom, x.dtype)))
        return [y, nrm, nrv][:n]
    return T.batch_norm(x, m, v, sc, b, False, eps=a.get("epsilon", 1e-5))


def _ln(i, a, n):
    if a.get("stash_type", 1) != 1:
        _skip("stash_type != float32")
    y, m, inv = T.layer_norm_axis(i[0], i[1] if len(i) > 1 else None, i[2] if len(i) > 2 else None,
                                  a.get("axis", -1), a.get("epsilon", 1e-5))
    return [y, m, inv][:n]


def _rms(i, a, n):
    return T.rms_norm_axis(i[0], i[1] if len(i) > 1 else None, a.get("axis", -1), a.get("epsilon", 1e-5))


def _transpose(i, a, n):
    return T.permute(i[0], a.get("perm"))


def _concat(i, a, n):
    return T.cat(i, a["axis"])


def _split(i, a, n):
    x = i[0]
    ax = a.get("axis", 0)
    if len(i) > 1 and i[1] is not None:
        return T.split(x, list(i[1]), ax)
    if "split" in a:
        return T.split(x, list(a["split"]), ax)
    k = a.get("num_outputs", n)
    if "num_outputs" not in a and x.shape[ax] % k:
        _skip("uneven split without num_outputs")
    return T.split(x, k, ax)


def _slice(i, a, n):
    x = i[0]
    starts, ends = i[1], i[2]
    axes = i[3] if len(i) > 3 and i[3] is not None else None
    steps = i[4] if len(i) > 4 and i[4] is not None else None
    big = np.iinfo(np.int64).max
    ends = [min(int(e), 2**40) if int(e) > 0 else max(int(e), -2**40) for e in ends]
    starts = [min(int(s_), 2**40) if int(s_) > 0 else max(int(s_), -2**40) for s_ in starts]
    _ = big
    return T.slice(x, starts, ends, None if axes is None else list(axes), None if steps is None else list(steps))


def _pad(i, a, n):
    mode = a.get("mode", b"constant")
    mode = mode.decode() if isinstance(mode, bytes) else mode
    pads = [int(p) for p in i[1]]
    val = i[2].item() if len(i) > 2 and i[2] is not None and i[2].size else 0
    x = i[0]
    if len(i) > 3 and i[3] is not None:
        axes = [int(v) % x.ndim for v in i[3]]
        full = [0] * (2 * x.ndim)
        k = len(axes)
        for j, ax in enumerate(axes):
            full[ax] = pads[j]
            full[ax + x.ndim] = pads[j + k]
        pads = full
    return T.pad(x, pads, mode, val)


def _onehot(i, a, n):
    idx, depth, vals = i
    return T.one_hot(idx, int(depth.reshape(-1)[0]), vals, a.get("axis", -1), vals.dtype)


def _trilu(i, a, n):
    k = int(i[1].reshape(-1)[0]) if len(i) > 1 and i[1] is not None else 0
    return T.triu(i[0], k) if a.get("upper", 1) else T.tril(i[0], k)


def _range(i, a, n):
    s, l, d = (v.item() for v in i)
    return T.arange(s, l, d, dtype=i[0].dtype)


def _cumsum(i, a, n):
    return T.cumsum(i[0], int(i[1].reshape(-1)[0]), bool(a.get("exclusive", 0)), bool(a.get("reverse", 0)))


def _dropout(i, a, n):
    x = i[0]
    ratio = float(i[1]) if len(i) > 1 and i[1] is not None else a.get("ratio", 0.5)
    training = bool(i[2]) if len(i) > 2 and i[2] is not None else False
    if training and ratio > 0:
        _skip("training-mode Dropout is random (ONNX's expected output comes from its own RNG)")
    y, m = T.dropout(x, ratio, False, return_mask=True)
    return [y, m][:n]


def _scatter_el(i, a, n):
    red = a.get("reduction", b"none")
    red = red.decode() if isinstance(red, bytes) else red
    return T.scatter_elements(i[0], i[1], i[2], a.get("axis", 0), red)


def _flatten(i, a, n):
    x = i[0]
    ax = a.get("axis", 1)
    ax = ax + x.ndim if ax < 0 else ax
    return T.reshape(x, (int(np.prod(x.shape[:ax])), int(np.prod(x.shape[ax:]))))


def _reshape(i, a, n):
    x, shp = i[0], [int(v) for v in i[1]]
    if not a.get("allowzero", 0):
        shp = [x.shape[j] if v == 0 else v for j, v in enumerate(shp)]
    return T.reshape(x, shp)


def _squeeze(i, a, n):
    axes = _axes_input(i, a)
    return T.contiguous(np.squeeze(i[0], axes))


def _unsqueeze(i, a, n):
    axes = sorted(int(v) % (i[0].ndim + len(_axes_input(i, a))) for v in _axes_input(i, a))
    x = i[0]
    for ax in axes:
        x = np.expand_dims(x, ax)
    return T.contiguous(x)


def _attention_bias(mask, L, S, causal, past, nonpad, lw, rw):
    """The ONNX Attention bias (float32, 0 or -inf plus any float mask), shaped to broadcast
    against (B, H, L, S): short masks padded with masked keys; causal and window frontiers at
    offset past (internal cache) or nonpad - L per batch (external cache); padded keys masked."""
    bias = np.zeros((1, 1, L, S), np.float32)
    if mask is not None:
        m = np.where(mask, np.float32(0), np.float32(-np.inf)) if mask.dtype == np.bool_ else mask.astype(np.float32)
        m = np.pad(m, [(0, 0)] * (m.ndim - 1) + [(0, S - m.shape[-1])], constant_values=-np.inf)
        bias = bias + m.reshape((1,) * (4 - m.ndim) + m.shape)
    if nonpad is not None and past == 0:
        off = (np.asarray(nonpad, np.int64).reshape(-1) - L).reshape(-1, 1, 1, 1)
    else:
        off = np.full((1, 1, 1, 1), past, np.int64)
    diff = (np.arange(L)[:, None] + off) - np.arange(S)[None, :]    # (B|1, 1, L, S)
    ok = np.ones(diff.shape, bool)
    if causal:
        ok &= diff >= 0
    if lw >= 0:
        ok &= diff <= lw
    if rw >= 0:
        ok &= -diff <= rw
    if nonpad is not None:
        ok = ok & (np.arange(S)[None, :] < np.asarray(nonpad, np.int64).reshape(-1, 1, 1, 1))
    return bias + np.where(ok, np.float32(0), np.float32(-np.inf))


def _attention(i, a, n):
    """ONNX Attention (opsets 23-25): 3-D or 4-D inputs, past/present cache, nonpad_kv_seqlen,
    causal and sliding windows, softcap, qk_matmul_output modes, softmax_precision; computed
    by tl.ops.attention.onnx_attention (intermediate results rounded to T as ONNX does)."""
    from tl.ops.attention import onnx_attention
    i = list(i) + [None] * (7 - len(i))
    q, k, v, mask, pk, pv, nonpad = i[:7]
    three = q.ndim == 3
    if three:
        hq, hk = int(a["q_num_heads"]), int(a["kv_num_heads"])
        B, L = q.shape[:2]
        q = T.contiguous(np.transpose(q.reshape(B, L, hq, -1), (0, 2, 1, 3)))
        k = T.contiguous(np.transpose(k.reshape(B, k.shape[1], hk, -1), (0, 2, 1, 3)))
        v = T.contiguous(np.transpose(v.reshape(B, v.shape[1], hk, -1), (0, 2, 1, 3)))
    past = 0
    if pk is not None:
        past = pk.shape[2]
        k, v = T.cat([pk, k], axis=2), T.cat([pv, v], axis=2)
    L, S = q.shape[2], k.shape[2]
    bias = _attention_bias(mask, L, S, bool(a.get("is_causal", 0)), past, nonpad,
                           int(a.get("left_window_size", -1)), int(a.get("right_window_size", -1)))
    mode = int(a.get("qk_matmul_output_mode", 0)) if n >= 4 else None
    sp = a.get("softmax_precision")
    r = onnx_attention(q, k, v, bias, a.get("scale"), float(a.get("softcap", 0.0)),
                       None if sp is None else int(sp), mode)
    y, qk = r if mode is not None else (r, None)
    if three:
        y = T.contiguous(np.transpose(y, (0, 2, 1, 3))).reshape(y.shape[0], L, -1)
    return [y, k, v, qk][:n]


def _red(a):
    r = a.get("reduction", b"mean")
    return r.decode() if isinstance(r, bytes) else r


def _nll(i, a, n):
    w = i[2] if len(i) > 2 and i[2] is not None else None
    return T.nll_loss(i[0], i[1], w, a.get("ignore_index"), _red(a))


def _sce(i, a, n):
    w = i[2] if len(i) > 2 and i[2] is not None else None
    lp = T.log_softmax(i[0], axis=1)
    loss = T.nll_loss(lp, i[1], w, a.get("ignore_index"), _red(a))
    return [loss, lp][:n]


def _swish_alpha(x, alpha):
    """x * sigmoid(alpha * x) rounded like ONNX's reference (sigmoid in x's dtype)."""
    return T.mul(x, T.sigmoid(T.mul(x, np.asarray(alpha, x.dtype))))


def _swiglu(i, a, n):
    alpha = float(a.get("alpha", 1.0))
    return T.mul(_swish_alpha(i[0], alpha), i[1])


def _rotary(i, a, n):
    """ONNX RotaryEmbedding (opset 23) through tl.ops.rotary_embedding: x (B, H, S, D) or
    (B, S, H * D) with num_heads; cos/sin caches (P, R/2) indexed by position_ids (B, S), or
    (B, S, R/2) without them; only the first R = rotary_embedding_dim lanes rotate."""
    x, cos, sin = i[0], i[1], i[2]
    pos = i[3] if len(i) > 3 and i[3] is not None else None
    if pos is not None:
        cos, sin = T.gather(cos, pos, 0), T.gather(sin, pos, 0)
    three = x.ndim == 3
    if three:
        h = int(a.get("num_heads", 0))
        if h <= 0:
            _skip("3-D RotaryEmbedding input without num_heads")
        b, s, hid = x.shape
        x = np.transpose(x.reshape(b, s, h, hid // h), (0, 2, 1, 3))
    d = x.shape[-1]
    r = int(a.get("rotary_embedding_dim", 0)) or d
    cos, sin = cos[:, None], sin[:, None]          # (B, 1, S, R/2) against (B, H, S, R/2)
    inter = bool(a.get("interleaved", 0))
    y = T.rotary_embedding(x[..., :r], cos, sin, interleaved=inter)
    if r < d:
        y = T.cat([y, x[..., r:]], axis=-1)
    if three:
        y = T.contiguous(np.transpose(y, (0, 2, 1, 3))).reshape(b, s, hid)
    return y


def _str(a, key, default):
    v = a.get(key, default)
    return v.decode() if isinstance(v, bytes) else v


def _instnorm(i, a, n):
    return T.instance_norm(i[0], i[1], i[2], float(a.get("epsilon", 1e-5)))


def _groupnorm(i, a, n):
    return T.group_norm(i[0], int(a["num_groups"]), i[1], i[2], float(a.get("epsilon", 1e-5)))


def _eyelike(i, a, n):
    from onnx import helper
    dt = helper.tensor_dtype_to_np_dtype(a["dtype"]) if "dtype" in a else i[0].dtype
    if i[0].ndim != 2:
        _skip("EyeLike of a non-2-D tensor")
    return T.eye(i[0].shape[0], i[0].shape[1], int(a.get("k", 0)), dt)


def _constant_of_shape(i, a, n):
    from onnx import numpy_helper
    v = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
    return T.full([int(d) for d in i[0]], v.reshape(-1)[0], v.dtype)


# ONNX nodes that need more than the op called on the node's inputs (attributes, variadic
# inputs, dtype dispatch); the plain ones come from the op table (OpInfo.onnx_inputs).
_ADAPTERS = {
    "HardSigmoid": _u(T.hardsigmoid, alpha=("alpha", 0.2), beta=("beta", 0.5)),
    "LeakyRelu": _u(T.leaky_relu, negative_slope=("alpha", 0.01)),
    "Elu": _u(T.elu, alpha=("alpha", 1.0)),
    "Selu": _u(T.selu, alpha=("alpha", 1.67326319217681884765625), gamma=("gamma", 1.05070102214813232421875)),
    "Celu": _u(T.celu, alpha=("alpha", 1.0)),
    "ThresholdedRelu": _u(T.thresholded_relu, alpha=("alpha", 1.0)),
    "Gelu": _gelu, "Clip": _clip,
    "Add": _b(_arith("add")), "Sub": _b(_arith("sub")), "Mul": _b(_arith("mul")), "Div": _b(_div),
    "Mod": _mod,
    "Max": _variadic(T.maximum), "Min": _variadic(T.minimum), "Sum": _variadic(T.add), "Mean": _mean,
    "Where": lambda i, a, n: T.where(i[0], i[1], i[2]),
    "IsInf": lambda i, a, n: T.isinf(i[0], bool(a.get("detect_positive", 1)), bool(a.get("detect_negative", 1))),
    "Cast": _cast, "MatMul": lambda i, a, n: T.mm(i[0], i[1]), "Gemm": _gemm,
    "Conv": _conv, "ConvTranspose": _convt, "MaxPool": _pool("max"), "AveragePool": _pool("avg"),
    "BatchNormalization": _bn, "LayerNormalization": _ln, "RMSNormalization": _rms,
    "Softmax": _softmax(T.softmax), "LogSoftmax": _softmax(T.log_softmax),
    "ReduceSum": _reduce(T.reduce_sum), "ReduceMean": _reduce(T.mean), "ReduceMax": _reduce_extreme(T.amax, -1),
    "ReduceMin": _reduce_extreme(T.amin, 1), "ReduceProd": _reduce(T.prod),
    "ArgMax": _arg(T.argmax_axis), "ArgMin": _arg(T.argmin), "CumSum": _cumsum,
    "Transpose": _transpose, "Concat": _concat, "Split": _split, "Slice": _slice,
    "Expand": lambda i, a, n: T.expand(i[0], [int(v) for v in i[1]]),
    "Tile": lambda i, a, n: T.tile(i[0], [int(v) for v in i[1]]), "Pad": _pad,
    "Gather": lambda i, a, n: T.gather(i[0], i[1], a.get("axis", 0)),
    "GatherElements": lambda i, a, n: T.gather_elements(i[0], i[1], a.get("axis", 0)),
    "ScatterElements": _scatter_el, "OneHot": _onehot, "Trilu": _trilu, "Range": _range,
    "Flatten": _flatten, "Reshape": _reshape,
    "Squeeze": _squeeze, "Unsqueeze": _unsqueeze, "Dropout": _dropout, "Attention": _attention,
    "TopK": _topk, "NegativeLogLikelihoodLoss": _nll, "SoftmaxCrossEntropyLoss": _sce,
    "Swish": lambda i, a, n: _swish_alpha(i[0], float(a.get("alpha", 1.0))), "SwiGLU": _swiglu,
    "RotaryEmbedding": _rotary,
    "ReduceL1": _reduce(T.reduce_l1), "ReduceL2": _reduce(T.reduce_l2),
    "ReduceSumSquare": _reduce(T.reduce_sum_square), "ReduceLogSum": _reduce(T.reduce_log_sum),
    "ReduceLogSumExp": _reduce(T.logsumexp),
    "InstanceNormalization": _instnorm, "GroupNormalization": _groupnorm,
    "LpNormalization": lambda i, a, n: T.lp_normalize(i[0], int(a.get("p", 2)), int(a.get("axis", -1))),
    "MeanVarianceNormalization": lambda i, a, n: T.mean_variance_normalization(i[0], a.get("axes", (0, 2, 3))),
    "PRelu": lambda i, a, n: T.prelu(i[0], i[1]),
    "Shrink": lambda i, a, n: T.shrink(i[0], float(a.get("lambd", 0.5)), float(a.get("bias", 0.0))),
    "Hardmax": lambda i, a, n: T.hardmax(i[0], int(a.get("axis", -1))),
    "DepthToSpace": lambda i, a, n: T.depth_to_space(i[0], int(a["blocksize"]), _str(a, "mode", "DCR")),
    "SpaceToDepth": lambda i, a, n: T.space_to_depth(i[0], int(a["blocksize"]), _str(a, "mode", "DCR")),
    "EyeLike": _eyelike, "ConstantOfShape": _constant_of_shape,
    "CastLike": lambda i, a, n: T.cast(i[0], i[1].dtype),
    "Shape": lambda i, a, n: T.shape(i[0], int(a.get("start", 0)), a.get("end")),
    "ReverseSequence": lambda i, a, n: T.reverse_sequence(i[0], i[1], int(a.get("batch_axis", 1)),
                                                          int(a.get("time_axis", 0))),
    "GatherND": lambda i, a, n: T.gather_nd(i[0], i[1], int(a.get("batch_dims", 0))),
    "ScatterND": lambda i, a, n: T.scatter_nd(i[0], i[1], i[2], _str(a, "reduction", "none")),
}

MAP = {o.onnx: (_u if o.onnx_inputs == 1 else _b)(o.function) for o in OPS_LIST if o.onnx_inputs}
assert not set(MAP) & set(_ADAPTERS), sorted(set(MAP) & set(_ADAPTERS))
MAP.update(_ADAPTERS)
