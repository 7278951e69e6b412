"""The interpreter refuses the argument aliasing the runtime refuses, with the runtime's text."""
import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from tlc.interp import InterpError, interpret_file

SRC = '''import tl


@tl.kernel(grid=lambda x, y, out, BM, BN: (tl.cdiv(out.shape[0], BM), tl.cdiv(out.shape[1], BN)))
def add(x: tl.tensor, y: tl.tensor, out: tl.tensor, BM: tl.constexpr = 4, BN: tl.constexpr = 16):
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    tl.store(out + (r, c), tl.load(x + (r, c), (BM, BN)) + tl.load(y + (r, c), (BM, BN)))
'''


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "add_k.py"
    p.write_text(SRC)
    return str(p)


def test_written_stride_zero(path):
    x = np.ones((4, 4), np.float32)
    out = as_strided(np.zeros(4, np.float32), shape=(4, 4), strides=(0, 4), writeable=True)
    with pytest.raises(InterpError) as e:
        interpret_file(path, "add", [x, x, out])
    assert "kernel add: argument 'out' (#2): is written by the kernel but has stride 0 on axis 0" in str(e.value)


def test_written_overlaps_input(path):
    buf = np.zeros((5, 4), np.float32)
    with pytest.raises(InterpError) as e:
        interpret_file(path, "add", [buf[1:], buf[1:], buf[:4]])
    assert "kernel add: argument 'out' is written by the kernel and overlaps the memory of argument 'x'; " \
           "pass non-overlapping tensors (or the exact same view)" in str(e.value)


def test_in_place_same_view_is_allowed(path):
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    y = np.ones((4, 4), np.float32)
    want = x + 1
    interpret_file(path, "add", [x, y, x])
    np.testing.assert_array_equal(x, want)
