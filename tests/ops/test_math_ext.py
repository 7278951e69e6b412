"""tl.ops elementary math (ops/math_ext.py umath/bmath, tl/ops/elementary.py) against float64
NumPy / torch.

Tolerances: float32 results are compared in units of the float32 spacing of the reference
(``ULP32`` per op: the measured maximum on these inputs plus margin, stated per op); float16 and
bfloat16 results (float32 math, one rounding) within one unit of the dtype (rtol 2^-10 / 2^-7)
of the reference; special values (NaN, +-inf, +-0.0) exactly, the sign of zero included.
"""
import numpy as np
import pytest
import torch

import tl.ops as T
from ops_helpers import BF16, FLOATS, f64

R64 = {"sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
       "sinh": np.sinh, "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
       "expm1": np.expm1, "log1p": np.log1p, "exp2": np.exp2, "log2": np.log2, "log10": np.log10,
       "trunc": np.trunc}
# float32 error bound in ulp of the reference (measured max on the domains below, plus margin)
ULP32 = {"sin": 4, "cos": 4, "tan": 6, "asin": 4, "acos": 4, "atan": 4, "sinh": 6, "cosh": 6, "asinh": 6,
         "acosh": 6, "atanh": 6, "expm1": 6, "log1p": 6, "exp2": 4, "log2": 4, "log10": 4, "trunc": 0}


def _logu(rng, lo, hi, n, signed=True):
    """n values log-uniform in [lo, hi) (random sign when ``signed``), float32."""
    v = np.exp(rng.uniform(np.log(lo), np.log(hi), n))
    return (v * (rng.choice([-1.0, 1.0], n) if signed else 1.0)).astype(np.float32)


def _domain(name, rng, n=3001):
    """Random float32 inputs covering the op's domain (n odd: vector tails)."""
    u = lambda lo, hi: rng.uniform(lo, hi, n).astype(np.float32)  # noqa: E731
    return {
        "sin": np.concatenate([u(-4, 4), u(-8192, 8192), _logu(rng, 1e-30, 1e3, n)]),
        "cos": np.concatenate([u(-4, 4), u(-8192, 8192)]),
        "tan": np.concatenate([u(-4, 4), u(-8192, 8192), _logu(rng, 1e-30, 1, n)]),
        "asin": np.concatenate([u(-1, 1), _logu(rng, 1e-30, 1, n)]),
        "acos": np.concatenate([u(-1, 1), _logu(rng, 1e-30, 1, n)]),
        "atan": _logu(rng, 1e-30, 1e30, n),
        "sinh": _logu(rng, 1e-30, 89, n), "cosh": _logu(rng, 1e-30, 89, n),
        "asinh": _logu(rng, 1e-30, 1e30, n),
        "acosh": 1 + _logu(rng, 1e-6, 1e30, n, signed=False),
        "atanh": _logu(rng, 1e-30, 1, n),
        "expm1": np.concatenate([_logu(rng, 1e-30, 88, n), u(-1, 1)]),
        "log1p": np.concatenate([_logu(rng, 1e-30, 1e30, n, False), -_logu(rng, 1e-30, 1, n, False)]),
        "exp2": np.concatenate([u(-149, 127.9), u(-2, 2)]),
        "log2": _logu(rng, 1e-44, 1e38, n, signed=False),
        "log10": _logu(rng, 1e-44, 1e38, n, signed=False),
        "trunc": np.concatenate([u(-10, 10), _logu(rng, 1e-3, 1e9, n)]),
    }[name]


def _ulp_err(got, ref, floor=0.0):
    """max (|got - ref| - floor) in float32 spacings of ref (finite refs; other lanes must match
    exactly). ``floor``: an absolute error allowed on top (per element), for results that cancel."""
    g = f64(got)
    fin = np.isfinite(ref)
    np.testing.assert_array_equal(g[~fin], ref[~fin])
    with np.errstate(over="ignore"):   # spacing(FLT_MAX) overflows: use that binade's 2^104
        sp = np.minimum(np.spacing(np.abs(ref[fin]).astype(np.float32)).astype(np.float64), 2.0 ** 104)
    e = np.maximum(np.abs(g[fin] - ref[fin]) - np.broadcast_to(floor, ref.shape)[fin], 0.0)
    return float(np.max(e / sp)) if fin.any() else 0.0


