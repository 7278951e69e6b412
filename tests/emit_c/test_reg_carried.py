"""Loop-carried tiles kept in vector locals (tlc/emit_c/values.py RegTile, chosen by plan.reg_carried): a runtime loop
carrying float32 / int32 / int64 / bool tiles of 3 rows by 20 lanes (a partial last vector on
every variant), updated in place, through a second use (no in-place yield) and mixed with tiles
that stay in the workspace (over the register budget), and the same loop on 2 x 6 tiles (all in
locals), against NumPy on every x86 variant."""
import re
import textwrap

import numpy as np
import pytest

import tl
from host_cpu import runs_here, skip_unless_runs_here
from tlc import driver
from tlc.package import pack
from tlc.backends.cpu.targets import X86_64

SRC = textwrap.dedent('''
    import tl

    @tl.func
    def body(x, s, m, k, g, f, BR: tl.constexpr, BLOCK: tl.constexpr):
        r = tl.program_id(0) * BR
        n = x.shape[1]
        acc = tl.zeros((BR, BLOCK), tl.float32)
        mx = tl.full((BR, BLOCK), float("-inf"), tl.float32)
        cnt = tl.zeros((BR, BLOCK), tl.int32)
        big = tl.zeros((BR, BLOCK), tl.int64)
        flag = tl.zeros((BR, BLOCK), tl.int32) > 0
        for c in range(0, n, BLOCK):
            t = tl.load(x + (r, c), (BR, BLOCK))
            u = tl.load(x + (r, c), (BR, BLOCK), other=float("-inf"))
            acc = acc + t
            mx = tl.where(u > mx, u, mx)
            cnt = cnt * 1 + (t > 0.0).to(tl.int32) + (cnt - cnt)
            big = big + tl.cast(c, tl.int64) * (t > 1.0).to(tl.int64)
            flag = flag | (t > 2.0)
        tl.store(s + (r, 0), acc)
        tl.store(m + (r, 0), mx)
        tl.store(k + (r, 0), cnt)
        tl.store(g + (r, 0), big)
        tl.store(f + (r, 0), flag.to(tl.int32))

    @tl.kernel(grid=lambda x, s, m, k, g, f: (tl.cdiv(x.shape[0], 3),))
    def carried(x: tl.tensor(tl.float32, 2), s: tl.tensor(tl.float32, 2), m: tl.tensor(tl.float32, 2),
                k: tl.tensor(tl.int32, 2), g: tl.tensor(tl.int64, 2), f: tl.tensor(tl.int32, 2)):
        body(x, s, m, k, g, f, 3, 20)

    @tl.kernel(grid=lambda x, s, m, k, g, f: (tl.cdiv(x.shape[0], 2),))
    def carried_small(x: tl.tensor(tl.float32, 2), s: tl.tensor(tl.float32, 2), m: tl.tensor(tl.float32, 2),
                      k: tl.tensor(tl.int32, 2), g: tl.tensor(tl.int64, 2), f: tl.tensor(tl.int32, 2)):
        body(x, s, m, k, g, f, 2, 6)
''')
VARIANTS = [v for v in X86_64.variants if v.isa in ("avx512", "avx2", "sse2") and "bf16" not in v.name]


def reference(x, BLOCK):
    R, N = x.shape
    nc = -(-N // BLOCK)
    pad = np.zeros((R, nc * BLOCK), np.float64)
    pad[:, :N] = x
    ninf = np.full((R, nc * BLOCK), -np.inf)
    ninf[:, :N] = x
    ch, chi = pad.reshape(R, nc, BLOCK), ninf.reshape(R, nc, BLOCK)
    cs = (np.arange(nc) * BLOCK)[None, :, None]
    return (ch.sum(1), chi.max(1), (ch > 0).sum(1), (cs * (ch > 1)).sum(1), (ch > 2).any(1).astype(np.int32))


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    d = tmp_path_factory.mktemp("reg_carried")
    src = d / "reg_carried.py"
    src.write_text(SRC)
    out = {}
    for v in VARIANTS:   # built for each; loaded where this machine runs it (AVX-512: not every host)
        path = d / f"{v.name}.tlpkg"
        pack.build_package([str(src)], v.name, str(path), jobs=2, progress=False)
        out[v.name] = (src, tl.load(str(path)) if runs_here(v) else None)
    return out


@pytest.mark.parametrize("variant", [v.name for v in VARIANTS])
@pytest.mark.parametrize("shape", [(7, 45), (3, 20), (1, 1), (5, 163)])
@pytest.mark.parametrize("kname, block", [("carried", 20), ("carried_small", 6)])
def test_carried_tiles_match_numpy(packages, variant, shape, kname, block):
    src, pkg = packages[variant]
    skip_unless_runs_here(variant)
    assert pkg.target == variant
    rng = np.random.default_rng(sum(shape))
    x = (rng.standard_normal(shape) * 2).astype(np.float32)
    R = shape[0]
    s, m = np.full((R, block), np.nan, np.float32), np.full((R, block), np.nan, np.float32)
    k, g, f = (np.full((R, block), -7, np.int32), np.full((R, block), -7, np.int64),
               np.full((R, block), -7, np.int32))
    pkg[kname](x, s, m, k, g, f)
    ws, wm, wk, wg, wf = reference(x.astype(np.float64), block)
    np.testing.assert_allclose(s, ws, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(m, wm.astype(np.float32))
    np.testing.assert_array_equal(k, wk)
    np.testing.assert_array_equal(g, wg)
    np.testing.assert_array_equal(f, wf)


def test_small_carried_tiles_live_in_locals():
    """The generated C keeps the in-place float32 / int32 tiles in vector locals (avx512: two
    vectors per row), and the budget leaves the rest in the workspace."""
    import tempfile
    from pathlib import Path
    variant = next(v for v in VARIANTS if v.isa == "avx512")
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "reg_carried.py"
        p.write_text(SRC)
        c = driver.emit(driver.run_pipeline(driver.parse(str(p)), variant, False), variant)
    decl = re.compile(r"tl_v[fil] r\d+_0(, r\d+_\d+)*;")
    for part in c.split("/* ==== kernel ")[1:]:
        decls = [ln.strip() for ln in part.splitlines() if decl.fullmatch(ln.strip())]
        # REG_VECTORS: at most 24 vectors, an int64 vector counting 2
        assert sum((d.count(",") + 1) * (2 if d.startswith("tl_vl") else 1) for d in decls) <= 24, decls
        if part.startswith("carried "):       # 3 x 20: two vectors per row; int64 over budget
            assert any(d.startswith("tl_vf r") and d.count(",") == 5 for d in decls), decls
            assert any(d.startswith("tl_vi r") for d in decls), decls
            assert not any(d.startswith("tl_vl r") for d in decls), decls
        else:                                   # 2 x 6: every tile
            assert len(decls) == 5 and any(d.startswith("tl_vl r") for d in decls), decls
