"""TL kernels whose IR, stopped before a pass, is that pass's golden input (see README.md)."""
import tl


@tl.kernel(grid=lambda x, out: (x.shape[0],))
def scale_rows(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2), BLOCK: tl.constexpr = 16):
    """out[r, :BLOCK] = exp(x[r, :BLOCK]) * 2 + x[r, :BLOCK], written the long way round."""
    row = tl.program_id(0)
    t = tl.load((x + (row, 0)) + (0, 0), (1, BLOCK))
    u = t.to(tl.float32)
    unused = tl.exp(u)  # noqa: F841 - dead code for canonicalize
    y = tl.exp(u) * 2.0 + u
    o = out + (row * 1 + 0, 4 * 0)
    tl.store(o, y)


@tl.kernel(grid=lambda x, out: (1,))
def col_max(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2), BLOCK: tl.constexpr = 32):
    """out[0, :BLOCK] = max over rows r of x[r, :BLOCK] (a loop over x.shape[0])."""
    acc = tl.full((1, BLOCK), float("-inf"), tl.float32)
    for r in range(0, x.shape[0]):
        acc = tl.maximum(acc, tl.load(x + (r, 0), (1, BLOCK)))
    tl.store(out + (0, 0), acc)


@tl.kernel(grid=lambda a, b, c: (1,))
def small_matmul(a: tl.tensor(tl.float32, 2), b: tl.tensor(tl.float32, 2), c: tl.tensor(tl.float32, 2),
                 BM: tl.constexpr = 16, BN: tl.constexpr = 32, BK: tl.constexpr = 16):
    """c[:BM, :BN] = a[:BM, :BK] @ b[:BK, :BN]."""
    acc = tl.dot(tl.load(a + (0, 0), (BM, BK)), tl.load(b + (0, 0), (BK, BN)))
    tl.store(c + (0, 0), acc)
