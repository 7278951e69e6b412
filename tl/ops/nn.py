"""Neural-network tl.ops composed from the library's kernels:
conv2d (implicit GEMM kernels of ops/conv.py; im2col + matmul only for groups of < 16
channels other than depthwise), conv_transpose2d (zero insertion + conv2d),
max/avg/adaptive/global pooling (window views + row reductions), batch_norm, fused
add + norm, swiglu, cross_entropy, dropout, rotary embedding (scaled_dot_product_attention:
tl/ops/attention.py).

Shapes are NCHW; ``pads`` are (top, left, bottom, right); float32/float16/bfloat16 inputs
(matmuls accumulate in float32; float16 goes through float32). Errors: ValueError for bad
shapes, TypeError for dtypes.

Also max_pool1d / avg_pool1d (the 2-D pooling over a size-1 axis). The matmul family
(mm, gemm, bmm, baddbmm) lives in tl/ops/linalg.py.
"""
from __future__ import annotations

import builtins
import functools

import numpy as np

from tl.ops._core import _launch, _NAMES, _norm_axis, _np, _shape2d, _to2d, bfloat16
from tl.ops.elementwise import add, cast, div, mul, silu, sub
from tl.ops._opmath import opmath
from tl.ops.pointwise import maximum, neg, rsqrt
from tl.ops.data import contiguous, copy_into, full, gather, gather_elements, pad
from tl.ops.reduce import amax, mean, reduce_sum, var_mean
from tl.ops.norm import layer_norm, log_softmax, rms_norm
from tl.ops.linalg import _once, matmul
from tl.ops._registry import names_in, public_op


def _is_int(a):
    return isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_))


def _ints(op, name, v, lens=(1, 2), minimum=1, forms="an int or a pair of ints"):
    """``v`` (an int, or a tuple/list of ints of a length in ``lens``) as a tuple: an int or a
    1-tuple is repeated to ``lens[-1]`` values. TypeError naming ``name`` for anything else
    (floats, strings...), ValueError for a wrong length or a value below ``minimum``."""
    if _is_int(v):
        t = (int(v),) * lens[-1]
    elif isinstance(v, (tuple, list)) and all(_is_int(a) for a in v):
        if len(v) not in lens:
            raise ValueError(f"tl.ops.{op}: {name} must be {forms}, got {tuple(v)!r} of length {len(v)}")
        t = tuple(int(a) for a in v) * (lens[-1] if len(v) == 1 else 1)
    else:
        raise TypeError(f"tl.ops.{op}: {name} must be {forms}, got {v!r} ({type(v).__name__})")
    if t and builtins.min(t) < minimum:
        what = "positive" if minimum == 1 else f">= {minimum}"
        raise ValueError(f"tl.ops.{op}: {name} must be {what}, got {v!r}")
    return t


def _pads4(p, op="conv2d", minimum=0):
    """(top, left, bottom, right) of a padding int, pair (ph, pw) or 4-tuple (values >= minimum:
    non-negative unless the op gives a meaning to negative padding)."""
    kind = "non-negative ints" if minimum == 0 else "ints"
    t = _ints(op, "padding", p, (1, 2, 4), minimum, f"an int, a pair (ph, pw) or (top, left, bottom, right) "
              f"of {kind}")
    return t if len(t) == 4 else (t[0], t[1], t[0], t[1])


def _conv_args(op, x, weight, bias, groups, w_axis):
    """x and weight as 4-D NumPy arrays of one float dtype, groups as an int and bias as None or a
    (Co,) array; ``w_axis`` is the weight axis holding the output channels per group (0 for
    conv2d, 1 for conv_transpose2d). TypeError for dtypes or a non-int groups, ValueError for
    shapes."""
    x, w = _np(x, "x", op), _np(weight, "weight", op)
    for arg, a in (("x", x), ("weight", w)):
        if _NAMES.get(a.dtype) not in ("float32", "float16", "bfloat16"):
            raise TypeError(f"tl.ops.{op}: argument '{arg}' has unsupported dtype {a.dtype}; "
                            f"expected float32, float16 or bfloat16")
    dx, dw_ = _NAMES[x.dtype], _NAMES[w.dtype]
    if dx != dw_:
        raise TypeError(f"tl.ops.{op}: argument 'x' has dtype {dx} but 'weight' has dtype {dw_}; "
                        f"they must match")
    if x.ndim != 4:
        raise ValueError(f"tl.ops.{op}: input must be (N, C, H, W) or (C, H, W), got shape {x.shape}")
    if w.ndim != 4:
        form = "(Co, C / groups, KH, KW)" if w_axis == 0 else "(C, Co / groups, KH, KW)"
        raise ValueError(f"tl.ops.{op}: weight must be 4-D {form}, got shape {w.shape}")
    (g,) = _ints(op, "groups", groups, (1,), 1, "a positive int")
    co = w.shape[0] if w_axis == 0 else w.shape[1] * g
    if bias is not None:
        bias = _np(bias, "bias", op)
        if bias.shape != (co,):
            raise ValueError(f"tl.ops.{op}: bias must have shape ({co},) (one value per output "
                             f"channel), got {bias.shape}")
    return x, w, g, bias


def _windows(xp, kh, kw, sh, sw, dh, dw, oh, ow):
    """(N, C, KH, KW, OH, OW) strided view of the padded input."""
    n, c = xp.shape[:2]
    s = xp.strides
    return np.lib.stride_tricks.as_strided(
        xp, (n, c, kh, kw, oh, ow), (s[0], s[1], dh * s[2], dw * s[3], sh * s[2], sw * s[3]),
        writeable=False)


# (BH, BW) output-pixel tiles of the conv2d_nhwc instances (ops/conv.py), BN = 64
_CONV_TILES = ((1, 112), (2, 56), (4, 28), (14, 14), (14, 8))


