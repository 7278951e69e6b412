"""Frontend messages from a fresh user's report: runtime tile shapes, inferred ranks, strings,
character columns for non-ASCII source, grid lambdas with constexpr params. No message shows an
IR repr (``Op(``, ``ScalarType(``...)."""
import numpy as np
import pytest

from tlc.errors import TLCompileError
from tlc.parse import parse_source

IR_REPRS = ("Op(", "ScalarType(", "TileType(", "TensorType(", "Loc(")


def _error(src) -> TLCompileError:
    with pytest.raises(TLCompileError) as ei:
        parse_source(src, "t.py")
    text = str(ei.value)
    assert not any(r in text for r in IR_REPRS), text
    return ei.value


def _kernel(params, body):
    return f"import tl\n\n@tl.kernel(grid=lambda {params.split(':')[0]}: (1,))\ndef k({params}):\n" + body


def test_runtime_shape_names_the_variable():
    e = _error(_kernel("x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)",
                       "    n = x.shape[0]\n    a = tl.load(x, (n, 16))\n    tl.store(out, a)\n"))
    assert "tile shapes must be compile-time constants (tl.constexpr or literals); `n` is a runtime value" \
        in e.message, e.message
    assert (e.loc.line, e.loc.col) == (6, 9)


def test_runtime_scalar_param_as_shape():
    e = _error(_kernel("x: tl.tensor(tl.float32, 2), m: tl.int64",
                       "    a = tl.zeros((m, 4), tl.float32)\n"))
    assert "`m` is a runtime value" in e.message, e.message


def test_unnamed_runtime_shape_is_described_at_tl_level():
    e = _error(_kernel("x: tl.tensor(tl.float32, 2)", "    a = tl.load(x, (x.shape[0] * 2, 4))\n"))
    assert "runtime int64 scalar" in e.message, e.message


def test_tile_is_described_as_tile_type():
    e = _error(_kernel("x: tl.tensor(tl.float32, 2)",
                       "    a = tl.load(x, (4, 16))\n    b = tl.arange(0, a)\n"))
    assert "tile<4x16xf32>" in e.message, e.message


def test_store_infers_rank_from_value():
    m = parse_source(_kernel("x: tl.tensor, out: tl.tensor",
                             "    a = tl.load(x, (4, 16))\n    tl.store(out, a * 2.0)\n"), "t.py")
    ranks = {p.name: p.rank for p in m.kernels[0].params}
    assert ranks == {"x": 2, "out": 2}


def test_inferred_rank_errors_say_so():
    e = _error(_kernel("x: tl.tensor, out: tl.tensor",
                       "    tl.store(out + (0,), tl.load(x + (0, 0), (1, 4)))\n"))
    assert "`out` has rank 1, inferred from its first use at t.py:5:14; declare it with " \
           "`out: tl.tensor(tl.float32, 2)`" in e.message, e.message
    e = _error(_kernel("x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 1)",
                       "    tl.store(out, tl.load(x, (4, 4)))\n"))
    assert "inferred" not in e.message and "store of wrong rank" in e.message


def test_strings_are_refused():
    e = _error(_kernel("x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)",
                       "    a = tl.load(x, (4, 16))\n    tl.store(out, a + \"hello\")\n"))
    assert e.message == "strings are not supported in kernels"
    assert (e.loc.line, e.loc.col) == (6, 19)
    e = _error(_kernel("x: tl.tensor(tl.float32, 2)", "    a = tl.full((4,), 'x', tl.float32)\n"))
    assert "strings are not supported in kernels" in e.message


def test_columns_count_characters_not_bytes():
    src = _kernel("x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)",
                  "    α = tl.load(x, (4, 16))\n    tl.store(out, α + β)\n")
    e = _error(src)
    assert e.message == "undefined name `β`" and (e.loc.line, e.loc.col) == (6, 23)
    src_line, caret = str(e).splitlines()[1:3]
    assert src_line[caret.index("^")] == "β"


def test_grid_lambda_takes_constexprs(tmp_path):
    src = '''import tl


@tl.kernel(grid=lambda x, y, out, BM, BN: (tl.cdiv(out.shape[0], BM), tl.cdiv(out.shape[1], BN)),
           specializations=[dict(BM=2, BN=64), dict(BM=4, BN=256)])
def add(x: tl.tensor, y: tl.tensor, out: tl.tensor, BM: tl.constexpr = 4, BN: tl.constexpr = 256):
    r = tl.program_id(0) * BM
    c = tl.program_id(1) * BN
    a = tl.load(x + (r, c), (BM, BN))
    b = tl.load(y + (r, c), (BM, BN))
    tl.store(out + (r, c), a + b)
'''
    p = tmp_path / "gadd.py"
    p.write_text(src)
    from tlc.interp import interpret_file
    rng = np.random.default_rng(1)
    x = rng.standard_normal((9, 300)).astype(np.float32)
    y = rng.standard_normal((9, 300)).astype(np.float32)
    for name in ("add__BM_2__BN_64", "add__BM_4__BN_256"):
        out = np.full_like(x, np.nan)
        interpret_file(str(p), name, [x, y, out])
        np.testing.assert_array_equal(out, x + y)


@pytest.mark.parametrize("body, dtype, col", [
    ("    t = tl.load(x + (2**70,), (4,))\n", "int64", 17),
    ("    t = tl.load(x + (0,), (4,)) + 2**63\n", "int64", 9),
    ("    t = tl.full((4,), 2**40, tl.int32)\n", "int32", 9),
    ("    t = tl.full((4,), -129, tl.int8)\n", "int8", 9),
])
def test_integer_literal_that_does_not_fit_is_an_error(body, dtype, col):
    """A literal outside its dtype's range is a located error, never a silently wrapped value
    (2**70 used to read x[0:4]; tl.full(.., 2**40, tl.int32) stored 0)."""
    e = _error(_kernel("x: tl.tensor(tl.int64, 1)", body + "    tl.store(x + (0,), t)\n"))
    assert f"does not fit {dtype}" in e.message, e.message
    assert e.loc.line == 5, e.loc


def test_integer_literals_at_the_limits_compile():
    parse_source(_kernel("x: tl.tensor(tl.int64, 1)",
                         "    t = tl.load(x + (0,), (4,)) + (2**63 - 1) + (-2**63)\n"
                         "    u = tl.full((4,), 2**31 - 1, tl.int32) + tl.full((4,), -2**31, tl.int32)\n"
                         "    tl.store(x + (0,), t + u.to(tl.int64))\n"), "t.py")


def test_bitwise_operator_on_floats_names_the_operator():
    e = _error(_kernel("x: tl.tensor(tl.float32, 1)",
                       "    t = tl.load(x + (0,), (4,))\n    tl.store(x + (0,), t & 1.0)\n"))
    assert "`&` (bitwise and) needs bool or integer operands" in e.message, e.message
