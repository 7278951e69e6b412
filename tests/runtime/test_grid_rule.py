"""A kernel's grid rule that divides by zero or yields a negative size is a launch error naming
the kernel (TLError, nothing launched, the output untouched), never a silent empty grid; the
same rule with good arguments launches every program."""
import numpy as np
import pytest

import tl
from tlc.package import pack

SRC = '''
import tl


@tl.kernel(grid=lambda x, out, B: (tl.cdiv(out.shape[0], B),), specializations=[dict(B=0), dict(B=16)])
def zdiv(x: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 1), B: tl.constexpr = 16):
    i = tl.program_id(0) * 16
    tl.store(out + (i,), tl.load(x + (i,), (16,)) + 1.0)


@tl.kernel(grid=lambda x, out, n: (tl.cdiv(out.shape[0], n), out.shape[0] // n % 3 + 1))
def sdiv(x: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 1), n: tl.int32):
    i = tl.program_id(0) * 16
    tl.store(out + (i,), tl.load(x + (i,), (16,)) + 1.0)


@tl.kernel(grid=lambda x, out: (out.shape[0] - 100,))
def neg(x: tl.tensor(tl.float32, 1), out: tl.tensor(tl.float32, 1)):
    i = tl.program_id(0) * 16
    tl.store(out + (i,), tl.load(x + (i,), (16,)) + 1.0)
'''


@pytest.fixture(scope="module")
def pkg(tmp_path_factory):
    d = tmp_path_factory.mktemp("grid")
    (d / "g.py").write_text(SRC)
    pack.build_package([str(d / "g.py")], "x86_64-baseline", str(d / "g.tlpkg"), jobs=2, progress=False)
    return tl.load(str(d / "g.tlpkg"))


@pytest.mark.parametrize("name,args,msg", [
    ("zdiv__B_0", (), "kernel zdiv__B_0: its grid rule divides by zero"),
    ("sdiv", (0,), "kernel sdiv: its grid rule divides by zero"),
    ("neg", (), r"kernel neg: grid \(-63, 1, 1\) has a negative size"),
])
def test_bad_grid_rule_raises(pkg, name, args, msg):
    x = np.arange(37, dtype=np.float32)
    out = np.full(37, -7.0, np.float32)
    with pytest.raises(tl.TLError, match=msg):
        pkg[name](x, out, *args)
    assert (out == -7.0).all()


@pytest.mark.parametrize("name,args", [("zdiv__B_16", ()), ("sdiv", (16,)), ("sdiv", (-16,))])
def test_good_grid_rule_launches(pkg, name, args):
    x = np.arange(37, dtype=np.float32)
    out = np.full(37, -7.0, np.float32)
    if args and args[0] < 0:     # a negative divisor gives a negative size: an error, not a wrap
        with pytest.raises(tl.TLError, match="negative size"):
            pkg[name](x, out, *args)
        return
    pkg[name](x, out, *args)
    np.testing.assert_array_equal(out, x + 1.0)
