"""Performance warnings (tlc/backends/cpu/lint.py) through the real frontend, `tlc compile` and
`tlc build`: a masked load/store warns at its location with a caret and its lane count (and, for
int8/bool data, that each lane is tested on its own), once per
location however many instances or variants reach it; an unmasked kernel gets none; no ops/
kernel draws one."""
import glob
import os
import re

import pytest
from click.testing import CliRunner

from tlc import driver
from tlc.cli import cli

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

MASKED = '''import tl


@tl.kernel(grid=lambda x, out: (x.shape[0],), specializations=[dict(BLOCK=8192), dict(BLOCK=1024)])
def norm(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2), BLOCK: tl.constexpr = 8192):
    r = tl.program_id(0)
    mask = (tl.arange(0, BLOCK) < tl.cast(x.shape[1], tl.int32))[None, :]
    v = tl.load(x + (r, 0), (1, BLOCK), mask=mask)
    tl.store(out + (r, 0), v - tl.sum(v, axis=1, keepdims=True), mask=mask)
'''

LOOPED = '''import tl


@tl.kernel(grid=lambda x, out: (x.shape[0],))
def norm(x: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2), BLOCK: tl.constexpr = 64):
    r = tl.program_id(0)
    acc = tl.zeros((1, BLOCK), tl.float32)
    for c in range(0, x.shape[1], BLOCK):
        acc = acc + tl.load(x + (r, c), (1, BLOCK))
    s = tl.sum(acc, axis=1, keepdims=True)
    for c in range(0, x.shape[1], BLOCK):
        tl.store(out + (r, c), tl.load(x + (r, c), (1, BLOCK)) - s)
'''


def _write(tmp_path, text, name="k.py"):
    p = tmp_path / name
    p.write_text(text)
    return str(p)


def _sites(text):
    """(file, line, col, message) of every warning in ``text``, with the caret column checked."""
    lines, out = text.splitlines(), []
    for i, line in enumerate(lines):
        m = re.match(r"^(.*):(\d+):(\d+): warning: (.*)$", line)
        if m:
            assert lines[i + 2].index("^") - 4 == int(m[3]) - 1, text
            out.append((m[1], int(m[2]), int(m[3]), m[4]))
    return out


def test_masked_load_and_store_warn_once_with_lane_counts(tmp_path):
    path = _write(tmp_path, MASKED)
    ws = driver.lint(driver.parse(path), "ops/k.py")
    sites = _sites("\n".join(ws))
    assert [(f, l, c) for f, l, c, _ in sites] == [("ops/k.py", 8, 9), ("ops/k.py", 9, 5)]
    assert "masked tl.load computes and applies a mask of 1024 or 8192 lanes (by instance) in every program" in ws[0]
    assert "as costly as a tl.where" in ws[0]
    assert "masked tl.store" in ws[1] and "v = tl.load(x + (r, 0), (1, BLOCK), mask=mask)" in ws[0]
    assert "drop the mask when it only guards the edge" in ws[0] and "64-256 lanes" in ws[0]


def test_masked_int8_access_says_each_lane_is_tested(tmp_path):
    """int8/bool masked accesses keep the per-element path (tlc/emit_c/access.py open_vector covers wider dtypes)."""
    ws = driver.lint(driver.parse(_write(tmp_path, MASKED.replace("tl.float32", "tl.int8"))))
    assert len(ws) == 2 and "masked tl.load of int8 tests each of its 1024 or 8192 lanes (by instance) one at a time" in ws[0]
    assert "masked tl.store of int8 tests each" in ws[1]


def test_mask_in_a_loop_says_every_iteration(tmp_path):
    src = LOOPED.replace("tl.load(x + (r, c), (1, BLOCK))\n    s",
                         "tl.load(x + (r, c), (1, BLOCK), mask=acc == acc)\n    s")
    ws = driver.lint(driver.parse(_write(tmp_path, src)))
    assert len(ws) == 1 and "a mask of 64 lanes on every iteration" in ws[0]
    assert ws[0].startswith(f"{tmp_path / 'k.py'}:9:21: warning: ")


def test_unmasked_kernel_has_no_warning(tmp_path):
    assert driver.lint(driver.parse(_write(tmp_path, LOOPED))) == []


def test_large_tile_without_dot_warns_and_with_dot_does_not(tmp_path):
    big = LOOPED.replace("BLOCK: tl.constexpr = 64", "BLOCK: tl.constexpr = 8192")
    ws = driver.lint(driver.parse(_write(tmp_path, big)))
    assert len(ws) == 1 and ":7:11: warning: tile of 32 KB: more than 16 KB" in ws[0]   # the first one only
    dot = '''import tl


@tl.kernel(grid=lambda a, b, out: (1,))
def mm(a: tl.tensor(tl.float32, 2), b: tl.tensor(tl.float32, 2), out: tl.tensor(tl.float32, 2)):
    tl.store(out + (0, 0), tl.dot(tl.load(a + (0, 0), (128, 64)), tl.load(b + (0, 0), (64, 128))))
'''
    assert driver.lint(driver.parse(_write(tmp_path, dot, "mm.py"))) == []


def test_nowarn_comment_silences_its_line(tmp_path):
    src = MASKED.replace("mask=mask)\n    tl.store", "mask=mask)  # tlc: nowarn\n    tl.store")
    ws = driver.lint(driver.parse(_write(tmp_path, src)))
    assert len(ws) == 1 and "masked tl.store" in ws[0]


def test_tlc_compile_warns_and_w_silences(tmp_path):
    path = _write(tmp_path, MASKED)
    r = CliRunner().invoke(cli, ["compile", path, "--emit", "ir", "-t", "x86_64-baseline"])
    assert r.exit_code == 0, r.output
    assert [(l, c) for _, l, c, _ in _sites(r.stderr)] == [(8, 9), (9, 5)] and "warning" not in r.stdout
    r = CliRunner().invoke(cli, ["compile", path, "--emit", "ir", "-t", "x86_64-baseline", "-w"])
    assert r.exit_code == 0 and r.stderr == ""


def test_tlc_build_warns_once_per_location_cached_too(tmp_path, monkeypatch):
    monkeypatch.setenv("TL_CACHE_DIR", str(tmp_path / "cache"))
    path, out = _write(tmp_path, MASKED), str(tmp_path / "k.tlpkg")
    args = ["build", path, "-t", "x86_64-avx2,x86_64-baseline", "-o", out, "-j", "1", "-q"]
    for _ in range(2):       # cold, then every object from the cache
        r = CliRunner().invoke(cli, args)
        assert r.exit_code == 0, r.output
        assert [(f, l, c) for f, l, c, _ in _sites(r.stderr)] == [("k.py", 8, 9), ("k.py", 9, 5)], r.stderr
    r = CliRunner().invoke(cli, args + ["--no-warnings"])
    assert r.exit_code == 0 and r.stderr == ""


@pytest.mark.parametrize("path", sorted(glob.glob(os.path.join(ROOT, "ops", "*.py"))), ids=os.path.basename)
def test_no_ops_kernel_draws_a_warning(path):
    assert driver.lint(driver.parse(path)) == []
