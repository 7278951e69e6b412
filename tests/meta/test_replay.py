"""tools/replay.py (`make replay`): the diff of two emitted trees finds a changed, an added and a
removed file; HEAD replayed against itself (two checkouts) differs in nothing; an edit of the
emitter between two emissions of one checkout shows up in every variant's C."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("replay_tool", ROOT / "tools" / "replay.py")
replay = sys.modules["replay_tool"] = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(replay)

needs_git = pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout (replay compares commits)")
SUBSET = ["softmax", "reduce_arg"]


def _tree(d: Path, files: dict) -> Path:
    for rel, text in files.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text)
    return d


def test_diff_dirs_finds_changed_added_and_removed_files(tmp_path):
    body = "".join(f"line {i}\n" for i in range(100))
    base = _tree(tmp_path / "a", {"c/v1/u.c": body, "c/v2/u.c": body, "c/v1/gone.c": "x\n",
                                  replay.SUMMARY: '{"seconds": 1}'})
    cur = _tree(tmp_path / "b", {"c/v1/u.c": body.replace("line 50\n", "line fifty\n"), "c/v2/u.c": body,
                                 "include/new.h": "y\n", replay.SUMMARY: '{"seconds": 2}'})
    diffs = replay.diff_dirs(base, cur)
    assert [(d.path, d.kind) for d in diffs] == [("c/v1/gone.c", "only in base"), ("c/v1/u.c", "changed"),
                                                 ("include/new.h", "only in current")]
    ex = diffs[1].excerpt
    assert "--- base/c/v1/u.c" in ex and "-line 50\n" in ex and "+line fifty\n" in ex
    assert "line 10\n" not in ex                      # an excerpt, not the file
    text = replay.report(diffs, 3, 2, base, cur)
    assert text.startswith("replay: 3 kernels x 2 variants, 3 differ:\n")
    assert "  changed          c/v1/u.c" in text and "+line fifty" in text
    assert replay.diff_dirs(base, base) == []
    assert replay.report([], 3, 2, base, base).startswith("replay: 3 kernels x 2 variants, 0 differ")


def _worktrees() -> str:
    return subprocess.run(["git", "worktree", "list"], cwd=ROOT, capture_output=True, text=True).stdout


@needs_git
def test_head_replayed_against_itself_differs_in_nothing(tmp_path, capsys):
    from tlc.backends.cpu.targets import TARGETS
    rc = replay.main(["--base", "HEAD", "--current", "HEAD", "--only", *SUBSET, "--out", str(tmp_path)])
    out = capsys.readouterr().out
    nvariants = sum(len(t.variants) for t in TARGETS.values())
    assert rc == 0, out
    assert out.startswith("replay: ") and f"kernels x {nvariants} variants, 0 differ" in out
    head = replay.rev("HEAD")[:12]
    for side in (f"base-{head}", head):            # both sides were emitted, each from its own checkout
        files = sorted((tmp_path / side / "c").glob("*/*.c"))
        assert len(files) == nvariants * (len(SUBSET) + 1)        # + the aggregator per variant
        assert (tmp_path / side / "include" / "ops.h").read_text().count("#define OPS_KERNEL_") >= 6
        assert all("tl_bundle_query" in f.read_text() for f in files)
    assert str(tmp_path) not in _worktrees()              # the checkouts are gone


@needs_git
def test_an_emitter_edit_shows_in_every_variant(tmp_path):
    src = tmp_path / "src"
    replay.checkout(replay.rev("HEAD"), src)
    try:
        before = replay.emit_side(src, tmp_path / "before", ["softmax"], 1)
        prelude = src / "tlc" / "emit_c" / "templates" / "prelude.j2"
        text = prelude.read_text()
        assert "__attribute__((always_inline))" in text
        prelude.write_text(text.replace("__attribute__((always_inline))", "__attribute__((always_inline, cold))"))
        after = replay.emit_side(src, tmp_path / "after", ["softmax"], 1)
    finally:
        replay.remove_checkout(src)
    assert before["kernels"] == after["kernels"] > 0
    diffs = replay.diff_dirs(tmp_path / "before", tmp_path / "after")
    assert [d.path for d in diffs] == sorted(f"c/{v}/ops_softmax.c" for v in before["variants"])
    assert all("+#define TL_INLINE static inline __attribute__((always_inline, cold))" in d.excerpt for d in diffs)


def test_bad_base_is_exit_2(tmp_path, capsys):
    rc = replay.main(["--base", "no-such-ref-xyz", "--out", str(tmp_path)])
    assert rc == 2 and "'no-such-ref-xyz' is not a commit" in capsys.readouterr().err
