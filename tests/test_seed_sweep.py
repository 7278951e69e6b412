"""tests/seed_sweep.py: --seed-sweep parametrizes rng_seed tests, deselects the others and
lists the failing (test, seed) pairs; the driver splits seeds over processes and merges them."""
import os
import subprocess
import sys
import textwrap

from seed_sweep import seed_of

HERE = os.path.dirname(os.path.abspath(__file__))


def test_seed_of_strips_the_sweep_id():
    assert seed_of("t.py::test_a[seed7]") == ("t.py::test_a", 7)
    assert seed_of("t.py::test_a[float16-seed42]") == ("t.py::test_a[float16]", 42)
    assert seed_of("t.py::test_a[seed3-float16-x]") == ("t.py::test_a[float16-x]", 3)
    assert seed_of("t.py::test_a[float16]") == ("t.py::test_a[float16]", None)


def _project(tmp_path):
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {HERE!r})
        import numpy as np, pytest
        from seed_sweep import *  # noqa

        @pytest.fixture
        def rng_seed(request):
            seed = getattr(request, "param", None) or int(os.environ.get("TL_TEST_SEED") or 0)
            return np.random.default_rng(seed), seed
    """))
    (tmp_path / "test_x.py").write_text(textwrap.dedent("""
        import pytest

        @pytest.mark.parametrize("k", [1, 2])
        def test_fails_on_seed_12(rng_seed, k):
            assert not (rng_seed[1] == 12 and k == 2)

        def test_unseeded():
            pass
    """))


def test_sweep_in_one_process_lists_failing_pairs(tmp_path):
    _project(tmp_path)
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--seed-sweep", "5",
                        "--seed-base", "10", "test_x.py"], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 1, r.stdout
    assert "1 failed, 9 passed, 1 deselected" in r.stdout
    assert "test_x.py: 10 runs (2 tests x 5 seeds), 1 failed" in r.stdout
    assert "TL_TEST_SEED=12 python -m pytest 'test_x.py::test_fails_on_seed_12[2]'" in r.stdout


def test_driver_splits_seeds_over_processes(tmp_path):
    _project(tmp_path)
    env = {**os.environ, "TL_OPS_BACKEND": "interp"}   # the driver's package prebuild is skipped
    r = subprocess.run([sys.executable, os.path.join(HERE, "seed_sweep.py"), "--seeds", "6", "--base", "9",
                        "--jobs", "3", "--log-dir", str(tmp_path / "logs"), "test_x.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "test_x.py: 12 runs (2 tests x 6 seeds), 1 failed" in r.stdout
    assert "FAILED TL_TEST_SEED=12 python -m pytest 'test_x.py::test_fails_on_seed_12[2]'" in r.stdout
    r = subprocess.run([sys.executable, os.path.join(HERE, "seed_sweep.py"), "--seeds", "2", "--base", "1",
                        "--jobs", "2", "--log-dir", str(tmp_path / "logs2"), "test_x.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "no failing (test, seed) pairs" in r.stdout, r.stdout