def _floor(name, x, ref):
    """Absolute error allowed besides the ulp bound: for sin/cos/tan the reduction's |x| * 2^-46
    (k * (pi/2 third part) rounds once; |x| <= 8192), times the derivative (1 + tan^2 for tan)."""
    if name in ("sin", "cos"):
        return np.abs(f64(x)) * 2.0 ** -46
    if name == "tan":
        return np.abs(f64(x)) * 2.0 ** -46 * (1 + ref * ref)
    return 0.0


@pytest.mark.parametrize("name", sorted(R64))
def test_unary_float32_ulp(name, rng_seed):
    rng, seed = rng_seed
    x = _domain(name, rng)
    with np.errstate(all="ignore"):
        ref = R64[name](f64(x))
    err = _ulp_err(T.__dict__[name](x), ref, _floor(name, x, ref))
    assert err <= ULP32[name], f"{name}: {err:.2f} ulp > {ULP32[name]} (seed={seed})"


@pytest.mark.parametrize("dt", FLOATS[1:], ids=str)
@pytest.mark.parametrize("name", sorted(R64))
def test_unary_half_types(name, dt, rng_seed):
    """float16/bfloat16: within one unit of the dtype of the reference rounded to the dtype; the
    domain is limited to what the dtype holds."""
    rng, seed = rng_seed
    x = _domain(name, rng, 501)
    lim = 60000.0 if dt == np.float16 else 1e30
    x = x[np.abs(x) < lim]
    if dt == np.float16 and name in ("sinh", "cosh", "expm1"):
        x = x[np.abs(x) < 11]
    if dt == np.float16 and name == "exp2":
        x = x[(x > -24) & (x < 15.9)]
    if name in ("sin", "cos", "tan"):
        x = x[np.abs(x) < 100]   # a half-type input's ulp already exceeds the period above that
    xh = x.astype(dt)
    with np.errstate(all="ignore"):
        ref = f64(R64[name](f64(xh)).astype(dt))    # rounded to the dtype: overflow to inf included
    got = f64(T.__dict__[name](xh))
    rt = 2.0 ** -10 if dt == np.float16 else 2.0 ** -7
    tiny = np.finfo(np.float16).tiny if dt == np.float16 else 1e-38
    np.testing.assert_allclose(got, ref, rtol=rt, atol=tiny, equal_nan=True, err_msg=f"{name} {dt} seed={seed}")


SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, 1e-38, -1e-45],
                   np.float32)


@pytest.mark.parametrize("name", sorted(R64))
def test_unary_special_values(name):
    """NaN, +-inf, +-0 and domain edges exactly as float64 NumPy (the sign of zero included)."""
    with np.errstate(all="ignore"):
        ref = R64[name](f64(SPECIAL)).astype(np.float32)
    got = T.__dict__[name](SPECIAL)
    special = ~np.isfinite(ref) | (ref == 0)
    np.testing.assert_array_equal(got[special], ref[special], err_msg=name)
    np.testing.assert_array_equal(np.signbit(got[special & (ref == 0)]), np.signbit(ref[special & (ref == 0)]))


def test_small_arguments_keep_relative_accuracy():
    x = np.array([1e-30, -3e-20, 1e-10, 5e-8], np.float32)
    for name in ("sin", "tan", "asin", "atan", "sinh", "asinh", "atanh", "expm1", "log1p"):
        np.testing.assert_allclose(T.__dict__[name](x), R64[name](f64(x)), rtol=3e-7, err_msg=name)
    np.testing.assert_array_equal(T.exp2(np.arange(-149, 128, dtype=np.float32)), np.exp2(np.arange(-149.0, 128.0)))


