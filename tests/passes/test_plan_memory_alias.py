"""plan_memory: a ``for``'s tile init that dies at the loop shares the carried arg's buffer (no
init copy); an init still used after the loop, or passed as two carried values, keeps its own."""
import numpy as np
import pytest

from tlc.lower import ir
from tlc.driver import run_pipeline
from tlc.parse import parse_source
from tlc.backends.cpu.targets import X86_64

SRC = '''
import tl

@tl.kernel(grid=lambda x, out, out2: (1,))
def dies(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2), out2: tl.tensor(tl.float32, 2)):
    acc = tl.load(x + (0, 0), (4, 64)) * 2.0
    for c in range(1, x.shape[0] // 4):
        acc = acc + tl.load(x + (4 * c, 0), (4, 64))
    tl.store(out + (0, 0), acc)

@tl.kernel(grid=lambda x, out, out2: (1,))
def lives(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2), out2: tl.tensor(tl.float32, 2)):
    z = tl.load(x + (0, 0), (4, 64)) * 2.0
    acc = z
    for c in range(1, x.shape[0] // 4):
        acc = acc + tl.load(x + (4 * c, 0), (4, 64))
    tl.store(out + (0, 0), acc)
    tl.store(out2 + (0, 0), z)

@tl.kernel(grid=lambda x, out, out2: (1,))
def twice(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2), out2: tl.tensor(tl.float32, 2)):
    z = tl.load(x + (0, 0), (4, 64)) * 2.0
    a = z
    b = z
    for c in range(1, x.shape[0] // 4):
        t = tl.load(x + (4 * c, 0), (4, 64))
        a = a + t
        b = b - t
    tl.store(out + (0, 0), a)
    tl.store(out2 + (0, 0), b)
'''


def _loops(m):
    return {k.name: next(op for op in ir.walk(k.body) if op.opcode == "for") for k in m.kernels}


def test_init_shares_the_carried_buffer_only_when_it_dies_at_the_loop():
    loops = _loops(run_pipeline(parse_source(SRC, "pm.py"), X86_64.variants[0]))
    for name, loop in loops.items():
        inits = loop.operands[3:]
        args = loop.regions[0].args[1:]
        shared = [i.attr("buf") == a.attr("buf") for i, a in zip(inits, args)]
        assert shared == {"dies": [True], "lives": [False], "twice": [False, False]}[name], name
        bufs = [a.attr("buf") for a in args]
        assert len(set(bufs)) == len(bufs)


def test_values(tl_build):
    p = tl_build(SRC)
    x = np.random.default_rng(2).standard_normal((20, 64)).astype(np.float32)
    blocks = x.astype(np.float64).reshape(5, 4, 64)
    z = 2.0 * blocks[0]
    for name, want, want2 in (("dies", z + blocks[1:].sum(0), None), ("lives", z + blocks[1:].sum(0), z),
                              ("twice", z + blocks[1:].sum(0), z - blocks[1:].sum(0))):
        out, out2 = np.full((4, 64), np.nan, np.float32), np.full((4, 64), np.nan, np.float32)
        getattr(p, name)(x, out, out2)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5, err_msg=name)
        if want2 is not None:
            np.testing.assert_allclose(out2, want2, rtol=1e-5, atol=1e-5, err_msg=name)
