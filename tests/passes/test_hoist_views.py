"""Pass hoist_views: a store's view moves before the value it stores, so the C emitter writes the
fused lane loop's result straight into the tensor (no workspace tile, no copy loop), at the top
level and inside a runtime loop; results are checked against NumPy through a built bundle."""
import numpy as np
import pytest

from tlc.emit_c import emit_bundle
from tlc.lower import ir
from tlc.driver import run_pipeline
from tlc.parse import parse_source
from tlc.backends.cpu.targets import X86_64

SRC = '''
import tl

@tl.kernel(grid=lambda x, out: (out.shape[0],))
def late_view(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
    r = tl.program_id(0)
    v = tl.load(x + (r, 0), (1, 64))
    y = v * v + 1.0
    y = tl.where(v < 0.0, -y, y)
    tl.store(out + (r, 0), y)

@tl.kernel(grid=lambda x, out: (out.shape[0],))
def late_view_loop(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
    r = tl.program_id(0)
    for c in range(0, x.shape[1], 32):
        v = tl.load(x + (r, c), (1, 32))
        y = v * 3.0 - 1.0
        tl.store(out + (r, c), y)
'''


def _module():
    return run_pipeline(parse_source(SRC, "hv.py"), X86_64.variants[0])


def _blocks(block):
    yield block
    for op in block.ops:
        for r in op.regions:
            if op.opcode != "fused":
                yield from _blocks(r)


def test_store_view_precedes_the_fused_op():
    for k in _module().kernels:
        seen = 0
        for block in _blocks(k.body):
            ops = list(block.ops)
            for i, op in enumerate(ops):
                if op.opcode == "store":
                    view = op.operands[0]
                    fused = next(o for o in ops if o.opcode == "fused")
                    assert ops.index(view) < ops.index(fused), k.name
                    seen += 1
        assert seen == 1, k.name


def test_other_ops_keep_their_order():
    m0 = parse_source(SRC, "hv.py")
    before = run_pipeline(m0, X86_64.variants[0], passes=["infer_types", "canonicalize", "fuse_elementwise"])
    after = run_pipeline(before, X86_64.variants[0], passes=["hoist_views"])
    for k0, k1 in zip(before.kernels, after.kernels):
        def fixed(k):    # ops the pass must not move: tiles, memory, control
            return [op.opcode for op in ir.walk(k.body)
                    if op.opcode != "view" and not isinstance(op.type, ir.ScalarType)]
        assert fixed(k0) == fixed(k1)
        assert sorted(op.opcode for op in ir.walk(k0.body)) == sorted(op.opcode for op in ir.walk(k1.body))


def test_store_is_absorbed_into_the_lane_loop():
    m = _module()
    c = emit_bundle(list(m.kernels), X86_64.variants[0], m.source_file)
    for name in ("late_view", "late_view_loop"):
        body = c.split(f"kernel {name} ")[1].split("/* ==== kernel")[0]
        fast = body.split("} else {")[0]          # the in-bounds, unit-stride branch
        assert "tl_st_f(p" in fast, name         # stores through a tensor pointer, not a ws tile


@pytest.mark.parametrize("shape", [(5, 64), (3, 96), (0, 64)])
def test_values(shape, tl_build):
    p = tl_build(SRC)
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    x[:, ::7] = -0.0
    out = np.full(shape, np.nan, np.float32)
    p.late_view(x, out[:, :64] if shape[1] > 64 else out)
    ref = x.astype(np.float64) ** 2 + 1.0
    ref = np.where(x < 0, -ref, ref)
    np.testing.assert_allclose(out[:, :64], ref[:, :64].astype(np.float32), rtol=2e-7)
    out2 = np.full(shape, np.nan, np.float32)
    p.late_view_loop(x, out2)
    np.testing.assert_allclose(out2, (x.astype(np.float64) * 3.0 - 1.0).astype(np.float32), rtol=2e-7, atol=1e-7)
