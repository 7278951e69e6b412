"""Per-row affine transform with an optional residual and ReLU: the inference batch norm
epilogue (float32, float16, bfloat16).

``x, res, out``: rank-2 tensors (R, L) of dtype DT, any strides (rows are the (n, c) planes of an
(N, C, H, W) tensor, L = H * W); ``scale, shift``: float32 rank-1 (R,) (per-channel values
repeated per batch). out[r, :] = act(x[r, :] * scale[r] + shift[r] (+ res[r, :])), computed in
float32 (a multiply then an add: two roundings, as PyTorch's CPU batch norm transform
``x * alpha + beta``) and rounded once to DT. ACT = 1 applies max(y, 0) (NaN propagates), RES = 1
adds ``res`` (else it is not read). One (1, 256) tile per program.
Instances: ``channel_affine__ACT_<0|1>__DT_<dtype>__RES_<0|1>``.
"""
import tl


@tl.kernel(grid=lambda x, scale, shift, res, out: (tl.cdiv(out.shape[1], 256), out.shape[0]),
           specializations=[
                            dict(DT=tl.float32, ACT=0, RES=0), dict(DT=tl.float32, ACT=0, RES=1),
                            dict(DT=tl.float32, ACT=1, RES=0), dict(DT=tl.float32, ACT=1, RES=1),
                            dict(DT=tl.float16, ACT=0, RES=0), dict(DT=tl.float16, ACT=0, RES=1),
                            dict(DT=tl.float16, ACT=1, RES=0), dict(DT=tl.float16, ACT=1, RES=1),
                            dict(DT=tl.bfloat16, ACT=0, RES=0), dict(DT=tl.bfloat16, ACT=0, RES=1),
                            dict(DT=tl.bfloat16, ACT=1, RES=0), dict(DT=tl.bfloat16, ACT=1, RES=1)])
def channel_affine(x: tl.tensor(DT, 2), scale: tl.tensor(tl.float32, 1), shift: tl.tensor(tl.float32, 1),
                   res: tl.tensor(DT, 2), out: tl.tensor(DT, 2), DT: tl.constexpr = tl.float32,
                   ACT: tl.constexpr = 0, RES: tl.constexpr = 0, BN: tl.constexpr = 256):
    """out[r, :] = act(x[r, :] * scale[r] + shift[r] (+ res[r, :] when RES == 1)).

    x, res, out: (R, L) of dtype DT, any strides; scale, shift: float32 (R,). res is read only
    when RES == 1; with RES == 0 it must still be a rank-2 DT tensor (a 1 x 1 dummy will do).
    ACT: 0 none, 1 relu (max(y, 0), after the residual). RES: 0 none, 1 adds res.
    """
    r = tl.program_id(1)
    c = tl.program_id(0) * BN
    s = tl.load(scale + (r,))
    b = tl.load(shift + (r,))
    y = tl.load(x + (r, c), (1, BN)).to(tl.float32) * s + b
    if RES == 1:
        y = y + tl.load(res + (r, c), (1, BN)).to(tl.float32)
    if ACT == 1:
        y = tl.maximum(y, 0.0)
    tl.store(out + (r, c), y.to(DT))