F32MAX = float(np.finfo(np.float32).max)


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_huge_float32_arguments(name, rng_seed):
    """Every float32 input is correct (regression: the kernel's Cody-Waite reduction gave
    sin(1e10) = -3.3e17, sin(1e20) = -inf, cos(1e30) = NaN). tl.ops recomputes |x| > 8192 in
    float64 (0.5 ulp + double rounding: 1 ulp asserted); 8192 itself stays on the kernel path."""
    rng, seed = rng_seed
    x = np.concatenate([_logu(rng, 8192, F32MAX, 3001), rng.uniform(-2e5, 2e5, 1001).astype(np.float32),
                        np.float32([1e6, 1e10, 1e20, 1e30, -1e30, F32MAX, -F32MAX, 131142, 8192, -8192,
                                    np.nextafter(np.float32(8192), np.float32(1e9))])])
    ref = R64[name](f64(x))
    got = T.__dict__[name](x)
    assert got.dtype == np.float32 and np.isfinite(got).all()
    if name != "tan":
        assert (np.abs(got) <= 1).all()
    big = np.abs(x) > 8192
    assert _ulp_err(got[big], ref[big]) <= 1, f"{name} seed={seed}"
    assert _ulp_err(got, ref, _floor(name, x, ref)) <= ULP32[name], f"{name} seed={seed}"
    special = T.__dict__[name](np.float32([np.inf, -np.inf, np.nan, 1e30]))
    assert np.isnan(special[:3]).all() and np.isfinite(special[3])


def test_trig_fresh_user_values():
    x = np.float32([1e6, 1e10, 1e20, 1e30])
    np.testing.assert_allclose(T.sin(x), np.sin(f64(x)), rtol=3e-7)
    np.testing.assert_allclose(T.sin(x), [-0.3499935, -0.4875060, 0.6565767, -0.7911634], rtol=1e-6)
    np.testing.assert_allclose(T.cos(x), np.cos(f64(x)), rtol=3e-7)
    np.testing.assert_allclose(T.tan(x), np.tan(f64(x)), rtol=3e-7)


@pytest.mark.parametrize("dt", FLOATS[1:], ids=str)
@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_trig_huge_half_arguments(name, dt, rng_seed):
    """float16 up to 65504, bfloat16 up to 3e38: the float64 value of the input rounded to the dtype."""
    rng, seed = rng_seed
    x = _logu(rng, 1, 60000.0 if dt == np.float16 else 3e38, 1001).astype(dt)
    x = np.concatenate([x, np.array([-60000.0, 65504.0 if dt == np.float16 else 3e38, 8192, 9000], dt)])
    got = T.__dict__[name](x)
    with np.errstate(over="ignore"):
        ref = f64(R64[name](f64(x)).astype(dt))
    assert got.dtype == np.dtype(dt) and (np.isfinite(f64(got)).all() or name == "tan")  # tan: may pass 65504
    rt = 2.0 ** -10 if dt == np.float16 else 2.0 ** -7
    big = np.abs(f64(x)) > 8192
    np.testing.assert_array_equal(f64(got)[big], ref[big], err_msg=f"{name} {dt} seed={seed}")
    np.testing.assert_allclose(f64(got), ref, rtol=rt, atol=2e-3, err_msg=f"{name} {dt} seed={seed}")


def test_trig_huge_in_place_and_views():
    """out= aliasing the input: the large elements are recomputed from the input, not the output."""
    x = np.float32([[1e10, 0.5, -1e20], [3.0, 1e30, -9000.0]])
    ref = np.sin(f64(x)).astype(np.float32)
    y = x.copy()
    r = T.sin(y, out=y)
    assert r is y
    np.testing.assert_allclose(y, ref, rtol=3e-7, atol=1e-7)
    v = x[:, ::2]
    np.testing.assert_allclose(T.cos(v), np.cos(f64(v)), rtol=3e-7, atol=1e-7)
    np.testing.assert_allclose(T.tan(np.float32(1e20)), np.tan(f64(np.float32(1e20))), rtol=3e-7)   # 0-d


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_acosh_below_one_is_nan(dt):
    """Regression: acosh(-4096) = NaN but acosh(-1e10) gave 0, acosh(-1e30) inf, float16 -60000 -inf."""
    hi = 60000.0 if dt == np.float16 else 3e38
    x = np.array([-4096, -2962, -3000, -1e4, -hi, -np.inf, -1, -0.0, 0.0, 0.5, 0.99, -60000, -1e-30], dt)
    assert np.isnan(f64(T.acosh(x))).all()
    np.testing.assert_array_equal(f64(T.acosh(np.array([1.0, np.inf, np.nan], dt))), [0.0, np.inf, np.nan])


