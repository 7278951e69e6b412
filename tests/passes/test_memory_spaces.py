"""Memory spaces: tile types name their space (printed only when not the default), plan_memory
plans each space with the backend's alignment and capacity, and a tile that does not fit a
bounded space is a located compile error (the test-only toy backend has a 4 KiB workspace)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "package"))
import toy_backend  # noqa: E402

from tlc import driver  # noqa: E402
from tlc.backends.cpu.targets import X86_64  # noqa: E402
from tlc.errors import TLCompileError  # noqa: E402
from tlc.lower import ir, spaces  # noqa: E402
from tlc.lower.dtypes import DType  # noqa: E402
from tlc.lower.passes import plan_memory  # noqa: E402
from tlc.lower.printer import parse_type  # noqa: E402

SRC = """import tl


@tl.kernel
def big(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
    a = tl.load(x + (0, 0), (8, 32))
    b = tl.load(x + (8, 0), (32, 64))
    tl.store(out + (0, 0), a)
    tl.store(out + (8, 0), b)
"""


@pytest.fixture
def toy():
    b = toy_backend.register()
    yield b
    toy_backend.unregister()


def _file(tmp_path, text=SRC) -> Path:
    p = tmp_path / "spaces_k.py"
    p.write_text(text)
    return p


def test_tile_space_prints_only_when_not_the_default_and_parses_back():
    t = ir.TileType(DType.float32, (4, 8))
    assert t.space == spaces.DEFAULT == "workspace" and str(t) == "tile<4x8xf32>"
    u = ir.TileType(DType.float32, (4, 8), spaces.UB)
    assert str(u) == "tile<4x8xf32, ub>" and parse_type(str(u)) == u and parse_type(str(t)) == t
    assert u != t
    with pytest.raises(ValueError, match="unknown memory space"):
        spaces.MemorySpace("nope")
    with pytest.raises(ValueError, match="power of two"):
        spaces.MemorySpace(spaces.UB, 1024, 48)


def test_a_tile_too_big_for_a_bounded_space_is_a_located_error(toy, tmp_path):
    p = _file(tmp_path)
    with pytest.raises(TLCompileError) as e:
        driver.compile_unit(str(p), toy.targets["toy"][0])
    text = str(e.value)
    # the 32 x 64 float32 tile (8192 bytes) of line 7 does not fit the toy's 4096-byte workspace
    assert f"{p}:7:" in text and "error: tile tile<32x64xf32> (8192 bytes) does not fit in memory space 'workspace'" in text
    assert "4096 bytes per program" in text
    assert "b = tl.load(x + (8, 0), (32, 64))" in text and "\n    " + " " * (e.value.loc.col - 1) + "^" in text


def test_the_same_kernel_fits_the_cpu_workspace_and_small_tiles_fit_the_toy(toy, tmp_path):
    p = _file(tmp_path)
    res = driver.compile_unit(str(p), X86_64.variants[1])
    assert "workspace=" in res.ir_text
    small = _file(tmp_path, SRC.replace("(32, 64)", "(8, 32)"))
    out = driver.run_pipeline(driver.parse(str(small)), toy.targets["toy"][0])
    (k,) = out.kernels
    bufs = [op.attr("buf") for _, op in ir.walk_module(out) if op.opcode == "load"]
    # toy alignment 32: each 8 x 32 float32 tile is 1024 bytes; both live together at the first store
    assert all(off % 32 == 0 for off, _ in bufs) and k.workspace <= toy_backend.CAPACITY


def test_each_space_is_planned_on_its_own():
    from tlc.parse import parse_source
    from tlc.lower.rewrite import map_kernels, rewrite_kernel
    m = driver.run_pipeline(parse_source(SRC.replace("(32, 64)", "(8, 32)"), "sp.py"), None,
                            passes=["infer_types", "canonicalize", "fuse_elementwise"])

    def to_ub(op, emit):       # what a backend pass would do: move the first load to the ub
        if op.opcode == "load" and op.operands[1:] == () and op.type.shape == (8, 32) and not hasattr(to_ub, "done"):
            to_ub.done = True
            return op.with_(type=ir.TileType(op.type.dtype, op.type.shape, spaces.UB))
        return op
    m = map_kernels(m, lambda k: rewrite_kernel(k, to_ub, grid=False))
    (k,) = m.kernels
    with pytest.raises(TLCompileError, match="memory space 'ub', which this target does not have"):
        plan_memory.plan_spaces(k.body)
    room = {spaces.WORKSPACE: spaces.MemorySpace(spaces.WORKSPACE),
            spaces.UB: spaces.MemorySpace(spaces.UB, 1024, 128)}
    out, totals = plan_memory.plan_spaces(k.body, room)
    assert totals == {spaces.UB: 1024, spaces.WORKSPACE: 1024}
    assert sorted(out.values()) == [(0, 1024), (0, 1024)]
    with pytest.raises(TLCompileError, match="does not fit in memory space 'ub'"):
        plan_memory.plan_spaces(k.body, {**room, spaces.UB: spaces.MemorySpace(spaces.UB, 512)})
