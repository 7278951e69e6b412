"""Shape contracts in kernel signatures (``x: tl.tensor(DT, ("M", "N"))``): what the parser records
(the IR params, the printed IR round trip, the manifest entry, the C header comment), its located
errors for bad annotations, and the interpreter's launch check with the runtime's messages."""
import numpy as np
import pytest

from tlc import driver, interp
from tlc.lower import printer
from tlc.package.header import render_header
from tlc.parse import parse_source

from fe_helpers import assert_located

SRC = '''import tl

AXES = ("R", "N")


@tl.kernel(grid=lambda x, out, w, tag: (x.shape[0],))
def rowdot(x: tl.tensor(DT, ("R", "N")), out: tl.tensor(tl.float32, ("R",)),
           w: tl.tensor(tl.float32, ("N", 3)), tag: tl.tensor(tl.int32, 1), alpha: tl.float32 = 1.0,
           DT: tl.constexpr = tl.float32):
    r = tl.program_id(0)
    v = tl.load(x + (r, 0), (1, 4)).to(tl.float32)
    tl.store(out + (r,), tl.sum(v, axis=1) * alpha)


@tl.kernel
def plain(x: tl.tensor(tl.float32, 2), y: tl.tensor, z: tl.tensor(tl.float32, AXES)):
    tl.store(y + (0,), tl.sum(tl.load(x + (0, 0), (1, 4)), axis=1) + tl.sum(tl.load(z + (0, 0), (1, 4)), axis=1))
'''


@pytest.fixture(scope="module")
def module():
    return parse_source(SRC, "c.py")


def test_dims_recorded_on_params(module):
    k, plain = module.kernels
    dims = {p.name: (p.rank, p.dims) for p in k.runtime_params}
    assert dims == {"x": (2, ("R", "N")), "out": (1, ("R",)), "w": (2, ("N", 3)), "tag": (1, None),
                    "alpha": (0, None)}
    assert [(p.rank, p.dims) for p in plain.runtime_params] == [(2, None), (1, None), (2, ("R", "N"))]


def test_printed_ir_round_trips_dims(module):
    text = printer.print_module(module)
    assert 'dims=("R", "N")' in text and 'dims=("N", 3)' in text
    params = [line for line in text.splitlines() if line.startswith("  param ")]
    assert sum("dims=" in line for line in params) == 4      # x, out, w, plain.z: none on the others
    again = printer.parse_module(text)
    assert [p.dims for p in again.kernels[0].params] == [p.dims for p in module.kernels[0].params]


def test_manifest_and_header_show_the_contract(module):
    info = driver.kernel_info(module.kernels[0], "c.py")
    by = {p["name"]: p for p in info["params"]}
    assert by["x"]["dims"] == ["R", "N"] and by["w"]["dims"] == ["N", 3] and by["out"]["dims"] == ["R"]
    assert "dims" not in by["tag"] and "dims" not in by["alpha"]
    header = render_header("c", [info])
    assert "rowdot(x: float32[R, N], out: float32[R], w: float32[N, 3], tag: int32[1], alpha: float32)" \
        in header, header


HDR = "import tl\n\n@tl.kernel\ndef k(x: tl.tensor(tl.float32, "
TAIL = "):\n    pass\n"

BAD = [
    ("empty", '()', 4, 32, "tl.tensor shape contract is empty"),
    ("float entry", '("M", 2.5)', 4, 38, "tl.tensor axis must be a name (str) or a fixed extent (int), got 2.5"),
    ("bool entry", '("M", True)', 4, 38, "got True"),
    ("not identifier", '("M", "a b")', 4, 38, "axis name must be an identifier, got 'a b'"),
    ("negative", '("M", -1)', 4, 38, "fixed extent must be in [0, 2147483645], got -1"),
    ("too many", '("a", "b", "c", "d", "e", "f", "g", "h", "i")', 4, 32,
     "shape contract has 9 axes, more than TL_MAX_RANK (8)"),
    ("rank float", '2.0', 4, 10, "tl.tensor rank must be a non-negative int or a tuple of axis names"),
]


@pytest.mark.parametrize("name,ann,line,col,msg", BAD, ids=[c[0] for c in BAD])
def test_bad_contract_is_a_located_error(name, ann, line, col, msg):
    assert_located(HDR + ann + ")" + TAIL, line, col, msg)


def test_list_and_keyword_forms(module):
    m = parse_source("import tl\n\n@tl.kernel\ndef k(x: tl.tensor(tl.int64, rank=[\"A\", 4])):\n    pass\n", "l.py")
    p = m.kernels[0].params[0]
    assert (p.rank, p.dims) == (2, ("A", 4))


def _run(module, x, out, w, tag):
    interp.interpret_kernel(module.kernels[0], [x, out, w, tag, 1.0])


def test_interp_accepts_matching_shapes(module):
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    out = np.zeros(2, np.float32)
    w = np.ones((4, 3), np.float32)
    _run(module, x, out, w, np.zeros(7, np.int32))         # tag: no contract, any extent
    np.testing.assert_array_equal(out, x.sum(axis=1))


@pytest.mark.parametrize("shapes,msg", [
    (((2, 4), (3,), (4, 3)), "kernel rowdot: argument 'out' axis 0 (R) is 3 but argument 'x' axis 0 (R) is 2"),
    (((2, 4), (2,), (5, 3)), "kernel rowdot: argument 'w' axis 0 (N) is 5 but argument 'x' axis 1 (N) is 4"),
    (((2, 4), (2,), (4, 2)), "kernel rowdot: argument 'w' axis 1 is 2 but the kernel's signature fixes it to 3"),
])
def test_interp_refuses_mismatches_with_the_runtime_message(module, shapes, msg):
    xs, os_, ws = shapes
    with pytest.raises(interp.InterpError) as e:
        _run(module, np.zeros(xs, np.float32), np.zeros(os_, np.float32), np.zeros(ws, np.float32),
             np.zeros(1, np.int32))
    assert str(e.value) == msg
