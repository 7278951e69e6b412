"""Implicit-GEMM 2-D convolution (float32), used by ``tl.ops.conv2d`` (tl/_ops_nn.py).

``x``: (N, OH, KH, OW, KW * C) float32 window view of a zero-padded NHWC input ``xp``
(N, Hp, Wp, C): ``x[n, oh, kh, ow, j] = xp[n, oh * SH + kh, ow * SW + j // C, j % C]``, i.e.
strides (Hp*Wp*C, SH*Wp*C, Wp*C, SW*C, 1) (overlapping windows, built with as_strided; no
im2col copy). ``w``: (KH, KW * C, Cout) float32 (``weight.transpose(2, 3, 1, 0)``).
``out``: (N, Cout, OH, OW) float32 NCHW (any strides).

Each program computes a tile of BH x BW output pixels (M = BH * BW rows) by BN output
channels, looping K over (kh, KW*C in BK blocks) with ``tl.dot`` (the assembly microkernel
where the target has one); tails read zeros and out-of-range stores are dropped. Grid
(cdiv(OH, BH), cdiv(OW, BW), N * cdiv(Cout, BN)). Instances ``conv2d_nhwc__BH_<h>__BK_<k>__BN_64__BW_<w>``.

``conv2d_nchw``: NCHW implicit GEMM with the weights as A in their own (Co, C/g * KH * KW)
layout (no reorder) and output pixels as the wide N side of ``tl.dot``, the formulation of
cuDNN's implicit GEMM (Chetlur et al. 2014, "cuDNN: efficient primitives for deep learning")
on a CPU register-blocked microkernel (Georganas et al. 2018, "Anatomy of high-performance
deep learning convolutions on SIMD architectures"). ``x``: (N*G, C/G, KH, KW, PH, OH, OW)
float32 window view, ``w``: (G, Co/G, C/G * KH * KW * PH), ``out``: (N*G, Co/G, OH, OW).
The wrapper (tl/_ops_nn.py) builds views whose innermost axis is unit stride: stride 1 uses
a flattened padded image (OH = 1, OW = OH' * Wp, extra columns dropped). Grid (cdiv(OW, BW),
cdiv(OH, BH), N * G * cdiv(Co/G, BM)); K steps of BC input channels.

``conv2d_taps``: one GEMM per kernel tap on a phase-plane flattened input (built by
tl/_ops_nn.py _taps_plan): ``x`` (N*G, C/G, LN) float32 holds, per channel, the s*s phase planes
xp[a::s, b::s] of the zero-padded input, each (HQ, WQ) flattened; ``taps`` (KH*KW,) int64 the
flat offset of each tap (plane start + row * WQ + column), so output pixel q = oh * WQ + ow of
tap t reads x[z, c, q + taps[t]] for every stride and dilation. ``w``: (G, KH*KW, Co/G, C/G)
float32; ``out``: (N*G, Co/G, QT) (columns ow >= OW computed and dropped by the wrapper).
Each K step is a 2-D unit-stride slice of x, which ``tl.dot`` packs straight from the tensor
(no window copy). One flat loop over (tap, channel block) keeps the accumulator in place. Grid
(cdiv(QT, BW), 1, N * G * cdiv(Co/G, BM)). The loop over taps with a channel GEMM per tap is
the direct convolution of Georganas et al. 2018; strides become unit stride by a space-to-depth
(phase) split of the input.

``conv2d_phase2``: the stride-2 stem (7x7, C = 3) as conv2d_nchw's GEMM without padded taps:
``x`` (N, C, KH, KE, 2, OH, OW) float32 view of the padded input split into even/odd column
phases, x[n, c, kh, t, p, oh, ow] = xp[n, c, 2 * oh + kh, 2 * (ow + t) + p] (tap kw = 2 * t + p;
unit stride along ow); ``w`` (Co, C * KH * (KE + KO)): the even taps (KE of them) of every
(c, kh), then the odd taps (KO). Two dots, K = C * KH * KE and C * KH * KO (3 * 7 * 7 = 147 in
all, where one dot over KW padded to 2 * KE would run 168). Grid (cdiv(OW, BW), cdiv(OH, BH),
N * cdiv(Co, BM)).

``conv2d_dw_taps``: depthwise (groups = C = Co) on the same layout, ``w`` (C, KH*KW):
out[n, c, q] = sum_t w[c, t] * x[n, c, q + taps[t]], a (BC, BW) multiply-add per tap.
"""
import tl


@tl.func
def out_block(out, w, BM: tl.constexpr):
    """(zg, co, g) of program axis 2, which runs over images x groups x output-channel blocks:
    the image-and-group index zg, the first output channel co of this BM block, its group g."""
    z = tl.program_id(2)
    ncb = tl.cdiv(out.shape[1], BM)
    zg = z // ncb
    return zg, (z % ncb) * BM, zg % w.shape[0]


