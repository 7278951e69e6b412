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
"""
import tl


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
