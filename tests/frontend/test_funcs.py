"""``@tl.func`` device functions: inlined calls give the same values as the body written inline
(compiled and interpreted, against float64 NumPy), and every misuse is a located error."""
import math
import textwrap

import numpy as np
import pytest

import tl
from tlc.interp import interpret_file
from tlc.parse import parse_source

from fe_helpers import assert_located, build_source

SRC = textwrap.dedent('''
    import tl

    SCALE = 0.7071067811865476

    @tl.func
    def load_rows(x: tl.tensor, r, BM: tl.constexpr, BN: tl.constexpr = 64):
        return tl.load(x + (r, 0), (BM, BN))

    @tl.func
    def gelu(v):
        return 0.5 * v * (1.0 + tl.erf(v * SCALE))

    @tl.func
    def stats(v):
        s = tl.sum(v, axis=1)
        return s, tl.max(v, axis=1)

    @tl.func
    def row_stats(v):
        return stats(v)                     # a func calling a func

    @tl.func
    def put(out, r, v):                     # unannotated tensor: rank inferred through the call
        tl.store(out + (r, 0), v)

    @tl.kernel(grid=lambda x, out, s, m, BM: (tl.cdiv(x.shape[0], BM),))
    def k(x, out, s: tl.tensor(tl.float32, 1), m: tl.tensor(tl.float32, 1),
          BM: tl.constexpr = 4):
        r = tl.program_id(0) * BM
        v = load_rows(x, r, BM=BM)
        put(out, r, gelu(v))
        a, b = row_stats(v)
        tl.store(s + (r,), a)
        tl.store(m + (r,), b)

    @tl.func
    def twice(acc, t):
        return acc + 2.0 * t

    @tl.kernel(grid=lambda x, out: (1,))
    def loop_sum(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
        acc = tl.zeros((1, 64), tl.float32)
        for r in range(0, x.shape[0]):
            acc = twice(acc, load_rows(x, r, 1))
        tl.store(out + (0, 0), acc)
''')


def _reference(x):
    x64 = x.astype(np.float64)
    erf = np.vectorize(math.erf)
    with np.errstate(invalid="ignore"):      # gelu(-inf) = -inf * 0 = NaN, as in the kernel
            return 0.5 * x64 * (1 + erf(x64 / math.sqrt(2))), x64.sum(1), x64.max(1)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_source(tmp_path_factory, "funcs_kernels", SRC)


@pytest.fixture(scope="module")
def src_file(built):
    return built[0]


@pytest.fixture(scope="module")
def pkg(built):
    return built[1]


def _args(rng, rows):
    x = rng.standard_normal((rows, 64)).astype(np.float32)
    x[0, :3] = [np.inf, -np.inf, -0.0] if rows else x[0, :3]
    return x, np.full_like(x, np.nan), np.full(rows, np.nan, np.float32), np.full(rows, np.nan, np.float32)


@pytest.mark.parametrize("rows", [1, 7, 13])
def test_inlined_calls_compiled(pkg, rows):
    rng = np.random.default_rng(rows)
    x, out, s, m = _args(rng, rows)
    pkg.k(x, out, s, m)
    g, s_ref, m_ref = _reference(x)
    np.testing.assert_allclose(out, g, rtol=3e-6, atol=1e-6)     # erf: <= 2.45 ulp (docs/design.md)
    np.testing.assert_allclose(s, s_ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(m, m_ref.astype(np.float32))


def test_inlined_calls_interpreted(src_file):
    rng = np.random.default_rng(5)
    x, out, s, m = _args(rng, 9)
    interpret_file(str(src_file), "k", (x, out, s, m), grid=(3,))
    g, s_ref, m_ref = _reference(x)
    np.testing.assert_allclose(out, g, rtol=3e-6, atol=1e-6)
    np.testing.assert_allclose(s, s_ref, rtol=1e-5, atol=1e-5)


def test_func_inside_runtime_loop(pkg):
    x = np.random.default_rng(3).standard_normal((11, 64)).astype(np.float32)
    out = np.full((1, 64), np.nan, np.float32)
    pkg.loop_sum(x, out)
    np.testing.assert_allclose(out[0], 2 * x.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)


def test_same_ir_as_inline():
    from tlc.lower.printer import print_module
    inline = parse_source("import tl\n@tl.kernel\ndef k(x: tl.tensor(tl.float32, 1)):\n"
                          "    v = tl.load(x + (0,), (16,))\n    tl.store(x + (0,), tl.exp(v) * 2.0)\n", "a.py")
    called = parse_source("import tl\n@tl.func\ndef f(v):\n    return tl.exp(v) * 2.0\n"
                          "@tl.kernel\ndef k(x: tl.tensor(tl.float32, 1)):\n"
                          "    v = tl.load(x + (0,), (16,))\n    tl.store(x + (0,), f(v))\n", "a.py")

    def strip(m):
        return [line.split("  //")[0].replace('"a.py"', "") for line in print_module(m).splitlines()]
    assert strip(inline) == strip(called)


def test_python_call_refused():
    @tl.func
    def f(v):
        return v
    with pytest.raises(TypeError, match="only inside TL kernels"):
        f(1)


HDR = "import tl\n\n"
KDEF = "@tl.kernel\ndef k(x: tl.tensor(tl.float32, 1), n: tl.int64):\n"
ERRORS = [
    ("recursion", "@tl.func\ndef f(v):\n    return f(v)\n\n" + KDEF + "    f(1.0)\n",
     5, 12, "recursive call of @tl.func `f` (f -> f)"),
    ("mutual", "@tl.func\ndef f(v):\n    return g(v)\n@tl.func\ndef g(v):\n    return f(v)\n\n" + KDEF
     + "    f(1.0)\n", 8, 12, "recursive call of @tl.func `f` (f -> g -> f)"),
    ("early return", "@tl.func\ndef f(v):\n    if v > 0:\n        return v\n    return v\n\n" + KDEF
     + "    f(n)\n", 6, 9, "returns once, as the last statement"),
    ("constexpr", "@tl.func\ndef f(v, B: tl.constexpr):\n    return v\n\n" + KDEF + "    f(1.0, n)\n",
     9, 5, "argument `B` of `f` is tl.constexpr"),
    ("missing", "@tl.func\ndef f(v, w):\n    return v\n\n" + KDEF + "    f(1.0)\n",
     9, 5, "`f` is missing argument `w`"),
    ("kwarg", "@tl.func\ndef f(v):\n    return v\n\n" + KDEF + "    f(1.0, w=2)\n",
     9, 5, "`f` has no parameter `w`"),
    ("tensor", "@tl.func\ndef f(t: tl.tensor):\n    return t\n\n" + KDEF + "    f(n)\n",
     9, 5, "argument `t` of `f` must be a tensor view"),
    ("plain", "def f(v):\n    return v\n\n" + KDEF + "    f(1.0)\n",
     8, 5, "plain Python function: mark it @tl.func"),
    ("body error", "@tl.func\ndef f(v):\n    return tl.lod(v)\n\n" + KDEF + "    f(1.0)\n",
     5, 12, "unknown builtin `tl.lod`"),
    ("callee scope", "@tl.func\ndef f(v):\n    return v + n\n\n" + KDEF + "    f(1.0)\n",
     5, 16, "undefined name `n`"),
]


@pytest.mark.parametrize("name,body,line,col,msg", ERRORS, ids=[e[0] for e in ERRORS])
def test_located_errors(name, body, line, col, msg):
    e = assert_located(HDR + body, line, col, msg)
    if name in ("body error", "callee scope"):
        assert str(e).splitlines()[3] == "  in @tl.func `f`, called at t.py:9:5"
