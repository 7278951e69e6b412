"""Scalar loads ``tl.load(view)`` and ``tile.item()``: one element as a scalar, usable as a view
offset (gathers); outside the tensor they read ``other`` (0 by default) and never fault."""
import textwrap

import numpy as np
import pytest

import tl
from tlc.errors import TLCompileError
from tlc.interp import interpret_file
from tlc.parse import parse_source

from fe_helpers import build_source

SRC = textwrap.dedent('''
    import tl

    @tl.kernel(grid=lambda w, idx, out: (idx.shape[0], tl.cdiv(w.shape[1], 64)))
    def rows(w: tl.tensor(tl.float32, 2), idx: tl.tensor(tl.int64, 1), out: tl.tensor(tl.float32, 2)):
        t = tl.program_id(0)
        c = tl.program_id(1) * 64
        i = tl.load(idx + (t,))
        tl.store(out + (t, c), tl.load(w + (i, c), (1, 64)))

    @tl.kernel(grid=lambda x, out: (1,))
    def first_of_sum(x: tl.tensor(tl.int64, 1), out: tl.tensor(tl.float32, 1)):
        s = tl.sum(tl.load(x + (0,), (4,)), axis=0).item()          # a 0-d tile -> scalar
        tl.store(out + (0,), tl.load(out + (s,), other=-1.5))       # outside: other
''')


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_source(tmp_path_factory, "scalar_load", SRC)


@pytest.fixture(scope="module")
def src_file(built):
    return built[0]


@pytest.fixture(scope="module")
def pkg(built):
    return built[1]


def _case(rng):
    w = rng.standard_normal((37, 130)).astype(np.float32)
    idx = rng.integers(0, 37, 11)
    idx[3], idx[5] = 37, -1                                  # outside the tensor: rows of zeros
    want = np.where(((idx >= 0) & (idx < 37))[:, None], w[np.clip(idx, 0, 36)], 0).astype(np.float32)
    return w, idx, np.full((11, 130), np.nan, np.float32), want


def test_scalar_index_rows_compiled(pkg):
    w, idx, out, want = _case(np.random.default_rng(7))
    pkg.rows(w, idx, out)
    np.testing.assert_array_equal(out, want)


def test_scalar_index_rows_interpreted(src_file):
    w, idx, out, want = _case(np.random.default_rng(8))
    interpret_file(str(src_file), "rows", (w, idx, out), grid=(11, 3))
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("vals,want", [([1, 1, 1, 0], 3.0), ([1, 2, 3, 3], -1.5), ([0, 0, 0, -1], -1.5)])
def test_item_and_other(pkg, vals, want):
    out = np.arange(5, dtype=np.float32)
    pkg.first_of_sum(np.array(vals, np.int64), out)
    assert out[0] == want


def test_errors():
    hdr = "import tl\n@tl.kernel\ndef k(x: tl.tensor(tl.float32, 2)):\n"
    with pytest.raises(TLCompileError, match="scalar load .no shape. takes no mask"):
        parse_source(hdr + "    v = tl.load(x + (0, 0), mask=True)\n", "t.py")
    with pytest.raises(TLCompileError, match=r"\.item\(\) needs a tile of one element"):
        parse_source(hdr + "    v = tl.load(x + (0, 0), (2, 2)).item()\n", "t.py")