def _conv2d_nhwc(x, w, sh, sw, pads, oh, ow):
    """float32 implicit-GEMM conv (ops/conv.py): one zero-padded NHWC copy of x (NumPy), then
    conv2d_nhwc over an overlapping window view; returns (N, Co, OH, OW) float32."""
    n, c, h, wd = x.shape
    co, _, kh, kw = w.shape
    pt, pl, pb, pr = pads
    hp, wp = h + pt + pb, wd + pl + pr
    xp = np.zeros((n, hp, wp, c), np.float32)
    np.copyto(xp[:, pt:pt + h, pl:pl + wd, :], x.transpose(0, 2, 3, 1))   # NumPy: a fast transpose
    e = xp.itemsize
    xv = np.lib.stride_tricks.as_strided(
        xp, (n, oh, kh, ow, kw * c), (hp * wp * c * e, sh * wp * c * e, wp * c * e, sw * c * e, e),
        writeable=False)
    wt = np.ascontiguousarray(w.transpose(2, 3, 1, 0), np.float32).reshape(kh, kw * c, co)
    y = np.empty((n, co, oh, ow), np.float32)
    # the tile (BH, BW) with the fewest computed pixels (ties: the wider one)
    bh, bw = builtins.min(_CONV_TILES, key=lambda t: (-(-oh // t[0]) * t[0] * -(-ow // t[1]) * t[1], -t[1]))
    bk = 24 if kw * c <= 24 else 64
    if bk == 24 and (bh, bw) != (1, 112):
        bk = 64
    _launch(f"conv2d_nhwc__BH_{bh}__BK_{bk}__BN_64__BW_{bw}", xv, wt, y)
    return y


_AS = np.lib.stride_tricks.as_strided


def _nchw_launch(xv, w3, y4, kh, kw, ph, bc, bh, bw):
    _launch(f"conv2d_nchw__BC_{bc}__BH_{bh}__BM_64__BW_{bw}__KH_{kh}__KW_{kw}__PH_{ph}", xv, w3, y4)


def _conv2d_flat(x, w, pads, g):
    """float32 stride-1 1x1 / 3x3 conv, NCHW in and out, weights in their own layout (no
    reorder): conv2d_nchw (ops/conv.py) over the flattened padded image. Output pixel
    q = oh * Wp + ow reads xp_flat[c, q + kh * Wp + kw], so each GEMM B row is one unit-stride
    run; columns ow >= OW are computed and dropped. x (N, C, H, W) float32 contiguous."""
    n, c, h, wd = x.shape
    co, cg, kh, kw = w.shape
    pt, pl, pb, pr = pads
    hp, wp = h + pt + pb, wd + pl + pr
    oh, ow = hp - kh + 1, wp - kw + 1
    q = oh * wp
    bws = (192, 224) if kh == 1 else (96, 192, 224)
    bw = builtins.min(bws, key=lambda b: (-(-q // b) * b, -b))
    bc = 16 if kh == 3 else (128 if cg % 128 == 0 else 64)
    w3 = w.reshape(g, co // g, cg * kh * kw)
    e = 4
    if kh == 1 and pads == (0, 0, 0, 0):     # 1x1: the input itself is the B matrix
        y = np.empty((n, co, oh, ow), np.float32)
        xv = _AS(x, (n * g, cg, 1, 1, 1, 1, q), (cg * q * e, q * e, 0, 0, 0, 0, e), writeable=False)
        _nchw_launch(xv, w3, y.reshape(n * g, co // g, 1, q), kh, kw, 1, bc, 1, bw)
        return y
    qt = -(-q // bw) * bw
    ln = builtins.max(hp * wp, qt + (kh - 1) * wp + kw - 1)
    buf = np.zeros((n, c, ln), np.float32)
    buf[:, :, :hp * wp].reshape(n, c, hp, wp)[:, :, pt:pt + h, pl:pl + wd] = x
    xv = _AS(buf, (n * g, cg, kh, kw, 1, 1, qt), (cg * ln * e, ln * e, wp * e, e, 0, 0, e), writeable=False)
    yf = np.empty((n, co, 1, qt), np.float32)
    _nchw_launch(xv, w3, yf.reshape(n * g, co // g, 1, qt), kh, kw, 1, bc, 1, bw)
    return np.ascontiguousarray(yf[:, :, 0, :q].reshape(n, co, oh, wp)[..., :ow])


def _conv2d_phase(x, w, pads, oh, ow):
    """float32 stride-2 7x7 conv (the ResNet/VGG stem, C = 3): conv2d_phase2 (ops/conv.py). The
    padded input is split into even/odd column phases so tap kw = 2 * t + p of output column ow
    reads phase p at column ow + t (unit stride); the weights are reordered to the even taps of
    every (c, kh), then the odd ones, so K = C * KH * KW (no zero taps). (BH, BW) = (2, 112)."""
    n, c, h, wd = x.shape
    co, _, kh, kw = w.shape
    pt, pl, pb, pr = pads
    ke = (kw + 1) // 2
    hp = builtins.max(h + pt + pb, 2 * (oh - 1) + kh)
    wq = ow + ke - 1
    buf = np.zeros((n, c, hp, 2, wq), np.float32)   # column phases written straight from x
    for b in range(2):
        ci = _phase_rows(b, pl, 2, wq, wd)
        if ci is not None:
            buf[:, :, pt:pt + h, b, ci[0]:ci[0] + ci[2]] = x[:, :, :, ci[1]:ci[1] + 2 * (ci[2] - 1) + 1:2]
    S = buf.strides
    xv = _AS(buf, (n, c, kh, ke, 2, oh, ow), (S[0], S[1], S[2], 4, S[3], 2 * S[2], 4), writeable=False)
    w2 = np.concatenate((w[..., 0::2].reshape(co, -1), w[..., 1::2].reshape(co, -1)), axis=1)
    y = np.empty((n, co, oh, ow), np.float32)
    _launch(f"conv2d_phase2__BH_2__BM_64__BW_112__C_{c}__KE_{ke}__KH_{kh}__KO_{kw // 2}", xv, w2, y)
    return y


def _phase_rows(a, p, s, nq, n):
    """Rows i of phase plane a (padded row a + s * i, input row a + s * i - p) that hold input:
    (first i, its input row, count), or None."""
    i0 = builtins.max(0, -(-(p - a) // s))
    r0 = a + s * i0 - p
    if r0 >= n or i0 >= nq:
        return None
    return i0, r0, builtins.min(nq - i0, (n - 1 - r0) // s + 1)


def _taps_plan(x, w, s, d, pads, oh, ow, bw_choices, units):
    """The phase-plane layout of conv2d_taps / conv2d_dw_taps (ops/conv.py) for stride s and
    dilation d: the zero-padded input split into s*s phase planes xp[a::s, b::s] of (HQ, WQ),
    each flattened, planes consecutive per channel. Output pixel q = oh * WQ + ow (columns
    ow >= OW are computed and dropped); tap (i, j) reads plane ((i*dh) % s, (j*dw) % s) at
    q + ((i*dh) // s) * WQ + (j*dw) // s, so each GEMM B tile is a 2-D unit-stride slice
    (a space-to-depth split makes strides unit stride).
    BW (pixels per program) is the choice that gives the busiest runtime thread the fewest
    columns, ``units`` programs sharing each column tile (ties: the wider tile).
    Returns (buf (N, C, LN) float32, taps int64 (KH*KW,), q, QT, WQ, BW)."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[2:]
    (sh, sw), (dh, dw) = s, d
    pt, pl, _, _ = pads
    hq, wq = oh + (dh * (kh - 1)) // sh, ow + (dw * (kw - 1)) // sw
    P = hq * wq
    q = oh * wq
    nt = builtins.max(1, _runtime_threads())
    bw = builtins.min(bw_choices, key=lambda b: (-(-(-(-q // b) * units) // nt) * b, -b))
    qt = -(-q // bw) * bw
    taps = np.array([(((i * dh) % sh) * sw + (j * dw) % sw) * P + ((i * dh) // sh) * wq + (j * dw) // sw
                     for i in range(kh) for j in range(kw)], np.int64)
    ln = builtins.max(sh * sw * P, qt + int(taps.max()))
    buf = np.zeros((n, c, ln), np.float32)
    planes = buf[:, :, :sh * sw * P].reshape(n, c, sh, sw, hq, wq)
    for a in range(sh):
        ri = _phase_rows(a, pt, sh, hq, h)
        for b in range(sw):
            ci = _phase_rows(b, pl, sw, wq, wd)
            if ri is not None and ci is not None:
                planes[:, :, a, b, ri[0]:ri[0] + ri[2], ci[0]:ci[0] + ci[2]] = \
                    x[:, :, ri[1]:ri[1] + sh * (ri[2] - 1) + 1:sh, ci[1]:ci[1] + sw * (ci[2] - 1) + 1:sw]
    return buf, taps, q, qt, wq, bw


def _runtime_threads():
    from tl import _runtime
    return _runtime.num_threads()


def _taps_out(yf, n, co, q, oh, wq, ow):
    return np.ascontiguousarray(yf.reshape(n, co, -1)[:, :, :q].reshape(n, co, oh, wq)[..., :ow])


def _conv2d_taps(x, w, s, d, pads, g, oh, ow):
    """float32 conv2d_taps (ops/conv.py): per tap one (Co/g x C/g) @ (C/g x pixels) GEMM whose B
    is a 2-D slice of the phase-plane input (no window copy; the microkernel packs B straight
    from it). Weights reordered once per call to (G, KH*KW, Co/g, C/g)."""
    n = x.shape[0]
    co, cg, kh, kw = w.shape
    bc = 64 if cg % 64 == 0 else (32 if cg % 32 == 0 else 16)
    bm = 128 if co // g >= 128 and bc >= 32 else 64   # 128: each packed B tile feeds twice the rows
    buf, taps, q, qt, wq, bw = _taps_plan(x, w, s, d, pads, oh, ow, (96, 192, 224), n * g * -(-(co // g) // bm))
    w4 = np.ascontiguousarray(w.reshape(g, co // g, cg, kh * kw).transpose(0, 3, 1, 2))
    yf = np.empty((n * g, co // g, qt), np.float32)
    _launch(f"conv2d_taps__BC_{bc}__BM_{bm}__BW_{bw}", buf.reshape(n * g, cg, -1), taps, w4, yf)
    return _taps_out(yf, n, co, q, oh, wq, ow)


def _conv2d_dw(x, w, s, d, pads, oh, ow):
    """float32 depthwise conv (groups = C = Co): conv2d_dw_taps (ops/conv.py), one
    multiply-add of a (channels x pixels) tile per tap on the phase-plane input."""
    n, c = x.shape[:2]
    kh, kw = w.shape[2:]
    buf, taps, q, qt, wq, _ = _taps_plan(x, w, s, d, pads, oh, ow, (256,), 1)
    yf = np.empty((n, c, qt), np.float32)
    _launch("conv2d_dw_taps__BC_8__BW_256", buf, taps, np.ascontiguousarray(w.reshape(c, kh * kw)), yf)
    return _taps_out(yf, n, c, q, oh, wq, ow)


def _conv2d_fast(x, w, s, d, pads, g, oh, ow):
    """float32 result of a conv2d_nchw / conv2d_phase2 / conv2d_taps / conv2d_dw_taps /
    conv2d_nhwc path, or None (no fast path for the case: the caller uses im2col). 1x1 (stride
    1, or stride s without padding after subsampling) and small stride-1 3x3 take conv2d_nchw
    over the flattened image; the 7x7/2 stem with C = 3 conv2d_phase2; depthwise
    conv2d_dw_taps; any other conv with >= 16 input channels per group (any kernel size, stride,
    dilation) conv2d_taps; the rest with groups 1 and dilation 1 conv2d_nhwc (ops/conv.py)."""
    co, cg, kh, kw = w.shape
    n, c = x.shape[:2]
    xc = lambda: np.ascontiguousarray(x, np.float32)    # noqa: E731
    wc = np.ascontiguousarray(w, np.float32)
    if d == (1, 1) and (kh, kw) == (1, 1) and (g == 1 or co // g >= 16):
        if s == (1, 1):
            return _conv2d_flat(xc(), wc, pads, g)
        if pads == (0, 0, 0, 0):
            return _conv2d_flat(np.ascontiguousarray(x[:, :, ::s[0], ::s[1]][:, :, :oh, :ow], np.float32), wc, pads, g)
    if (kh, kw) == (7, 7) and s == (2, 2) and d == (1, 1) and g == 1 and c == 3 and ow >= 112:
        return _conv2d_phase(x, wc, pads, oh, ow)
    if cg == 1 and co == g:
        return _conv2d_dw(x, wc, s, d, pads, oh, ow)
    flat3 = (kh, kw) == (3, 3) and s == (1, 1) and d == (1, 1) and (g == 1 or co // g >= 16)
    # conv2d_taps reorders the weights once per call: on small images that costs more than the
    # window copies of conv2d_nchw it saves
    if cg >= 16 and not (flat3 and n * oh * (ow + 2) < 1024):
        return _conv2d_taps(x, wc, s, d, pads, g, oh, ow)
    if flat3:
        return _conv2d_flat(xc(), wc, pads, g)
    if g != 1 or d != (1, 1):
        return None
    return _conv2d_nhwc(x, wc, s[0], s[1], pads, oh, ow)


def _conv2d_4d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """conv2d on a 4-D x (the public conv2d below adds unbatched input and padding strings):
    2-D convolution (cross-correlation, PyTorch/ONNX): x (N, C, H, W), weight
    (Co, C / groups, KH, KW); padding an int, a pair or (top, left, bottom, right)."""
    x, w, g, bias = _conv_args("conv2d", x, weight, bias, groups, 0)
    dt = _NAMES[x.dtype]
    n, c, h, wd = x.shape
    co, cg, kh, kw = w.shape
    if cg * g != c or co % g:
        raise ValueError(f"tl.ops.conv2d: channels {c} / weight {w.shape} / groups {g} mismatch")
    (sh, sw), (dh, dw) = _ints("conv2d", "stride", stride), _ints("conv2d", "dilation", dilation)
    pt, pl, pb, pr = _pads4(padding)
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:   # as PyTorch: the (dilated) kernel must fit the padded input
        raise ValueError(f"tl.ops.conv2d: the kernel ({kh}, {kw}) with dilation ({dh}, {dw}) is larger "
                         f"than the padded input ({h + pt + pb}, {wd + pl + pr}) of x {x.shape}")
    if dt in ("float32", "float16", "bfloat16") and builtins.min(pt, pl, pb, pr) >= 0 and n * c * co > 0:
        xf, wf = (x, w) if dt == "float32" else (cast(x, np.float32), cast(w, np.float32))
        y = _conv2d_fast(xf, wf, (sh, sw), (dh, dw), (pt, pl, pb, pr), g, oh, ow)
        if y is not None:
            if bias is not None:
                y = add(y, np.asarray(bias, np.float32).reshape(co, 1, 1))
            return y if dt == "float32" else cast(y, x.dtype)
    if (pt, pl, pb, pr) != (0, 0, 0, 0):
        x = pad(x, [0, 0, pt, pl, 0, 0, pb, pr])
    kk = cg * kh * kw
    if (kh, kw, sh, sw) == (1, 1, 1, 1) and x.flags.c_contiguous:
        cols = x.reshape(n, g, kk, oh * ow)
    else:
        cols = np.empty((n, c, kh, kw, oh, ow), x.dtype)
        copy_into(cols, _windows(x, kh, kw, sh, sw, dh, dw, oh, ow))
        cols = cols.reshape(n, g, kk, oh * ow)
    wm = np.ascontiguousarray(w).reshape(1, g, co // g, kk)
    y = matmul(wm, cols).reshape(n, co, oh, ow)   # float32; bias added before the one rounding
    if bias is not None:
        y = add(y, np.asarray(bias, np.float32).reshape(co, 1, 1))
    return _once(y, x.dtype)


@public_op
def conv_transpose2d(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups: int = 1):
    """Transposed convolution: x (N, C, H, W), weight (C, Co / groups, KH, KW); output
    H = (H - 1) * s - (pt + pb) + d * (KH - 1) + output_padding + 1 (docs/semantics.md#c-15). stride, dilation:
    positive ints or pairs; padding: int, pair or (top, left, bottom, right) (a negative value
    enlarges the output by the formula above: ONNX ConvTranspose output_shape, via
    tools/tl_onnx_map.py, needs it; torch rejects it);
    output_padding: non-negative int or pair, smaller than stride or dilation (like torch);
    bias (Co,). TypeError for non-int arguments or x / weight dtypes that differ, ValueError for
    bad shapes and values."""
    op = "conv_transpose2d"
    x, w, g, bias = _conv_args(op, x, weight, bias, groups, 1)
    n, c, h, wd = x.shape
    ci, cog, kh, kw = w.shape
    if ci != c or c % g:
        raise ValueError(f"tl.ops.{op}: channels {c} / weight {w.shape} / groups {g} mismatch "
                         f"(weight must be (C, Co / groups, KH, KW))")
    (sh, sw), (dh, dw) = _ints(op, "stride", stride), _ints(op, "dilation", dilation)
    oph, opw = _ints(op, "output_padding", output_padding, minimum=0, forms="an int or a pair of non-negative ints")
    if oph >= builtins.max(sh, dh) or opw >= builtins.max(sw, dw):
        raise ValueError(f"tl.ops.{op}: output_padding {(oph, opw)} must be smaller than stride "
                         f"{(sh, sw)} or dilation {(dh, dw)}")
    pt, pl, pb, pr = _pads4(padding, op, minimum=-(1 << 62))
    xz = full((n, c, (h - 1) * sh + 1, (wd - 1) * sw + 1), 0, x.dtype)
    copy_into(xz[:, :, ::sh, ::sw], x)
    ph0, ph1 = dh * (kh - 1) - pt, dh * (kh - 1) - pb + oph
    pw0, pw1 = dw * (kw - 1) - pl, dw * (kw - 1) - pr + opw
    xp = pad(xz, [0, 0, ph0, pw0, 0, 0, ph1, pw1])
    cg = c // g
    wt = w.reshape(g, cg, cog, kh, kw).transpose(0, 2, 1, 3, 4)[..., ::-1, ::-1]
    wt = contiguous(wt).reshape(g * cog, cg, kh, kw)
    return conv2d(xp, wt, bias, 1, 0, (dh, dw), g)


def _pool_geom(h, k, s, d, p0, p1, ceil_mode):
    eff = d * (k - 1) + 1
    num = h + p0 + p1 - eff
    o = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (o - 1) * s >= h + p0:
        o -= 1        # the last window must start inside the input or the left padding (docs/semantics.md#c-07)
    extra = builtins.max((o - 1) * s + eff - (h + p0 + p1), 0)
    return o, extra


def _accept_unbatched(fn):
    """Lets ``fn`` (N, C, H, W) also take unbatched (C, H, W) input like torch: a batch axis of
    1 is added and dropped again. Other ranks raise a ValueError naming the op."""
    @functools.wraps(fn)
    def wrapper(x, *args, **kwargs):
        x = _np(x, "x", fn.__name__)
        if x.ndim == 3:
            return fn(x[None], *args, **kwargs)[0]
        if x.ndim != 4:
            raise ValueError(f"tl.ops.{fn.__name__}: input must be (N, C, H, W) or (C, H, W), "
                             f"got shape {x.shape}")
        return fn(x, *args, **kwargs)
    return wrapper


def _pool_params(x, kernel, stride, padding, dilation, ceil_mode, op="max_pool2d / avg_pool2d"):
    """Pooling geometry of an (N, C, H, W) x: (kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, oh, eh,
    ow, ew): eh/ew the extra bottom/right padding ceil_mode needs. ValueError for a non-positive
    kernel size, stride or dilation."""
    h, wd = x.shape[2:]
    kh, kw = _ints(op, "kernel_size", kernel)
    sh, sw = _ints(op, "stride", stride if stride is not None else kernel)
    dh, dw = _ints(op, "dilation", dilation)
    pt, pl, pb, pr = _pads4(padding, op)
    oh, eh = _pool_geom(h, kh, sh, dh, pt, pb, ceil_mode)
    ow, ew_ = _pool_geom(wd, kw, sw, dw, pl, pr, ceil_mode)
    return kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, oh, eh, ow, ew_


def _pool_cols(x, kernel, stride, padding, dilation, ceil_mode, fill, op="max_pool2d / avg_pool2d"):
    x = np.asarray(x)
    n, c = x.shape[:2]
    kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, oh, eh, ow, ew_ = _pool_params(x, kernel, stride, padding, dilation,
                                                                          ceil_mode, op)
    xp = pad(x, [0, 0, pt, pl, 0, 0, pb + eh, pr + ew_], value=fill)
    cols = np.empty((n, c, oh, ow, kh, kw), x.dtype)
    copy_into(cols, _windows(xp, kh, kw, sh, sw, dh, dw, oh, ow).transpose(0, 1, 4, 5, 2, 3))
    return cols.reshape(n, c, oh, ow, kh * kw), (kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, eh, ew_)


@public_op
@_accept_unbatched
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Max pooling; padding reads -inf; ceil_mode drops windows starting in the right padding."""
    x = np.asarray(x)
    kh, kw = _ints("max_pool2d", "kernel_size", kernel_size)
    if kh * kw > 16 or x.size == 0:
        cols, _ = _pool_cols(x, kernel_size, stride, padding, dilation, ceil_mode, -np.inf, "max_pool2d")
        return amax(cols, -1)
    # small windows: a chain of elementwise maximums over the KH * KW strided window views of
    # the padded input (one pass over the output each), instead of copying every window
    kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, oh, eh, ow, ew_ = _pool_params(x, kernel_size, stride, padding,
                                                                          dilation, ceil_mode, "max_pool2d")
    xp = pad(x, [0, 0, pt, pl, 0, 0, pb + eh, pr + ew_], value=-np.inf) if pt + pl + pb + pr + eh + ew_ else x
    win = _windows(xp, kh, kw, sh, sw, dh, dw, oh, ow)
    y = contiguous(win[:, :, 0, 0])
    for i in range(kh):
        for j in range(kw):
            if i or j:
                maximum(y, win[:, :, i, j], out=y)
    return y


@public_op
@_accept_unbatched
def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               dilation=1):
    """Average pooling. The divisor counts window cells inside the input, plus the explicit
    padding when count_include_pad (never the ceil_mode extension, docs/semantics.md#c-07)."""
    x = np.asarray(x)
    cols, geo = _pool_cols(x, kernel_size, stride, padding, dilation, ceil_mode, 0.0, "avg_pool2d")
    s = reduce_sum(cols, -1)
    kh, kw, sh, sw, dh, dw, pt, pl, pb, pr, eh, ew_ = geo
    h, wd = x.shape[2:]
    ones = full((1, 1, h, wd), 1.0, np.float32)
    if count_include_pad:
        ones = pad(ones, [0, 0, pt, pl, 0, 0, pb, pr], value=1.0)
        ones = pad(ones, [0, 0, 0, 0, 0, 0, eh, ew_])
    else:
        ones = pad(ones, [0, 0, pt, pl, 0, 0, pb + eh, pr + ew_])
    oh, ow = s.shape[2:]
    cc = np.empty((1, 1, oh, ow, kh, kw), np.float32)
    copy_into(cc, _windows(ones, kh, kw, sh, sw, dh, dw, oh, ow).transpose(0, 1, 4, 5, 2, 3))
    cnt = reduce_sum(cc.reshape(1, 1, oh, ow, kh * kw), -1)
    return div(s, np.asarray(cnt, s.dtype) if s.dtype == np.float32 else cast(cnt, s.dtype))


@public_op
def adaptive_avg_pool2d(x, output_size):
    """PyTorch adaptive average pooling: cell i covers [floor(i H / O), ceil((i + 1) H / O))."""
    x = np.asarray(x)
    n, c, h, wd = x.shape
    oh, ow = _ints("adaptive_avg_pool2d", "output_size", output_size)
    out = np.empty((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            h0, h1 = (i * h) // oh, -(-((i + 1) * h) // oh)
            w0, w1 = (j * wd) // ow, -(-((j + 1) * wd) // ow)
            out[:, :, i, j] = mean(x[:, :, h0:h1, w0:w1], (2, 3))
    return out


@public_op
def global_avg_pool2d(x):
    """Mean over H and W, keepdims (N, C, 1, 1) (any spatial rank >= 1)."""
    x = np.asarray(x)
    return mean(x, tuple(range(2, x.ndim)), keepdims=True)


@public_op
def global_max_pool2d(x):
    """Max over the spatial axes, keepdims."""
    x = np.asarray(x)
    return amax(x, tuple(range(2, x.ndim)), keepdims=True)


@public_op
def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum: float = 0.1, eps: float = 1e-5, activation=None, residual=None):
    """Batch norm over axis 1 of x (N, C, ...), float32/float16/bfloat16; per-channel (C,)
    statistics and affine. Inference: (x - mean) / sqrt(var + eps) * w + b with the running
    stats, folded like PyTorch's CPU kernel into one pass y = x * alpha + beta (alpha = w /
    sqrt(var + eps), beta = b - mean * alpha, float32). training=True: batch stats (biased
    variance) normalise, and the running stats are updated in place PyTorch-style:
    r = (1 - momentum) r + momentum * batch (the variance update uses the unbiased batch
    variance). Fused epilogue (ops/affine.py, same pass): ``residual`` (x's shape) is added,
    then ``activation`` ("relu" or None) applies, i.e. act(bn(x) + residual), ResNet's block end.
    Returns y. Errors: ValueError for a bad activation or residual shape."""
    x = np.asarray(x)
    if activation not in (None, "none", "relu"):
        raise ValueError(f"tl.ops.batch_norm: activation must be None or 'relu', got {activation!r}")
    if x.ndim < 2:
        raise ValueError(f"tl.ops.batch_norm: x must be (N, C, ...), got shape {x.shape}")
    c = x.shape[1]
    dt = x.dtype
    f32 = np.float32
    if training:   # batch statistics in float32 (never rounded to x's dtype: they feed alpha, beta)
        axes = (0,) + tuple(range(2, x.ndim))
        v, m = var_mean(x, axes, dtype=f32)
        cnt = x.size // c
        if running_mean is not None:   # C values: float64 (as PyTorch's CPU update), one rounding into the buffers
            f64 = np.float64
            running_mean[...] = momentum * np.asarray(m, f64) + (1 - momentum) * np.asarray(running_mean, f64)
            vu = np.asarray(v, f64) * (cnt / builtins.max(cnt - 1, 1))
            running_var[...] = momentum * vu + (1 - momentum) * np.asarray(running_var, f64)
    else:
        m, v = np.asarray(running_mean, f32), np.asarray(running_var, f32)
    # per-channel alpha, beta in float32 (C values: NumPy is fine here)
    alpha = 1.0 / np.sqrt(v + f32(eps))
    if weight is not None:
        alpha = alpha * np.asarray(weight, f32)
    beta = -m * alpha
    if bias is not None:
        beta = beta + np.asarray(bias, f32)
    res = None if residual is None else np.asarray(residual)
    if res is not None and (res.shape != x.shape or res.dtype != dt):
        raise ValueError(f"tl.ops.batch_norm: residual has shape {res.shape} / dtype {res.dtype}, "
                         f"expected {x.shape} / {dt}")
    y = np.empty(x.shape, dt)
    if x.size == 0:
        return y
    n = x.shape[0]
    rows = n * c
    x2 = x.reshape(rows, -1) if x.flags.c_contiguous else contiguous(x).reshape(rows, -1)
    r2 = x2 if res is None else (res.reshape(rows, -1) if res.flags.c_contiguous else contiguous(res).reshape(rows, -1))
    a = np.ascontiguousarray(np.broadcast_to(alpha.astype(np.float32), (n, c)).reshape(-1))
    b = np.ascontiguousarray(np.broadcast_to(beta.astype(np.float32), (n, c)).reshape(-1))
    act = int(activation == "relu")
    _launch(f"channel_affine__ACT_{act}__DT_{_NAMES[dt]}__RES_{int(res is not None)}", x2, a, b, r2,
            y.reshape(rows, -1))
    return y


@public_op
def layer_norm_axis(x, weight=None, bias=None, axis: int = -1, eps: float = 1e-5):
    """ONNX LayerNormalization: normalise over axes axis..end; returns (y, mean, inv_std_dev)
    with the statistics shaped like x with those axes kept as 1 (float32)."""
    x = np.asarray(x)
    ax = _norm_axis(axis, x.ndim, "layer_norm")
    inner = x.shape[ax:]
    k = int(np.prod(inner))
    x2 = x.reshape(-1, k) if x.flags.c_contiguous else contiguous(x).reshape(-1, k)
    w = None if weight is None else contiguous(np.broadcast_to(np.asarray(weight, x.dtype), inner)).reshape(-1)
    b = None if bias is None else contiguous(np.broadcast_to(np.asarray(bias, x.dtype), inner)).reshape(-1)
    y = layer_norm(x2, w, b, eps).reshape(x.shape)
    v, m = var_mean(cast(x2, np.float32) if x.dtype != np.float32 else x2, 1)
    inv = rsqrt(add(v, np.float32(eps)))
    sshape = x.shape[:ax] + (1,) * (x.ndim - ax)
    return y, m.reshape(sshape), inv.reshape(sshape)


@public_op
def rms_norm_axis(x, weight=None, axis: int = -1, eps: float = 1e-5):
    """ONNX RMSNormalization over axes axis..end."""
    x = np.asarray(x)
    ax = _norm_axis(axis, x.ndim, "rms_norm")
    inner = x.shape[ax:]
    k = int(np.prod(inner))
    x2 = contiguous(x).reshape(-1, k)
    w = None if weight is None else contiguous(np.broadcast_to(np.asarray(weight, x.dtype), inner)).reshape(-1)
    return rms_norm(x2, w, eps).reshape(x.shape)


@public_op
def add_rms_norm(x, residual, weight=None, eps: float = 1e-6):
    """(rms_norm(x + residual), x + residual): the pre-norm residual step."""
    h = add(x, residual)
    return rms_norm(h, weight, eps), h


@public_op
def add_layer_norm(x, residual, weight=None, bias=None, eps: float = 1e-5):
    """(layer_norm(x + residual), x + residual)."""
    h = add(x, residual)
    return layer_norm(h, weight, bias, eps), h


@public_op
def swiglu(gate, up):
    """silu(gate) * up (LLaMA MLP)."""
    return mul(silu(gate), up)


@public_op
@opmath
def cross_entropy(logits, target, ignore_index: int = -100, label_smoothing: float = 0.0,
                  reduction: str = "mean", weight=None):
    """torch.nn.functional.cross_entropy forward. logits (N, C[, d...]) or (C,); target either
    class indices (int, shape (N[, d...]) or ()) or class probabilities (float, the shape of
    logits). Class indices: loss_i = w[t_i] ((ls - 1) logp[t_i]) - ls / C sum_c w[c] logp[c];
    targets equal to ignore_index contribute 0 and are excluded from the mean, which divides by
    sum_i w[t_i] (NaN when every target is ignored, like torch). Probabilities p (smoothed to
    (1 - ls) p + ls / C): loss_i = -sum_c w[c] p_ic logp_ic; the mean divides by N.
    reduction: "mean", "sum" or "none" (shape of target / logits without C).
    Errors: ValueError for shapes, a bad reduction or an out-of-range class index."""
    x = np.asarray(logits)
    tgt = np.asarray(target)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"tl.ops.cross_entropy: unknown reduction {reduction!r}")
    if x.ndim == 0:
        raise ValueError("tl.ops.cross_entropy: logits must have at least one axis")
    unbatched = x.ndim == 1
    if unbatched:
        x = x[None, :]
        tgt = tgt[None, ...]
    dt = x.dtype
    c = x.shape[1]
    ls = float(label_smoothing)
    wts = np.ones(c, dt) if weight is None else np.asarray(weight, dt)
    if wts.shape != (c,):
        raise ValueError(f"tl.ops.cross_entropy: weight has shape {wts.shape}, expected ({c},)")
    lpm = np.moveaxis(log_softmax(x, axis=1), 1, -1).reshape(-1, c)
    rshape = (x.shape[0],) + x.shape[2:]
    if tgt.dtype.kind == "f" or tgt.dtype == bfloat16:
        if tgt.shape != x.shape:
            raise ValueError(f"tl.ops.cross_entropy: probability target shape {tgt.shape} != logits {x.shape}")
        p = np.moveaxis(np.asarray(tgt, dt), 1, -1).reshape(-1, c)
        if ls:
            p = add(mul(p, np.asarray(1 - ls, dt)), np.asarray(ls / c, dt))
        loss = neg(reduce_sum(mul(mul(lpm, p), wts[None, :]), 1))
        denom = float(lpm.shape[0])
    else:
        if tgt.shape != rshape:
            raise ValueError(f"tl.ops.cross_entropy: target shape {tgt.shape} does not match logits "
                             f"{x.shape} (expected {rshape})")
        tf = tgt.astype(np.int64).reshape(-1)
        valid = tf != ignore_index
        if np.any(valid & ((tf < 0) | (tf >= c))):
            raise ValueError(f"tl.ops.cross_entropy: target class out of range [0, {c})")
        tsafe = np.where(valid, tf, 0)
        picked = gather_elements(lpm, tsafe[:, None], 1)[:, 0]
        wt = (gather(wts, tsafe) * valid).astype(dt)
        loss = mul(neg(picked), wt)
        if ls:
            sm = reduce_sum(mul(lpm, wts[None, :]), 1)
            loss = add(mul(loss, np.asarray(1 - ls, dt)),
                          mul(neg(sm), mul(np.asarray(ls / c, dt), valid.astype(dt))))
        denom = float(reduce_sum(wt.astype(np.float32)))
    if reduction == "none":
        return loss.reshape(rshape[1:] if unbatched else rshape)
    tot = reduce_sum(loss)
    if reduction == "sum":
        return tot
    with np.errstate(invalid="ignore", divide="ignore"):
        return div(np.asarray(tot, dt), np.asarray(denom, dt))


@public_op
def dropout(x, p: float = 0.5, training: bool = True, seed: int = 0, return_mask=False):
    """Inverted dropout with a counter-based hash mask (see ops/attention.py); identity when
    not training or p == 0."""
    x = np.asarray(x)
    if not training or p == 0.0:
        y, m = x.copy(), np.ones(x.shape, bool)
    else:
        y = np.empty(x.shape, x.dtype)
        m = np.empty(x.shape, bool)
        if x.size:
            _launch(f"dropout__DT_{_NAMES[x.dtype]}", _to2d(x), y.reshape(_shape2d(x.shape)),
                    m.reshape(_shape2d(x.shape)), float(p), int(seed))
    return (y, m) if return_mask else y


@public_op
@opmath
def rotary_embedding(x, cos, sin, interleaved: bool = False):
    """Rotary position embedding over the last axis (even size D): half-rotation form
    out = x * cos + rotate_half(x) * sin with cos/sin of shape (..., D/2) broadcast against
    x[..., :D/2]; interleaved form rotates pairs (x[2i], x[2i+1])."""
    x = np.asarray(x)
    d = x.shape[-1]
    cos = np.asarray(cos, x.dtype)
    sin = np.asarray(sin, x.dtype)
    if interleaved:
        x1, x2 = x[..., 0::2], x[..., 1::2]
    else:
        x1, x2 = x[..., : d // 2], x[..., d // 2:]
    o1 = sub(mul(x1, cos), mul(x2, sin))
    o2 = add(mul(x2, cos), mul(x1, sin))
    out = np.empty(o1.shape[:-1] + (d,), x.dtype)
    if interleaved:
        copy_into(out[..., 0::2], o1)
        copy_into(out[..., 1::2], o2)
    else:
        copy_into(out[..., : d // 2], o1)
        copy_into(out[..., d // 2:], o2)
    return out


# ----------------------------------------------------------------------------- unbatched input, padding strings
@public_op
def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """2-D convolution (cross-correlation, PyTorch/ONNX): x (N, C, H, W) or unbatched (C, H, W),
    weight (Co, C / groups, KH, KW); padding an int, a pair, (top, left, bottom, right), or
    'valid' (no padding) / 'same' (output size = input size, stride 1 only; an odd total
    padding puts the extra row/column at the bottom/right, like torch); padding values are
    non-negative, stride / dilation positive ints or pairs, groups a positive int, bias None or
    shape (Co,). x and weight: the same dtype (float32, float16, bfloat16; CPU torch bfloat16
    tensors are viewed without a copy); the result is a NumPy array. TypeError for non-int
    stride / padding / dilation / groups or mismatched dtypes; ValueError for bad shapes, bad
    values, an unknown padding string, or 'same' with a stride other than 1."""
    weight = _np(weight, "weight", "conv2d")
    if isinstance(padding, str):
        w = weight
        if w.ndim != 4:
            raise ValueError(f"tl.ops.conv2d: weight must be 4-D (Co, C / groups, KH, KW), got shape {w.shape}")
        if padding == "valid":
            padding = 0
        elif padding == "same":
            if _ints("conv2d", "stride", stride) != (1, 1):
                raise ValueError("tl.ops.conv2d: padding='same' is only supported with stride 1")
            (dh, dw) = _ints("conv2d", "dilation", dilation)
            th, tw = dh * (w.shape[2] - 1), dw * (w.shape[3] - 1)
            padding = (th // 2, tw // 2, th - th // 2, tw - tw // 2)
        else:
            raise ValueError(f"tl.ops.conv2d: padding must be an int, a tuple, 'same' or 'valid', "
                             f"got {padding!r}")
    xa = _np(x, "x", "conv2d")
    if xa.ndim == 3:
        return _conv2d_4d(xa[None], weight, bias, stride, padding, dilation, groups)[0]
    if xa.ndim != 4:
        raise ValueError(f"tl.ops.conv2d: input must be (N, C, H, W) or (C, H, W), got shape {xa.shape}")
    return _conv2d_4d(xa, weight, bias, stride, padding, dilation, groups)




def _as4(x, op):
    x = np.asarray(x)
    if x.ndim == 2:
        return x[None, :, None, :], True
    if x.ndim != 3:
        raise ValueError(f"tl.ops.{op}: x must be (N, C, L) or (C, L), got shape {x.shape}")
    return x[:, :, None, :], False


def _one(v):
    return int(np.atleast_1d(v)[0])


@public_op
def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """Max over windows of ``kernel_size`` along L (NaN propagates)."""
    x4, unb = _as4(x, "max_pool1d")
    st = _one(kernel_size if stride is None else stride)
    y = max_pool2d(x4, (1, _one(kernel_size)), (1, st), (0, _one(padding)), (1, _one(dilation)), ceil_mode)
    y = y[:, :, 0, :]
    return y[0] if unb else y


@public_op
def avg_pool1d(x, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """Mean over windows of ``kernel_size`` along L."""
    x4, unb = _as4(x, "avg_pool1d")
    st = _one(kernel_size if stride is None else stride)
    y = avg_pool2d(x4, (1, _one(kernel_size)), (1, st), (0, _one(padding)), ceil_mode, count_include_pad)
    y = y[:, :, 0, :]
    return y[0] if unb else y


__all__ = names_in(__name__)