def test_log1p_huge_no_overflow():
    """Regression: log1p(x) overflowed to inf above ~4.05e36 (log(w) * x in Goldberg's form)."""
    x = np.float32([1e37, 3.4e38, F32MAX, 4.05e36, 4.1e36, 2.0 ** 24, 2.0 ** 24 + 2, 1.6e7, 1.7e7, 1e30])
    x = np.concatenate([x, _logu(np.random.default_rng(5), 1e6, F32MAX, 2001, signed=False)])
    assert _ulp_err(T.log1p(x), np.log1p(f64(x))) <= ULP32["log1p"]
    for dt in FLOATS[1:]:
        xh = np.array([3e38 if dt != np.float16 else 65504.0, 1e4, 3e4], dt)
        np.testing.assert_allclose(f64(T.log1p(xh)), np.log1p(f64(xh)), rtol=2.0 ** -7)
    assert T.log1p(np.float32([np.inf]))[0] == np.inf


EXT = np.float32([F32MAX, -F32MAX, 1e38, -1e38, 88.7, 88.72, 89.0, 89.4, 89.41, -88.7, -103, -104, 1e30, -1e30,
                  0.99999994, -0.99999994, 1e-38, 1e-45])


@pytest.mark.parametrize("name", ["expm1", "sinh", "cosh", "asinh", "atanh", "log1p", "acosh", "exp2",
                                  "log2", "log10", "atan"])
def test_unary_float32_range_extremes(name):
    """No premature overflow/underflow or NaN at the ends of the float32 range: within ULP32 where the
    float64 result is a finite float32, else the same inf/NaN/0."""
    with np.errstate(all="ignore"):
        ref = R64[name](f64(EXT))
    with np.errstate(over="ignore"):
        ref32 = ref.astype(np.float32)
    ref = np.where(np.isfinite(ref32), ref, f64(ref32))   # overflow to +-inf as the float32 reference
    sub = np.abs(ref) < np.finfo(np.float32).tiny         # subnormal results: float32 spacing floor
    got = T.__dict__[name](EXT)
    assert _ulp_err(got[~sub], ref[~sub]) <= ULP32[name], name
    np.testing.assert_allclose(f64(got[sub]), ref[sub], rtol=0, atol=2e-45)


@pytest.mark.parametrize("name", ["logaddexp", "xlogy", "hypot", "atan2"])
def test_binary_float32_range_extremes(name):
    a = np.float32([F32MAX, F32MAX, -F32MAX, 1e38, 3e38, 1e-45, 1e-38, 1e30, 2e38])
    b = np.float32([F32MAX, -F32MAX, -F32MAX, 1e38, 1e-45, 1e-45, 3e38, 1e-30, 2e38])
    if name == "xlogy":
        b = np.abs(b)
    with np.errstate(all="ignore"):
        ref = np.asarray(B64[name](f64(a), f64(b)))
        ref = np.where(np.isfinite(ref.astype(np.float32)), ref, f64(ref.astype(np.float32)))
    assert _ulp_err(T.__dict__[name](a, b), ref) <= BULP32[name], name


@pytest.mark.parametrize("dt", FLOATS, ids=str)
def test_hypot_nan_symmetric(dt):
    """Regression: hypot(nan, 0) gave 0 (and hypot(0, nan) NaN); NumPy/torch: NaN both ways, but
    hypot(+-inf, nan) = inf either way."""
    a = np.array([np.nan, 0, np.nan, np.inf, np.nan, -np.inf, np.nan, 3.0, -0.0], dt)
    b = np.array([0, np.nan, np.nan, np.nan, np.inf, np.nan, -5.0, np.nan, np.nan], dt)
    want = [np.nan, np.nan, np.nan, np.inf, np.inf, np.inf, np.nan, np.nan, np.nan]
    np.testing.assert_array_equal(f64(T.hypot(a, b)), want)
    np.testing.assert_array_equal(f64(T.hypot(b, a)), want)
    np.testing.assert_array_equal(torch.hypot(torch.from_numpy(f64(a)), torch.from_numpy(f64(b))).numpy(), want)


