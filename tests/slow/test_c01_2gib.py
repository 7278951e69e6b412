"""docs/semantics.md#c-01 at full size: ``out = x + 1`` over an int8 tensor of 2**31 + 64 elements.

Needs about 4.5 GiB of memory and a minute; behind the ``slow`` marker (``make test-slow``).
The IR-level and emitter-level checks of 64-bit offsets run in ``make test``
(tests/frontend/test_interp.py::test_c01_64bit_offsets, tests/emit_c::test_large_offsets_c01).
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tl

KERNEL = textwrap.dedent('''
    import tl

    @tl.kernel(grid=lambda x, out: (tl.cdiv(x.shape[0], 4096),))
    def inc_i8(x: tl.tensor(tl.int8, 1), out: tl.tensor(tl.int8, 1)):
        o = tl.program_id(0) * 4096
        tl.store(out + (o,), tl.load(x + (o,), (4096,)) + 1)
''')


@pytest.mark.slow
def test_c01_int8_add_past_2gib(tmp_path):
    src = tmp_path / "inc.py"
    src.write_text(KERNEL)
    pkg_path = tmp_path / "inc.tlpkg"
    subprocess.run([sys.executable, "-m", "tlc", "build", str(src), "-o", str(pkg_path)], check=True)
    n = 2**31 + 64
    x = np.empty(n, np.int8)
    x[:] = 5
    x[-64:] = np.arange(-32, 32, dtype=np.int8)
    x[-1] = 127                                   # wraps to -128
    out = np.zeros(n, np.int8)
    with tl.load(pkg_path) as pkg:
        pkg.inc_i8(x, out)
    assert out[0] == 6 and out[2**31 - 1] == 6
    np.testing.assert_array_equal(out[-64:-1], np.arange(-31, 32, dtype=np.int8))
    assert out[-1] == -128