@tl.kernel(grid=lambda x, w, out, BH, BW, BN: (tl.cdiv(out.shape[2], BH), tl.cdiv(out.shape[3], BW),
                                                out.shape[0] * tl.cdiv(out.shape[1], BN)),
           specializations=[dict(BH=1, BW=112, BN=64, BK=24), dict(BH=1, BW=112, BN=64, BK=64),
                            dict(BH=2, BW=56, BN=64, BK=64), dict(BH=4, BW=28, BN=64, BK=64),
                            dict(BH=14, BW=14, BN=64, BK=64), dict(BH=14, BW=8, BN=64, BK=64)])
def conv2d_nhwc(x: tl.tensor(tl.float32, 5), w: tl.tensor(tl.float32, 3), out: tl.tensor(tl.float32, 4),
                BH: tl.constexpr = 2, BW: tl.constexpr = 56, BN: tl.constexpr = 64, BK: tl.constexpr = 64):
    """out[n, co, oh, ow] = sum_{kh, j} x[n, oh, kh, ow, j] * w[kh, j, co]."""
    oh = tl.program_id(0) * BH
    ow = tl.program_id(1) * BW
    z = tl.program_id(2)
    nco = tl.cdiv(out.shape[1], BN)
    n = z // nco
    co = (z % nco) * BN
    acc = tl.zeros((BH * BW, BN), tl.float32)
    for kh in range(0, x.shape[2]):
        for k in range(0, x.shape[4], BK):
            a = tl.reshape(tl.load(x + (n, oh, kh, ow, k), (1, BH, 1, BW, BK)), (BH * BW, BK))
            b = tl.reshape(tl.load(w + (kh, k, co), (1, BK, BN)), (BK, BN))
            acc = tl.dot(a, b, acc)
    tl.store(out + (n, co, oh, ow), tl.reshape(tl.trans(acc), (1, BN, BH, BW)))


@tl.kernel(grid=lambda x, w, out, BM, BH, BW: (tl.cdiv(out.shape[3], BW), tl.cdiv(out.shape[2], BH),
                                                out.shape[0] * tl.cdiv(out.shape[1], BM)),
           specializations=[dict(KH=3, KW=3, PH=1, BC=16, BM=64, BH=1, BW=96),
                            dict(KH=3, KW=3, PH=1, BC=16, BM=64, BH=1, BW=192),
                            dict(KH=3, KW=3, PH=1, BC=16, BM=64, BH=1, BW=224),
                            dict(KH=1, KW=1, PH=1, BC=128, BM=64, BH=1, BW=96),
                            dict(KH=1, KW=1, PH=1, BC=128, BM=64, BH=1, BW=192),
                            dict(KH=1, KW=1, PH=1, BC=128, BM=64, BH=1, BW=224),
                            dict(KH=1, KW=1, PH=1, BC=64, BM=64, BH=1, BW=192),
                            dict(KH=1, KW=1, PH=1, BC=64, BM=64, BH=1, BW=224)])
def conv2d_nchw(x: tl.tensor(tl.float32, 7), w: tl.tensor(tl.float32, 3), out: tl.tensor(tl.float32, 4),
                KH: tl.constexpr = 3, KW: tl.constexpr = 3, PH: tl.constexpr = 1, BC: tl.constexpr = 16,
                BM: tl.constexpr = 64, BH: tl.constexpr = 1, BW: tl.constexpr = 96):
    """out[z, co, oh, ow] = sum_{c, kh, kw, p} w[z % G, co, ((c * KH + kh) * KW + kw) * PH + p]
    * x[z, c, kh, kw, p, oh, ow]."""
    ow = tl.program_id(0) * BW
    oh = tl.program_id(1) * BH
    zg, co, g = out_block(out, w, BM)
    acc = tl.zeros((BM, BH * BW), tl.float32)
    for c in range(0, x.shape[1], BC):
        a = tl.reshape(tl.load(w + (g, co, c * (KH * KW * PH)), (1, BM, BC * KH * KW * PH)), (BM, BC * KH * KW * PH))
        b = tl.reshape(tl.load(x + (zg, c, 0, 0, 0, oh, ow), (1, BC, KH, KW, PH, BH, BW)),
                       (BC * KH * KW * PH, BH * BW))
        acc = tl.dot(a, b, acc)
    tl.store(out + (zg, co, oh, ow), tl.reshape(acc, (1, BM, BH, BW)))


@tl.kernel(grid=lambda x, taps, w, out, BM, BW: (tl.cdiv(out.shape[2], BW), 1,
                                                out.shape[0] * tl.cdiv(out.shape[1], BM)),
           specializations=[dict(BC=64, BM=64, BW=96), dict(BC=64, BM=64, BW=192), dict(BC=64, BM=64, BW=224),
                            dict(BC=32, BM=64, BW=96), dict(BC=32, BM=64, BW=192), dict(BC=32, BM=64, BW=224),
                            dict(BC=16, BM=64, BW=96), dict(BC=16, BM=64, BW=192), dict(BC=16, BM=64, BW=224),
                            dict(BC=64, BM=128, BW=96), dict(BC=64, BM=128, BW=192), dict(BC=64, BM=128, BW=224),
                            dict(BC=32, BM=128, BW=96), dict(BC=32, BM=128, BW=192), dict(BC=32, BM=128, BW=224)])