def test_math_docstrings_state_accuracy():
    for name in R64:
        d = T.__dict__[name].__doc__
        assert "ulp" in d and "Source:" in d, name
    assert "8192" in T.sin.__doc__ and "float64" in T.sin.__doc__


def test_logit_against_torch(rng_seed):
    rng, seed = rng_seed
    x = rng.uniform(-0.2, 1.2, 1001).astype(np.float32)
    x[:4] = [0.0, 1.0, np.nan, 0.5]
    for eps in (None, 0.0, 1e-6, 0.25):
        # the clamp bounds are float32 (as torch's float32 logit): 1 - 1e-6 rounds to 0.99999899
        xc = x if eps is None else np.clip(x, np.float32(eps), np.float32(1 - np.float32(eps)))
        ref = torch.logit(torch.from_numpy(xc).double()).numpy()
        got = T.logit(x, eps)
        np.testing.assert_allclose(got, ref, rtol=2e-6, atol=1e-6, equal_nan=True, err_msg=f"eps={eps} seed={seed}")
    with pytest.raises(ValueError, match="eps"):
        T.logit(x, 0.7)


# ----------------------------------------------------------------------------- binary
B64 = {"atan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign, "logaddexp": np.logaddexp,
       "xlogy": lambda a, b: torch.xlogy(torch.from_numpy(a), torch.from_numpy(b)).numpy(),
       "heaviside": np.heaviside, "fmax": np.fmax, "fmin": np.fmin}
BULP32 = {"atan2": 4, "hypot": 3, "copysign": 0, "logaddexp": 4, "xlogy": 4, "heaviside": 0, "fmax": 0, "fmin": 0}


def _pair(name, rng, n):
    if name == "logaddexp":
        return (rng.uniform(-100, 100, n).astype(np.float32), rng.uniform(-100, 100, n).astype(np.float32))
    a, b = _logu(rng, 1e-20, 1e20, n), _logu(rng, 1e-20, 1e20, n)
    if name == "xlogy":
        b = np.abs(b)
    if name == "heaviside":
        a[::3] = 0.0
    return a, b


@pytest.mark.parametrize("name", sorted(B64))
def test_binary_float32_ulp(name, rng_seed):
    rng, seed = rng_seed
    a, b = _pair(name, rng, 4003)
    # logaddexp = max + log1p(exp(-|a - b|)) cancels for max in (-ln2, 0): 2 ulp of max(|max|, 1) allowed
    fl = 2 * np.spacing(np.maximum(np.maximum(a, b), 1).astype(np.float32)) if name == "logaddexp" else 0.0
    err = _ulp_err(T.__dict__[name](a, b), B64[name](f64(a), f64(b)), fl)
    assert err <= BULP32[name], f"{name}: {err:.2f} ulp (seed={seed})"


@pytest.mark.parametrize("dt", FLOATS[1:], ids=str)
@pytest.mark.parametrize("name", sorted(B64))
def test_binary_half_types_broadcast(name, dt, rng_seed):
    rng, seed = rng_seed
    a = rng.uniform(-4, 4, (3, 1, 37)).astype(dt)
    b = rng.uniform(0.1 if name == "xlogy" else -4, 4, (5, 1)).astype(dt)
    got = T.__dict__[name](a, b)
    assert got.shape == (3, 5, 37) and got.dtype == np.dtype(dt)
    ref = B64[name](f64(np.broadcast_to(a, got.shape)).copy(), f64(np.broadcast_to(b, got.shape)).copy())
    rt = 2.0 ** -10 if dt == np.float16 else 2.0 ** -7
    np.testing.assert_allclose(f64(got), ref, rtol=rt, atol=1e-4, equal_nan=True, err_msg=f"{name} {dt} seed={seed}")


SA = np.array([0.0, -0.0, 0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.inf, np.nan, 1.0, np.nan, 3.0, -np.inf],
              np.float32)
SB = np.array([0.0, 0.0, -0.0, -0.0, np.inf, -np.inf, np.inf, np.inf, -np.inf, 1.0, np.nan, np.nan, -0.0, 2.0],
              np.float32)


