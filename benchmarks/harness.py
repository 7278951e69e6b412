"""Timing: contenders of one workload run interleaved (A B C A B C ...), medians of many runs.

``measure(fns, budget_s, min_reps, max_reps) -> {name: {"median_s", "min_s", "p25_s", "p75_s",
"reps"}}``. ``fns`` maps a contender name to a zero-argument callable; each runs twice as a
warm-up, then the repetition count is chosen so the whole interleaved set takes about
``budget_s`` (bounded by min_reps/max_reps). A contender that raises is reported with
``error`` and dropped from the rounds.
"""
from __future__ import annotations

import statistics
import time


def measure(fns: dict, budget_s: float = 1.0, min_reps: int = 5, max_reps: int = 200) -> dict:
    live, out = {}, {}
    est = 0.0
    for name, fn in fns.items():
        try:
            fn()
            t0 = time.perf_counter()
            fn()
            est += time.perf_counter() - t0
            live[name] = fn
        except Exception as e:  # noqa: BLE001 - a failing peer is reported, not fatal
            out[name] = {"error": f"{type(e).__name__}: {e}"[:200]}
    reps = max(min_reps, min(max_reps, int(budget_s / max(est, 1e-7))))
    times = {name: [] for name in live}
    pc = time.perf_counter
    for _ in range(reps):
        for name, fn in live.items():
            t0 = pc()
            fn()
            times[name].append(pc() - t0)
    for name, ts in times.items():
        ts.sort()
        q = statistics.quantiles(ts, n=4) if len(ts) >= 2 else [ts[0]] * 3
        out[name] = {"median_s": statistics.median(ts), "min_s": ts[0], "p25_s": q[0], "p75_s": q[2],
                     "reps": len(ts)}
    return out


def per_call(fn, n: int = 2000, rounds: int = 41) -> float:
    """Median seconds per call of a very cheap ``fn`` (each round runs it ``n`` times: rounds of
    about a millisecond, so that the median dodges preemption on a busy machine); a contender
    timed elsewhere (benchmarks/percall.py: the C loop) reports ``fn.per_call_s()``."""
    if hasattr(fn, "per_call_s"):
        return fn.per_call_s()
    fn()
    res = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        res.append((time.perf_counter() - t0) / n)
    return statistics.median(res)
