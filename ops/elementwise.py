"""Binary elementwise kernels: add, sub, mul, div (float32, float16, bfloat16).

Every kernel takes rank-2 tensors ``x, y, out`` of one dtype and shape (R, C) with any strides
(stride 0 included: ``tl.ops`` broadcasts with zero strides). Each program writes one (1, 256)
tile; lanes past the edges are dropped. float16/bfloat16 lanes compute in float32 and round once
at the store (correctly rounded for + - * /, since float32 has more than 2p+2 bits).
Instances: ``<op>__DT_<dtype>``.
"""
import tl


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[1], 256), out.shape[0]),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def add(x: tl.tensor(DT, ("M", "N")), y: tl.tensor(DT, ("M", "N")), out: tl.tensor(DT, ("M", "N")),
        DT: tl.constexpr = tl.float32, BM: tl.constexpr = 1, BN: tl.constexpr = 256):
    """out = x + y."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    a = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    b = tl.load(y + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), (a + b).to(DT))


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[1], 256), out.shape[0]),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def sub(x: tl.tensor(DT, ("M", "N")), y: tl.tensor(DT, ("M", "N")), out: tl.tensor(DT, ("M", "N")),
        DT: tl.constexpr = tl.float32, BM: tl.constexpr = 1, BN: tl.constexpr = 256):
    """out = x - y."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    a = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    b = tl.load(y + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), (a - b).to(DT))


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[1], 256), out.shape[0]),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def mul(x: tl.tensor(DT, ("M", "N")), y: tl.tensor(DT, ("M", "N")), out: tl.tensor(DT, ("M", "N")),
        DT: tl.constexpr = tl.float32, BM: tl.constexpr = 1, BN: tl.constexpr = 256):
    """out = x * y."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    a = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    b = tl.load(y + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), (a * b).to(DT))


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[1], 256), out.shape[0]),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def div(x: tl.tensor(DT, ("M", "N")), y: tl.tensor(DT, ("M", "N")), out: tl.tensor(DT, ("M", "N")),
        DT: tl.constexpr = tl.float32, BM: tl.constexpr = 1, BN: tl.constexpr = 256):
    """out = x / y (IEEE: x/0 = ±inf, 0/0 = NaN)."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    a = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    b = tl.load(y + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), (a / b).to(DT))
