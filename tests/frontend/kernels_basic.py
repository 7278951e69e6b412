"""Small TL kernels used by the frontend and interpreter tests.

`from __future__ import annotations` lets Python import a file whose annotations name
constexprs (tl.tensor(DT, 2)); tlc itself never executes the file."""
from __future__ import annotations

import tl


@tl.kernel(grid=lambda x, y, out: (tl.cdiv(out.shape[0], 4), tl.cdiv(out.shape[1], 256)))
def add(x: tl.tensor, y: tl.tensor, out: tl.tensor, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN))
    b = tl.load(y + (r, c), (BM, BN))
    tl.store(out + (r, c), a + b)


@tl.kernel(grid=lambda x, bias, out: (tl.cdiv(out.shape[0], 8),))
def add_bias(x: tl.tensor, bias: tl.tensor(tl.float32, 1), out: tl.tensor, BM: tl.constexpr = 8,
             BN: tl.constexpr = 16):
    r = tl.program_id(0) * BM
    a = tl.load(x + (r, 0), (BM, BN))
    v = tl.load(bias + (0,), (BN,))
    tl.store(out + (r, 0), a + v * 2.0)


@tl.kernel(grid=lambda x, out: (x.shape[0],),
           specializations=[dict(DT=tl.float16), dict(DT=tl.bfloat16), dict(DT=tl.float32)])
def softmax(x: tl.tensor(DT, 2), out: tl.tensor(DT, 2), DT: tl.constexpr = tl.float32,
            BLOCK: tl.constexpr = 64):
    row = tl.program_id(0)
    n = x.shape[1]
    m = tl.full((1,), float("-inf"), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (row, c), (1, BLOCK), other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, tl.max(t, axis=1))
    s = tl.zeros((1,), tl.float32)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (row, c), (1, BLOCK), other=float("-inf")).to(tl.float32)
        s += tl.sum(tl.exp(t - m[:, None]), axis=1)
    for c in range(0, n, BLOCK):
        t = tl.load(x + (row, c), (1, BLOCK), other=float("-inf")).to(tl.float32)
        tl.store(out + (row, c), tl.exp(t - m[:, None]) / s[:, None])


@tl.kernel(grid=lambda a, b, c: (tl.cdiv(c.shape[0], 32), tl.cdiv(c.shape[1], 16)))
def matmul(a: tl.tensor, b: tl.tensor, c: tl.tensor, BK: tl.constexpr = 8):
    tx = tl.program_id(0)
    ty = tl.program_id(1)
    acc = tl.zeros((32, 16), tl.float32)
    for k in range(0, a.shape[1], BK):
        acc += tl.dot(tl.load(a + (tx * 32, k), (32, BK)), tl.load(b + (k, ty * 16), (BK, 16)))
    tl.store(c + (tx * 32, ty * 16), acc)


@tl.kernel(grid=lambda x, out: (1,))
def masked_sum(x: tl.tensor, out: tl.tensor, OP: tl.constexpr = 0, OTHER: tl.constexpr = 0.0):
    offs = tl.arange(0, 256)
    v = tl.load(x + (0,), (256,), mask=offs < 16, other=OTHER)
    if OP == 0:
        r = tl.sum(v, axis=0)
    elif OP == 1:
        r = tl.max(v, axis=0)
    else:
        r = tl.min(v, axis=0)
    tl.store(out + (0,), r)


@tl.kernel(grid=lambda x, out: (x.shape[0],))
def row_reduce(x: tl.tensor, out: tl.tensor(ODT, 1), W: tl.constexpr = 48, OP: tl.constexpr = 0,
               ODT: tl.constexpr = tl.float32):
    row = tl.program_id(0)
    v = tl.load(x + (row, 0), (1, W), other=float("-inf") if OP in (1, 2) else float("inf") if OP == 3 else 0.0)
    if OP == 0:
        r = tl.sum(v, axis=1)
    elif OP == 1:
        r = tl.max(v, axis=1)
    elif OP == 2:
        r = tl.argmax(v, axis=1)
    else:
        r = tl.argmin(v, axis=1)
    tl.store(out + (row,), r)


@tl.kernel(grid=lambda a, b, q, r, tq, tr: (1,))
def intdiv(a: tl.tensor(tl.int32, 1), b: tl.tensor(tl.int32, 1), q: tl.tensor(tl.int32, 1),
           r: tl.tensor(tl.int32, 1), tq: tl.tensor(tl.int32, 1), tr: tl.tensor(tl.int32, 1),
           N: tl.constexpr = 64):
    x = tl.load(a + (0,), (N,))
    y = tl.load(b + (0,), (N,), other=1)
    tl.store(q + (0,), x // y)
    tl.store(r + (0,), x % y)
    tl.store(tq + (0,), tl.truncdiv(x, y))
    tl.store(tr + (0,), tl.fmod(x, y))


@tl.kernel(grid=lambda a, b, mn, mx: (1,))
def minmax(a: tl.tensor, b: tl.tensor, mn: tl.tensor, mx: tl.tensor, N: tl.constexpr = 4):
    x = tl.load(a + (0,), (N,))
    y = tl.load(b + (0,), (N,))
    tl.store(mn + (0,), tl.minimum(x, y))
    tl.store(mx + (0,), tl.maximum(x, y))


@tl.kernel(grid=lambda x, out: (1,))
def recip_ceil(x: tl.tensor, out: tl.tensor):
    v = tl.load(x + (0,), (1,))
    tl.store(out + (0,), 1.0 / (tl.ceil(v) + 0.0))


@tl.kernel(grid=lambda x, out, n: (1,))
def runtime_if(x: tl.tensor, out: tl.tensor, n: tl.int64):
    v = tl.load(x + (0,), (8,))
    if n > 3:
        w = v * 2.0
    else:
        w = v - 1.0
    tl.store(out + (0,), w)
