"""Fused linear layer: c = act(a @ w + bias) [+ res] in one kernel (float32).

``a``: (M, K), ``w``: (K, N) (x @ w: in_features x out_features), ``bias``: (N,), ``res``: (M, N)
(read only when RES=1), ``c``: (M, N); any strides. The product is the microkernel ``dot`` of
ops/matmul.py (256 x 128 tiles of c, K steps of 128, fp32 FMA in k order); the epilogue runs on
the finished tile before its single store, so c is written once and never re-read.
ACT: 0 none, 1 relu, 2 gelu (erf form), 3 gelu (tanh form, as x * sigmoid(2u)), 4 silu.
``linear_wide`` is the same with 256 x 256 tiles of c (A is copied half as often per FMA;
``tl.ops.linear`` uses it for large products). Instances: ``linear__ACT_<a>__RES_<r>``,
``linear_wide__ACT_<a>__RES_<r>``.
"""
import tl


@tl.func
def linear_tile(a, w, bias, res, c, ACT: tl.constexpr, RES: tl.constexpr, BM: tl.constexpr,
                BN: tl.constexpr, BK: tl.constexpr):
    """The BM x BN tile of c = act(a @ w + bias) (+ res) at program (row block, column block)."""
    i = tl.program_id(0) * BM
    j = tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, a.shape[1], BK):
        acc = tl.dot(tl.load(a + (i, k), (BM, BK)), tl.load(w + (k, j), (BK, BN)), acc)
    v = acc + tl.load(bias + (j,), (BN,))[None, :]
    if ACT == 1:
        v = tl.maximum(v, 0.0)
    if ACT == 2:
        v = 0.5 * v * (1.0 + tl.erf(v * 0.7071067811865476))
    if ACT == 3:
        v = v * tl.sigmoid(1.5957691216057308 * (v + 0.044715 * v * v * v))
    if ACT == 4:
        v = v * tl.sigmoid(v)
    if RES == 1:
        v = v + tl.load(res + (i, j), (BM, BN))
    tl.store(c + (i, j), v)


@tl.kernel(grid=lambda a, w, bias, res, c: (tl.cdiv(c.shape[0], 256), tl.cdiv(c.shape[1], 128)),
           specializations=[dict(ACT=0, RES=0), dict(ACT=0, RES=1), dict(ACT=1, RES=0), dict(ACT=1, RES=1),
                            dict(ACT=2, RES=0), dict(ACT=2, RES=1), dict(ACT=3, RES=0), dict(ACT=3, RES=1),
                            dict(ACT=4, RES=0), dict(ACT=4, RES=1)])
def linear(a: tl.tensor(tl.float32, ("M", "K")), w: tl.tensor(tl.float32, ("K", "N")),
           bias: tl.tensor(tl.float32, ("N",)), res: tl.tensor(tl.float32, 2),
           c: tl.tensor(tl.float32, ("M", "N")), ACT: tl.constexpr = 0,
           RES: tl.constexpr = 0, BM: tl.constexpr = 256, BN: tl.constexpr = 128, BK: tl.constexpr = 128):
    """c = act(a @ w + bias) (+ res when RES == 1), float32, any strides.

    a: (M, K). w: (K, N), in_features x out_features (c = a @ w); PyTorch's nn.Linear.weight is
    (N, K), so pass its transpose (a (K, N) view of it, strides (1, K), needs no copy). The
    shapes are checked at launch (the contract below: a K or N mismatch is refused), but a square
    weight passed untransposed has the right shape and gives a wrong result with no error. bias: (N,). res: (M, N), read
    only when RES == 1; with RES == 0 it must still be a float32 rank-2 tensor (not read: a
    1 x 1 dummy will do). c: (M, N), written; it must not overlap a, w, bias or res.
    ACT (activation after the bias): 0 none, 1 relu, 2 gelu (erf form), 3 gelu (tanh form),
    4 silu. RES: 0 no residual, 1 adds res after the activation. Grid (cdiv(M, 256), cdiv(N, 128)).
    """
    linear_tile(a, w, bias, res, c, ACT, RES, BM, BN, BK)


@tl.kernel(grid=lambda a, w, bias, res, c: (tl.cdiv(c.shape[0], 256), tl.cdiv(c.shape[1], 256)),
           specializations=[dict(ACT=0, RES=0), dict(ACT=0, RES=1), dict(ACT=1, RES=0), dict(ACT=1, RES=1),
                            dict(ACT=2, RES=0), dict(ACT=2, RES=1), dict(ACT=3, RES=0), dict(ACT=3, RES=1),
                            dict(ACT=4, RES=0), dict(ACT=4, RES=1)])
def linear_wide(a: tl.tensor(tl.float32, ("M", "K")), w: tl.tensor(tl.float32, ("K", "N")),
                bias: tl.tensor(tl.float32, ("N",)), res: tl.tensor(tl.float32, 2),
                c: tl.tensor(tl.float32, ("M", "N")), ACT: tl.constexpr = 0,
                RES: tl.constexpr = 0, BM: tl.constexpr = 256, BN: tl.constexpr = 256, BK: tl.constexpr = 128):
    """``linear`` (the same a, w (K, N), bias, res, c, ACT and RES) in 256 x 256 tiles of c (A copied
    half as often; same fma order, same results). Grid (cdiv(M, 256), cdiv(N, 256))."""
    linear_tile(a, w, bias, res, c, ACT, RES, BM, BN, BK)
