"""``where`` on a gt/lt of its own two float values is emitted as TL_VMAX / TL_VMIN (one
maxps/minps on x86, tlc/emit_c/rules/elementwise.py _min_max): the four forms keep where's exact results,
NaN in either operand, signed zeros and infinities included; other forms stay selects."""
import numpy as np
import pytest

from tlc.emit_c import emit_bundle
from tlc.driver import run_pipeline
from tlc.parse import parse_source
from tlc.backends.cpu.targets import X86_64

SRC = '''
import tl

@tl.kernel(grid=lambda a, b, out: (1,))
def forms(a: tl.tensor(tl.float32, 1), b: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 2)):
    x = tl.load(a + (0,), (64,))
    y = tl.load(b + (0,), (64,))
    tl.store(out + (0, 0), tl.where(x > y, x, y).reshape(1, 64))
    tl.store(out + (1, 0), tl.where(x < y, x, y).reshape(1, 64))
    tl.store(out + (2, 0), tl.where(x > y, y, x).reshape(1, 64))
    tl.store(out + (3, 0), tl.where(x < y, y, x).reshape(1, 64))
    tl.store(out + (4, 0), tl.where(x >= y, x, y).reshape(1, 64))
'''


def test_forms_become_min_max():
    m = run_pipeline(parse_source(SRC, "mm.py"), X86_64.variants[0])
    c = emit_bundle(list(m.kernels), X86_64.variants[0], m.source_file)
    body = c.split("kernel forms ")[1]
    assert body.count("TL_VMAX(") == 2 and body.count("TL_VMIN(") == 2, body
    assert "tl_sel_f(" in body          # x >= y keeps its select (maxps differs on +-0)


def test_values(tl_build):
    p = tl_build(SRC)
    special = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, -1.0]
    a = np.array([u for u in special for _ in special], np.float32)
    b = np.array([v for _ in special for v in special], np.float32)
    out = np.full((5, 64), 7.0, np.float32)
    p.forms(a, b, out)
    with np.errstate(invalid="ignore"):
        want = [np.where(a > b, a, b), np.where(a < b, a, b), np.where(a > b, b, a),
                np.where(a < b, b, a), np.where(a >= b, a, b)]
    for k, w in enumerate(want):
        np.testing.assert_array_equal(out[k].view(np.uint32), w.astype(np.float32).view(np.uint32),
                                      err_msg=f"form {k}")