@pytest.mark.parametrize("name", sorted(B64))
def test_binary_special_values(name):
    """Signed zeros, infinities and NaN as float64 NumPy / torch (C99 atan2 and hypot rules; heaviside as
    NumPy: NaN for NaN x; copysign of a NaN b is not compared: its sign is not portable)."""
    ref = np.asarray(B64[name](f64(SA), f64(SB))).astype(np.float32)
    got = T.__dict__[name](SA, SB)
    keep = ~np.isnan(SB) if name == "copysign" else np.ones(SA.shape, bool)
    if name in ("fmax", "fmin"):      # NumPy leaves the sign of fmax(+-0, -+0) open; ours: IEEE 754-2019
        keep &= ~((SA == 0) & (SB == 0))
        z = np.array([0.0, -0.0], np.float32)
        assert np.signbit(T.__dict__[name](z, z[::-1])).tolist() == ([False, False] if name == "fmax" else [True, True])
    np.testing.assert_array_equal(got[keep], ref[keep], err_msg=name)
    z = keep & (ref == 0)
    np.testing.assert_array_equal(np.signbit(got[z]), np.signbit(ref[z]), err_msg=name)


# ----------------------------------------------------------------------------- API: views, empty, out=, errors
@pytest.mark.parametrize("name", ["sin", "atanh", "exp2", "trunc", "logit"])
def test_strided_views_empty_and_out(name, rng_seed):
    rng, seed = rng_seed
    base = rng.uniform(-0.9, 0.9, (7, 41)).astype(np.float32)
    x = base[::2, 1::3]                      # strided, non-contiguous
    ref = T.__dict__[name](np.ascontiguousarray(x))
    np.testing.assert_array_equal(T.__dict__[name](x), ref)
    out = np.full((7, 41), np.nan, np.float32)
    r = T.__dict__[name](x, out=out[::2, ::3])
    assert r.base is not None and np.isnan(out[1]).all()
    np.testing.assert_array_equal(out[::2, ::3], ref)
    e = T.__dict__[name](np.zeros((0, 5), BF16))
    assert e.shape == (0, 5) and e.dtype == BF16


def test_binary_views_and_out():
    a = np.linspace(-3, 3, 60, dtype=np.float32).reshape(6, 10)
    b = np.linspace(0.5, 2, 10, dtype=np.float32)
    out = np.empty((6, 10), np.float32)
    r = T.atan2(a.T[::2], b[::2, None], out=out[:6, :5].T)           # a transposed out= view
    np.testing.assert_allclose(out[:6, :5].T, np.arctan2(f64(a.T[::2]), f64(b[::2, None])), rtol=5e-7)
    assert r.shape == (5, 6)
    r = T.hypot(a[:, ::-1], b[::-1], out=out)
    assert r is out
    np.testing.assert_allclose(out, np.hypot(f64(a[:, ::-1]), f64(b[::-1])), rtol=3e-7)
    assert T.fmax(np.zeros((0, 3), np.float16), np.ones(3, np.float16)).shape == (0, 3)
    np.testing.assert_array_equal(T.copysign(a, 2.0), np.abs(a))       # a Python scalar takes a's dtype


@pytest.mark.parametrize("name", ["sin", "log1p", "logit"])
def test_unary_errors(name):
    with pytest.raises(TypeError, match="'x'"):
        T.__dict__[name](np.ones(3, np.int32))
    with pytest.raises(TypeError, match="'x'"):
        T.__dict__[name](np.ones(3, np.float64))
    with pytest.raises(ValueError, match="'out'"):
        T.__dict__[name](np.ones(3, np.float32), out=np.empty(4, np.float32))
    with pytest.raises(TypeError, match="'out'"):
        T.__dict__[name](np.ones(3, np.float32), out=np.empty(3, np.float16))


@pytest.mark.parametrize("name", sorted(B64))
def test_binary_errors(name):
    f = T.__dict__[name]
    with pytest.raises(TypeError, match="one dtype"):
        f(np.ones(3, np.float32), np.ones(3, np.float16))
    with pytest.raises(TypeError, match="'b'|'values'"):
        f(np.ones(3, np.float32), np.ones(3, np.int64))
    with pytest.raises(ValueError, match="broadcast"):
        f(np.ones((2, 3), np.float32), np.ones(4, np.float32))
