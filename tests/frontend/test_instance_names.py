"""One instance-name rule (tlc.specs.instance_name) for the compiler and tl.ops (issue 14 item 4).

tlc named instances with ``-`` -> ``m`` and ``.`` -> ``p`` in values, tl.ops' interpreter index
without, so a negative or float constexpr gave two names; both now call the same function."""
from __future__ import annotations

import json
import zipfile

import pytest

import tl.ops
from tl.ops import _interp
from tlc.lower.dtypes import DType
from tlc.parse import parse_source
from tlc.specs import instance_name

SRC = """import tl

@tl.kernel(specializations=[dict(DT=tl.float16, ALPHA=-0.5), dict(DT=tl.float32, ALPHA=2.0),
                            dict(DT=tl.bfloat16, ALPHA=-3), dict(DT=tl.float32, ALPHA=1e-05)])
def k(x: tl.tensor(DT, 1), ALPHA: tl.constexpr = 1.0, DT: tl.constexpr = tl.float32):
    tl.store(x + (0,), tl.load(x + (0,), (8,)) * ALPHA)
"""


@pytest.mark.parametrize("constexprs,name", [
    ({}, "k"),
    ({"DT": DType.float16, "ALPHA": -0.5}, "k__ALPHA_m0p5__DT_float16"),
    ({"BN": 4096}, "k__BN_4096"),
    ({"N": -3}, "k__N_m3"),
    ({"EPS": 1e-05}, "k__EPS_1em05"),
    ({"LOG": True, "OP": "max"}, "k__LOG_True__OP_max"),
    ({"Z": 1, "A": 2}, "k__A_2__Z_1"),
])
def test_instance_name(constexprs, name):
    assert instance_name("k", constexprs) == name


def test_compiler_and_python_side_name_alike():
    """The compiler's instance names and the ones tl.ops computes for the same kernel agree,
    negative and float constexprs included."""
    compiled = [k.name for k in parse_source(SRC, "k.py").kernels]
    ns = {}
    exec(compile(SRC, "k.py", "exec"), ns)
    kf = ns["k"]
    assert [instance_name(kf.name, sp) for sp in kf.specializations] == compiled
    assert "k__ALPHA_m0p5__DT_float16" in compiled and "k__ALPHA_1em05__DT_float32" in compiled


def test_interp_index_names_every_instance_of_the_package():
    """TL_OPS_BACKEND=interp finds each ops/ instance under the name the package gives it."""
    with zipfile.ZipFile(tl.ops.package_path()) as z:
        built = {k["name"] for k in json.loads(z.read("manifest.json"))["kernels"]}
    assert set(_interp.instances()) == built
