"""Direct access (tlc/emit_c/direct.py) to a tensor the kernel also writes: a load of ``out`` is
read inside the fused lane loop only when no store lies between it and the loop and every
absorbed store to ``out`` has the load's own view (each vector is read before it is written).
A shifted view or a store in between keeps the buffered load. Checked on the generated C and on
values against a NumPy model of the program order."""
import numpy as np
import pytest

from tlc.emit_c import emit_bundle
from tlc.driver import run_pipeline
from tlc.parse import parse_source
from tlc.backends.cpu.targets import X86_64

SRC = '''
import tl

@tl.kernel(grid=lambda x, out: (out.shape[0],))
def scale_in_place(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
    r = tl.program_id(0)
    for c in range(0, x.shape[1], 32):
        tl.store(out + (r, c), tl.load(x + (r, c), (1, 32)) + 1.0)
    for c in range(0, x.shape[1], 32):
        e = tl.load(out + (r, c), (1, 32))
        tl.store(out + (r, c), e * 3.0)

@tl.kernel(grid=lambda x, out: (out.shape[0],))
def shifted(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
    r = tl.program_id(0)
    for c in range(0, x.shape[1], 32):
        tl.store(out + (r, c), tl.load(x + (r, c), (1, 32)))
    for c in range(16, x.shape[1], 32):
        e = tl.load(out + (r, c - 16), (1, 32))
        tl.store(out + (r, c), e * 2.0)

@tl.kernel(grid=lambda x, out: (out.shape[0],))
def store_between(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
    r = tl.program_id(0)
    for c in range(0, x.shape[1], 32):
        e = tl.load(out + (r, c), (1, 32))
        tl.store(out + (r, c), tl.load(x + (r, c), (1, 32)))
        tl.store(out + (r, c), e + 1.0)
'''


def _kernel_c(name: str) -> str:
    m = run_pipeline(parse_source(SRC, "dio.py"), X86_64.variants[0])
    c = emit_bundle(list(m.kernels), X86_64.variants[0], m.source_file)
    return c.split(f"kernel {name} ")[1].split("/* ==== kernel")[0]


def _reads_out_directly(body: str) -> bool:
    """A read-only row pointer into ``out`` (argument 1) in a direct lane loop."""
    return any(line.strip().startswith("const float* const p") and "a1_d" in line
               for line in body.splitlines())


def test_same_view_load_is_read_in_the_lane_loop():
    assert _reads_out_directly(_kernel_c("scale_in_place"))


@pytest.mark.parametrize("name", ["shifted", "store_between"])
def test_other_views_and_stores_in_between_keep_the_buffered_load(name):
    assert not _reads_out_directly(_kernel_c(name))


def _model(name, x, out):
    """The kernels' program order in NumPy (row by row, tile by tile, 32 wide)."""
    out = out.astype(np.float64).copy()
    n = x.shape[1]
    for r in range(x.shape[0]):
        if name == "scale_in_place":
            out[r] = (x[r] + np.float32(1.0)).astype(np.float32)
            out[r] = (out[r] * 3.0).astype(np.float32)
        elif name == "shifted":
            out[r] = x[r]
            for c in range(16, n, 32):
                e = out[r, c - 16:min(c + 16, n)].copy()
                w = min(32, n - c)
                out[r, c:c + w] = (e[:w] * 2.0).astype(np.float32)
        else:
            out[r] = (out[r] + np.float32(1.0)).astype(np.float32)
    return out


@pytest.mark.parametrize("shape", [(3, 64), (4, 100), (2, 7), (0, 32)])
def test_values(shape, tl_build):
    p = tl_build(SRC)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    for name in ("scale_in_place", "shifted", "store_between"):
        out = rng.standard_normal(shape).astype(np.float32)
        want = _model(name, x, out)
        getattr(p, name)(x, out)
        np.testing.assert_array_equal(out, want.astype(np.float32), err_msg=f"{name} {shape}")