def conv2d_taps(x: tl.tensor(tl.float32, 3), taps: tl.tensor(tl.int64, 1), w: tl.tensor(tl.float32, 4),
                out: tl.tensor(tl.float32, 3), BC: tl.constexpr = 64, BM: tl.constexpr = 64,
                BW: tl.constexpr = 96):
    """out[z, co, q] = sum_{t, c} w[z % G, t, co, c] * x[z, c, q + taps[t]]."""
    q = tl.program_id(0) * BW
    zg, co, g = out_block(out, w, BM)
    nc = tl.cdiv(x.shape[1], BC)
    acc = tl.zeros((BM, BW), tl.float32)
    for i in range(0, taps.shape[0] * nc):   # one flat loop: the accumulator stays in place
        t = i // nc
        c = (i % nc) * BC
        off = tl.load(taps + (t,))
        a = tl.reshape(tl.load(w + (g, t, co, c), (1, 1, BM, BC)), (BM, BC))
        b = tl.reshape(tl.load(x + (zg, c, q + off), (1, BC, BW)), (BC, BW))
        acc = tl.dot(a, b, acc)
    tl.store(out + (zg, co, q), tl.reshape(acc, (1, BM, BW)))


@tl.kernel(grid=lambda x, taps, w, out, BC, BW: (tl.cdiv(out.shape[2], BW), tl.cdiv(out.shape[1], BC),
                                                out.shape[0]),
           specializations=[dict(BC=8, BW=256)])
def conv2d_dw_taps(x: tl.tensor(tl.float32, 3), taps: tl.tensor(tl.int64, 1), w: tl.tensor(tl.float32, 2),
                   out: tl.tensor(tl.float32, 3), BC: tl.constexpr = 8, BW: tl.constexpr = 256):
    """out[n, c, q] = sum_t w[c, t] * x[n, c, q + taps[t]] (depthwise)."""
    q = tl.program_id(0) * BW
    c = tl.program_id(1) * BC
    n = tl.program_id(2)
    acc = tl.zeros((BC, BW), tl.float32)
    for t in range(0, taps.shape[0]):
        off = tl.load(taps + (t,))
        xt = tl.reshape(tl.load(x + (n, c, q + off), (1, BC, BW)), (BC, BW))
        acc = acc + tl.load(w + (c, t), (BC, 1)) * xt
    tl.store(out + (n, c, q), tl.reshape(acc, (1, BC, BW)))


@tl.kernel(grid=lambda x, w, out, BM, BH, BW: (tl.cdiv(out.shape[3], BW), tl.cdiv(out.shape[2], BH),
                                                out.shape[0] * tl.cdiv(out.shape[1], BM)),
           specializations=[dict(C=3, KH=7, KE=4, KO=3, BM=64, BH=2, BW=112)])
def conv2d_phase2(x: tl.tensor(tl.float32, 7), w: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 4),
                  C: tl.constexpr = 3, KH: tl.constexpr = 7, KE: tl.constexpr = 4, KO: tl.constexpr = 3,
                  BM: tl.constexpr = 64, BH: tl.constexpr = 2, BW: tl.constexpr = 112):
    """out[n, co, oh, ow] = sum_{c, kh, t < KE} w[co, (c * KH + kh) * KE + t] * x[n, c, kh, t, 0, oh, ow]
    + sum_{c, kh, t < KO} w[co, C * KH * KE + (c * KH + kh) * KO + t] * x[n, c, kh, t, 1, oh, ow]."""
    ow = tl.program_id(0) * BW
    oh = tl.program_id(1) * BH
    nco = tl.cdiv(out.shape[1], BM)
    n = tl.program_id(2) // nco
    co = (tl.program_id(2) % nco) * BM
    a = tl.load(w + (co, 0), (BM, C * KH * KE))
    b = tl.reshape(tl.load(x + (n, 0, 0, 0, 0, oh, ow), (1, C, KH, KE, 1, BH, BW)), (C * KH * KE, BH * BW))
    acc = tl.dot(a, b)
    a = tl.load(w + (co, C * KH * KE), (BM, C * KH * KO))
    b = tl.reshape(tl.load(x + (n, 0, 0, 0, 1, oh, ow), (1, C, KH, KO, 1, BH, BW)), (C * KH * KO, BH * BW))
    acc = tl.dot(a, b, acc)
    tl.store(out + (n, co, oh, ow), tl.reshape(acc, (1, BM, BH, BW)))
