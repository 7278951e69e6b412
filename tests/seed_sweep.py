"""pytest plugin: ``--seed-sweep N`` reruns every test that takes the ``rng_seed`` fixture
(tests/ops/ops_helpers.py) with N seeds, inside one process (the operator package is built and
loaded once), to flush out tests that pass or fail by seed. ``make test-seeds`` runs it.

Seeds are ``--seed-base`` (default: ``$TL_TEST_SEED`` or 1), base + 1, ... (mod 2**32); each
becomes a parametrization ``[...-seed<s>]`` of the test and the value of ``rng_seed``, so a failure
reproduces with ``TL_TEST_SEED=<s> pytest '<test id>'``. Tests that do not take ``rng_seed`` are
deselected while sweeping. The terminal summary lists every failing (test, seed) pair and the
seeds run per test file; ``--seed-report FILE`` also writes them as JSON.

Run as a script, it splits the seeds over ``--jobs`` pytest processes (one core each) and merges
their reports: ``python tests/seed_sweep.py --seeds 300 --base 1 --jobs 16 tests/ops [-k ...]``
(exit status 1 when any pair failed).
"""
from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys

import pytest

_SEED_ID = re.compile(r"(?<=[\[-])seed(\d+)(?=[\]-])")
_STATE = {"failed": [], "runs": collections.Counter(), "fails": collections.Counter(), "on": False}


def pytest_addoption(parser):
    g = parser.getgroup("seed sweep")
    g.addoption("--seed-sweep", type=int, default=0, metavar="N",
                help="run each test that uses rng_seed with N seeds (base, base + 1, ...)")
    g.addoption("--seed-base", type=int, default=None, metavar="S",
                help="first seed of --seed-sweep (default: $TL_TEST_SEED or 1)")
    g.addoption("--seed-report", default=None, metavar="FILE",
                help="also write the sweep's runs per file and failing (test, seed) pairs as JSON")


def _seeds(config) -> list[int]:
    n = config.getoption("--seed-sweep")
    base = config.getoption("--seed-base")
    if base is None:
        base = int(os.environ.get("TL_TEST_SEED") or 1)
    return [(base + i) % 2**32 for i in range(n)]


def pytest_configure(config):
    if config.getoption("--seed-sweep") < 0:
        raise pytest.UsageError("--seed-sweep N needs N >= 0")
    _STATE["on"] = config.getoption("--seed-sweep") > 0


def pytest_generate_tests(metafunc):
    seeds = _seeds(metafunc.config)
    if seeds and "rng_seed" in metafunc.fixturenames:
        metafunc.parametrize("rng_seed", seeds, indirect=True, ids=[f"seed{s}" for s in seeds])


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--seed-sweep"):
        return
    keep = [it for it in items if "rng_seed" in getattr(it, "fixturenames", ())]
    dropped = [it for it in items if "rng_seed" not in getattr(it, "fixturenames", ())]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = keep


def seed_of(nodeid: str):
    """(test id without the sweep's seed, seed) of a swept test id, or (nodeid, None)."""
    m = _SEED_ID.search(nodeid)
    if not m:
        return nodeid, None
    test = (nodeid[:m.start()] + nodeid[m.end():]).replace("[-", "[").replace("--", "-").replace("-]", "]")
    return (test[:-2] if test.endswith("[]") else test), int(m.group(1))


def pytest_runtest_logreport(report):
    if not _STATE["on"]:
        return
    state = _STATE
    test, seed = seed_of(report.nodeid)
    path = report.nodeid.split("::")[0]
    if report.when == "call" or (report.when == "setup" and not report.passed):
        state["runs"][path] += 1
    if report.failed:
        state["fails"][path] += 1
        state["failed"].append((test, seed, report.when))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if not config.getoption("--seed-sweep"):
        return
    st = _STATE
    if config.getoption("--seed-report"):
        with open(config.getoption("--seed-report"), "w") as f:
            json.dump({"runs": st["runs"], "fails": st["fails"], "failed": st["failed"]}, f)
    tr = terminalreporter
    n = config.getoption("--seed-sweep")
    tr.section(f"seed sweep: {n} seeds from {_seeds(config)[0] if n else '-'}")
    for path in sorted(st["runs"]):
        tr.write_line(f"{path}: {st['runs'][path]} runs ({st['runs'][path] // max(n, 1)} tests x {n} seeds), "
                      f"{st['fails'][path]} failed")
    if not st["failed"]:
        tr.write_line("no failing (test, seed) pairs")
        return
    tr.write_line(f"{len(st['failed'])} failing (test, seed) pairs; reproduce each with:")
    for test, seed, when in st["failed"]:
        extra = "" if when == "call" else f"  ({when})"
        tr.write_line(f"  TL_TEST_SEED={seed} python -m pytest '{test}'{extra}")


def main(argv=None) -> int:
    """The parallel driver (see the module docstring)."""
    import argparse
    import tempfile
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--base", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--log-dir", default=None, help="where the shards' logs go (default: a new temporary folder)")
    ap.add_argument("pytest_args", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    jobs = max(1, min(a.jobs, a.seeds))
    per = [a.seeds // jobs + (j < a.seeds % jobs) for j in range(jobs)]
    starts = [a.base + sum(per[:j]) for j in range(jobs)]
    tmp = a.log_dir or tempfile.mkdtemp(prefix="tl-seed-sweep-")
    os.makedirs(tmp, exist_ok=True)
    env = dict(os.environ)
    if jobs > 1 and env.get("TL_OPS_BACKEND", "").lower() != "interp":   # build once, before the shards
        repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        pkg = env.get("TL_OPS_PACKAGE") or os.path.join(repo, "build", "ops.tlpkg")
        subprocess.run([sys.executable, "-m", "tlc", "build", "ops/", "-t", "host", "-o", pkg, "-q"],
                       cwd=repo, check=True)
        env["TL_OPS_PREBUILT"] = "1"
    procs = []
    for j in range(jobs):
        rep, log = os.path.join(tmp, f"shard{j}.json"), os.path.join(tmp, f"shard{j}.log")
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--tb=line",
               "--seed-sweep", str(per[j]), "--seed-base", str(starts[j]), "--seed-report", rep, *a.pytest_args]
        procs.append((subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env), rep, log))
    runs, fails, failed, broken = collections.Counter(), collections.Counter(), [], []
    for p, rep, log in procs:
        rc = p.wait()
        if not os.path.exists(rep):
            broken.append((rc, log))
            continue
        r = json.load(open(rep))
        runs.update(r["runs"])
        fails.update(r["fails"])
        failed += [tuple(f) for f in r["failed"]]
    print(f"seed sweep: seeds {a.base}..{a.base + a.seeds - 1} over {jobs} processes (logs in {tmp})")
    for path in sorted(runs):
        print(f"{path}: {runs[path]} runs ({runs[path] // a.seeds} tests x {a.seeds} seeds), {fails[path]} failed")
    for rc, log in broken:
        print(f"a shard ended (exit {rc}) without a report: see {log}")
    for test, seed, when in sorted(failed, key=lambda f: (f[0], f[1])):
        print(f"  FAILED TL_TEST_SEED={seed} python -m pytest '{test}'" + ("" if when == "call" else f"  ({when})"))
    print(f"{len(failed)} failing (test, seed) pairs" if failed or broken else "no failing (test, seed) pairs")
    return 1 if failed or broken else 0


if __name__ == "__main__":
    sys.exit(main())
