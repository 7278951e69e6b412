"""Every bad package of the corpus (bad_packages.py, generated deterministically from the fixture
package) is refused with TLError and a message, in process and again in a subprocess (crash
detection); nothing is written next to the packages. The aarch64 bundle is built with
aarch64-linux-gnu-gcc when installed; the other-architecture case is also covered by an
e_machine-patched x86-64 bundle."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tl._runtime as R
from bad_packages import ANY, make_corpus
from rt_helpers import INCLUDE, FIXTURE_C, build_bundle, python_env


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, package_path, bundle_bytes):
    tmp = tmp_path_factory.mktemp("bad")
    extra = {"undefined": build_bundle(tmp / "undef.so", {"FIXTURE_UNDEFINED": "1"}).read_bytes(),
             "abi99": build_bundle(tmp / "abi99.so", {"FIXTURE_ABI": "99"}).read_bytes()}
    cross = shutil.which("aarch64-linux-gnu-gcc")
    if cross:
        out = tmp / "a64.so"
        subprocess.run([cross, "-shared", "-fPIC", "-O2", "-nostdlib", "-ffreestanding", "-fvisibility=hidden",
                        f"-I{INCLUDE}", str(FIXTURE_C), "-o", str(out)], check=True)
        extra["aarch64"] = out.read_bytes()
    d = tmp / "corpus"
    cases = make_corpus(d, package_path.read_bytes(), bundle_bytes, extra)
    return d, cases


def test_corpus_is_big(corpus):
    d, cases = corpus
    assert len(cases) > 120
    names = {n for n, _ in cases}
    assert {"empty.tlpkg", "directory.tlpkg", "dotdot.tlpkg", "duplicate.tlpkg", "lying_hash.tlpkg",
            "bundle_undefined.tlpkg", "bundle_emachine_aarch64.tlpkg"} <= names


def test_each_refused_in_process(corpus):
    d, cases = corpus
    before = sorted(os.listdir(d))
    opened = 0
    for name, expect in cases:
        if expect == ANY:
            try:
                with R.load(d / name) as p:      # damage the reader may ignore: payloads were verified
                    out = np.zeros(3, np.int64)
                    p.count(out, grid=3)
                    assert list(out) == [1, 2, 3]
                opened += 1
                continue
            except R.TLError as e:
                assert str(d / name) in str(e)
                continue
        with pytest.raises((R.TLError, FileNotFoundError)) as ei:
            R.load(d / name).close()
        msg = str(ei.value)
        assert msg and str(d / name) in msg, (name, msg)
        if isinstance(ei.value, R.TLError):
            assert ei.value.status_name in ("TL_ERROR_BAD_PACKAGE", "TL_ERROR_VERSION", "TL_ERROR_INVALID_ARGUMENT",
                                            "TL_ERROR_UNSUPPORTED"), (name, ei.value.status_name, msg)
        if expect is not None:
            assert expect in msg, (name, msg)
    assert sorted(os.listdir(d)) == before          # nothing written next to the packages
    assert opened < 20


def test_each_refused_in_subprocess(corpus):
    d, cases = corpus
    env = python_env()
    r = subprocess.run([sys.executable, str(Path(__file__).with_name("bad_packages.py")), str(d)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, (r.returncode, r.stderr[-3000:])
    lines = dict(line.split("\t", 1) for line in r.stdout.splitlines())
    assert set(lines) == {n for n, _ in cases}
    expects = dict(cases)
    assert not [n for n, v in lines.items() if v.startswith("OK") and expects[n] != ANY]
