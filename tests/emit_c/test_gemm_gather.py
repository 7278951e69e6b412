"""x86 microkernel dots whose B is a multi-axis window load reshaped to (rows, columns), e.g. a
conv window (C, KH, BH, BW) read as (C*KH, BH*BW) (tlc/emit_c/plan.py, Plan.gather_b): in
bounds with unit inner stride the dot packs B straight from the tensor through row- and
column-offset tables; column-strided views and blocks partly outside the tensor take the tile
copy. Built from TL source for AVX-512 and AVX2; results against float64 NumPy."""
import zipfile

import numpy as np
import pytest

import tl
from host_cpu import runs_here, skip_unless_runs_here
from tlc.package import pack

SRC = '''
import tl


@tl.kernel(grid=lambda x, w, out, BH, BW: (tl.cdiv(out.shape[3], BW), tl.cdiv(out.shape[2], BH), out.shape[0]),
           specializations=[dict(BH=2, BW=32), dict(BH=1, BW=48)])
def win(x: tl.tensor(tl.float32, 5), w: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 4),
        M: tl.constexpr = 24, C: tl.constexpr = 3, KH: tl.constexpr = 5, BH: tl.constexpr = 2,
        BW: tl.constexpr = 32):
    """out[n, m, i, j] = sum_{c, k} w[m, c * KH + k] * x[n, c, k, i, j]."""
    ow = tl.program_id(0) * BW
    oh = tl.program_id(1) * BH
    n = tl.program_id(2)
    a = tl.load(w + (0, 0), (M, C * KH))
    b = tl.reshape(tl.load(x + (n, 0, 0, oh, ow), (1, C, KH, BH, BW)), (C * KH, BH * BW))
    tl.store(out + (n, 0, oh, ow), tl.reshape(tl.dot(a, b), (1, M, BH, BW)))
'''


@pytest.fixture(scope="module", params=["x86_64-avx512", "x86_64-avx2"])
def built(request, tmp_path_factory):
    d = tmp_path_factory.mktemp("gather")
    (d / "win.py").write_text(SRC)
    out = d / "win.tlpkg"
    pack.build_package([str(d / "win.py")], request.param, str(out), jobs=2, progress=False)
    with zipfile.ZipFile(out) as z:
        c = "".join(z.read(n).decode() for n in z.namelist() if n.endswith(".c"))
    return c, (tl.load(str(out)) if runs_here(request.param) else request.param)


def _windows(rng, n, h, wd, step):
    """(n, 3, 5, h, wd) overlapping windows of a larger array, inner stride ``step`` elements."""
    base = rng.standard_normal((n, 3, h + 9, step * (wd + 7))).astype(np.float32)
    s = base.strides
    return np.lib.stride_tricks.as_strided(base[:, :, 1:, step:], (n, 3, 5, h, wd),
                                           (s[0], s[1], 2 * s[2], s[2], step * s[3]), writeable=False)


def test_gathered_b_is_packed_from_the_tensor(built):
    c, _ = built
    assert "_rt[15]" in c and "_ct[" in c       # the row / column offset tables of B


@pytest.mark.parametrize("name,bh,bw", [("win__BH_2__BW_32", 2, 32), ("win__BH_1__BW_48", 1, 48)])
@pytest.mark.parametrize("n,h,wd,step", [(1, 4, 64, 1), (3, 7, 96, 1), (2, 5, 70, 1), (2, 3, 64, 2)])
def test_gathered_b_matches_float64(built, name, bh, bw, n, h, wd, step):
    """in place (step 1, whole blocks), partly outside (h, wd not multiples of the block) and
    column-strided (step 2: tile copy) windows."""
    _, pkg = built
    if isinstance(pkg, str):
        skip_unless_runs_here(pkg)
    rng = np.random.default_rng(n * 1000 + h * 100 + wd + step)
    x = _windows(rng, n, h, wd, step)
    w = rng.standard_normal((24, 15)).astype(np.float32)
    out = np.full((n, 24, h, wd), np.nan, np.float32)
    pkg.kernel(name)(x, w, out)
    want = np.einsum("mk,nkij->nmij", w.astype(np.float64), x.reshape(n, 15, h, wd).astype(np.float64))
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5 * 16)
