"""Located errors: each case checks the message, line, column and the caret line."""
import pytest

from tlc.errors import TLCompileError
from tlc.parse import parse_source

from fe_helpers import assert_located

HDR = ("import tl\n\n@tl.kernel\n"
       "def k(x: tl.tensor(tl.float32, 2), y: tl.tensor(tl.float32, 2), n: tl.int64):\n")
# body lines start at line 5

CASES = [
    ("while", "    i = 0\n    while i < 3:\n        i += 1\n", 6, 5, "`while` loops are not supported"),
    ("unknown builtin", "    v = tl.lod(x + (0, 0), (4, 4))\n", 5, 9, "unknown builtin `tl.lod`"),
    ("unknown function", "    v = foo(1)\n", 5, 9, "unknown function `foo`"),
    ("broadcast", "    a = tl.zeros((4, 3), tl.float32)\n    b = tl.zeros((5,), tl.float32)\n"
                  "    c = a + b\n", 7, 9, "(4, 3) and (5,)"),
    ("view offsets", "    v = tl.load(x + (0, 0, 1), (4, 4))\n", 5, 17,
     "wrong number of view offsets: the tensor has rank 2 but 3 offsets were given"),
    ("carried", "    acc = tl.zeros((4, 4), tl.float32)\n    for i in range(0, n, 4):\n"
                "        acc = acc.to(tl.float16)\n", 7, 9,
     "loop-carried `acc` changes type from tile<4x4xf32> to tile<4x4xf16>"),
    ("undefined", "    v = tl.load(x + (0, 0), (4, 4))\n    tl.store(y + (0, 0), w)\n", 6, 26,
     "undefined name `w`"),
    ("store rank", "    v = tl.load(x + (0, 0), (4, 4))\n    tl.store(y + (0, 0), tl.sum(v, axis=0))\n",
     6, 5, "store of wrong rank: the tensor has rank 2 but the value has shape (4,)"),
    ("one branch", "    if n > 3:\n        w = 1.0\n    tl.store(y + (0, 0), w)\n", 7, 26,
     "assigned in only one branch"),
    ("lambda", "    f = lambda: 1\n", 5, 9, "lambda is not supported"),
    ("tile attr", "    v = tl.load(x + (0, 0), (4, 4))\n    w = v.foo\n", 6, 9, "no attribute `foo`"),
    ("bad kwarg", "    v = tl.load(x + (0, 0), (4, 4), bogus=1)\n", 5, 9, "unexpected keyword"),
    ("static_assert", "    tl.static_assert(1 == 2, 'nope')\n", 5, 5, "static assertion failed: nope"),
    ("break", "    for i in range(0, n):\n        break\n", 6, 9, "`break` is not supported"),
    ("list comp", "    a = [i for i in range(3)]\n", 5, 9, "list comprehensions"),
    ("return value", "    return 1\n", 5, 5, "cannot return a value"),
    ("dot", "    c = tl.dot(tl.zeros((4, 3), tl.float32), tl.zeros((4, 3), tl.float32))\n", 5, 9,
     "(4, 3) x (4, 3)"),
    ("runtime if tile", "    v = tl.load(x + (0, 0), (4, 4))\n    if v > 0:\n        pass\n", 6, 8,
     "must be a scalar"),
]


@pytest.mark.parametrize("name,body,line,col,msg", CASES, ids=[c[0] for c in CASES])
def test_located_error(name, body, line, col, msg):
    assert_located(HDR + body, line, col, msg)


def test_no_traceback_for_internal_errors(monkeypatch):
    from tlc.parse import builtins as B
    monkeypatch.setitem(B.BUILTINS, "exp", lambda fv, x: 1 / None)
    with pytest.raises(TLCompileError) as ei:
        parse_source(HDR + "    v = tl.exp(1.0)\n", "t.py")
    assert "internal compiler error" in ei.value.message
    assert (ei.value.loc.line, ei.value.loc.col) == (5, 9)


def test_syntax_error_is_located():
    with pytest.raises(TLCompileError) as ei:
        parse_source(HDR + "    v = (\n", "t.py")
    assert ei.value.loc.line >= 5


_DUP_K = '''import tl

@tl.kernel(grid=lambda x: (1,))
def k(x: tl.tensor(tl.float32, 1)):
    tl.store(x + (0,), tl.load(x + (0,), (16,)))
'''


def test_same_kernel_name_twice_in_one_file():
    e = assert_located(_DUP_K + "\n" + _DUP_K.split("\n", 1)[1], 9, 1, "kernel 'k' is defined twice in this file")
    assert "`def k` at t.py:4:1 and `def k` at t.py:9:1" in e.message


def test_specialization_named_like_another_kernel():
    src = _DUP_K.replace("(1,))", "(1,), specializations=[dict(DT=tl.float32)])").replace(
        "tl.float32, 1)", "DT, 1), DT: tl.constexpr = tl.float32") + "\n" + \
        _DUP_K.split("\n", 1)[1].replace("def k(", "def k__DT_float32(")
    e = assert_located(src, 9, 1, "kernel 'k__DT_float32' is defined twice in this file")
    assert "a specialization of `k` at t.py:4:1 and `def k__DT_float32` at t.py:9:1" in e.message
    # a specialization repeated in one list is the same redefinition
    rep = _DUP_K.replace("(1,))", "(1,), specializations=[dict(B=2), dict(B=2)])").replace(
        "tl.float32, 1)", "tl.float32, 1), B: tl.constexpr = 1")
    assert_located(rep, 4, 1, "kernel 'k__B_2' is defined twice in this file")
