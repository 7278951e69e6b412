"""Unary activation and math kernels: relu, gelu (erf form), gelu_tanh, silu, sigmoid, exp, tanh.

Each kernel takes rank-2 tensors ``x, out`` of one float dtype (float32, float16, bfloat16), any
strides; one (4, 256) tile per program, programs ordered along the rows (axis 0 of the grid walks the
columns, so consecutive programs read consecutive memory); math in float32, rounded once at the store.
Instances: ``<op>__DT_<dtype>``.

gelu (erf form) avoids the cancellation of ``1 + erf(x/sqrt2)`` for x < 0 (SEMANTICS C-21):
it evaluates E = erfc(|x|/sqrt2) once for every x, 0.5*x*E for x < 0 and 0.5*x*(2 - E) for x >= 0
(2 - E >= 1, so E's relative error stays relative; no separate erf), with E = t*exp(P(t))*exp(-x^2/2) and
t = 1/(1 + z/2), z = |x|/sqrt2, and P the Chebyshev fit of Numerical Recipes' ``erfcc``
(fractional error < 1.2e-7 for all z >= 0). x^2/2 is split as xh^2/2 + xl*(|x|+xh)/2 with
xh = floor(16|x|)/16 so that xh^2 is exact in float32 and exp(-x^2/2) keeps full relative
accuracy deep in the tail (gelu(-10) = -7.6199e-23). x < -16 gives 0 (the float32 result
underflows there). The tanh form is written as x*sigmoid(2u) (equal to 0.5x(1+tanh(u))),
which does not cancel either.
"""
import tl


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[1], 256), tl.cdiv(out.shape[0], 4)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def relu(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
         DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = max(x, 0); NaN propagates, relu(-0.0) = +0.0."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), tl.maximum(v, 0.0).to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[1], 256), tl.cdiv(out.shape[0], 4)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def gelu(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
         DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = 0.5*x*erfc(-x/sqrt2) (exact GELU), without cancellation for x < 0."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    a = tl.abs(v)
    z = a * 0.7071067811865476
    t = 1.0 / (1.0 + 0.5 * z)
    p = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    ac = tl.minimum(a, 16.0)
    ah = tl.floor(ac * 16.0) * 0.0625
    al = ac - ah
    e1 = tl.exp(p - 0.5 * (al * (ac + ah)))
    e2 = tl.exp(-0.5 * (ah * ah))
    neg = (0.5 * v * t) * e1 * e2
    pos = 0.5 * v * (2.0 - t * e1 * e2)
    y = tl.where(v >= 0.0, pos, tl.where(v < -16.0, 0.0, neg))
    tl.store(out + (r, c), y.to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[1], 256), tl.cdiv(out.shape[0], 4)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def gelu_tanh(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
              DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715 x^3))), computed as x*sigmoid(2u)."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    u2 = 1.5957691216057308 * (v + 0.044715 * (v * v * v))
    y = v * tl.sigmoid(u2)
    y = tl.where(v < -1.0e30, 0.0, y)
    tl.store(out + (r, c), y.to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[1], 256), tl.cdiv(out.shape[0], 4)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def silu(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
         DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = x * sigmoid(x)."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), (v * tl.sigmoid(v)).to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[1], 256), tl.cdiv(out.shape[0], 4)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def sigmoid(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
            DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = 1 / (1 + exp(-x))."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), tl.sigmoid(v).to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[1], 256), tl.cdiv(out.shape[0], 4)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def exp(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
        DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = exp(x)."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), tl.exp(v).to(DT))


@tl.kernel(grid=lambda x, out: (tl.cdiv(out.shape[1], 256), tl.cdiv(out.shape[0], 4)),
           specializations=[dict(DT=tl.float32), dict(DT=tl.float16), dict(DT=tl.bfloat16)])
def tanh(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2),
         DT: tl.constexpr = tl.float32, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    """out = tanh(x)."""
    r = tl.program_id(1) * BM
    c = tl.program_id(0) * BN
    v = tl.load(x + (r, c), (BM, BN)).to(tl.float32)
    tl.store(out + (r, c), tl.tanh(v).to(DT))
