"""`make bench` / `python -m benchmarks.run [--quick] [--only REGEX] [--threads 1,2]`.

Measures the ceilings (FMA peak, STREAM triad) first, then times every workload of
benchmarks/workloads.py on 1 and 2 threads with the contenders interleaved, and writes
benchmarks/BENCHMARKS.md (table), benchmarks/results.json (everything) and
benchmarks/roofline.png. NumPy runs with OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE removed from this
process's environment (the script re-executes itself without them, before NumPy loads), and
OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT=4 are set so neither PyTorch's OpenMP workers
nor OpenBLAS's threads spin between contenders.
"""
from __future__ import annotations

import os
import sys

_STRIP = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
# PyTorch's OpenMP workers busy-wait after each op by default; interleaved with NumPy's and tl's
# threads on 2 cores they would steal the other contenders' CPU. Passive waiting for everyone.
# OpenBLAS's own threads spin for about 2^28 cycles after each call: the contender timed right after
# NumPy then ran its second thread on a busy core (measured: tl 2-thread 1024^3 matmul 188 GFLOP/s
# right after np.matmul, 379 with OPENBLAS_THREAD_TIMEOUT=4; NumPy itself 399 vs 407 GFLOP/s).
_SET = {"OMP_WAIT_POLICY": "PASSIVE", "OPENBLAS_THREAD_TIMEOUT": "4"}
if __name__ == "__main__" and (any(k in os.environ for k in _STRIP)
                               or any(os.environ.get(k) != v for k, v in _SET.items())):
    env = {k: v for k, v in os.environ.items() if k not in _STRIP}
    env.update(_SET)
    os.execve(sys.executable, [sys.executable, "-m", "benchmarks.run", *sys.argv[1:]], env)

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402

from benchmarks import ceilings, harness, report  # noqa: E402
from benchmarks.workloads import all_workloads  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def _set_threads(n: int) -> None:
    import torch
    import threadpoolctl
    from tl import _runtime
    torch.set_num_threads(n)
    _runtime.set_num_threads(n)   # the runtime that tl.ops' package uses (the default one)
    global _LIMITER
    _LIMITER = threadpoolctl.threadpool_limits(limits=n, user_api="blas")


def _blas_info() -> list:
    import threadpoolctl
    return [{k: d.get(k) for k in ("internal_api", "version", "architecture", "num_threads", "filepath")}
            for d in threadpoolctl.threadpool_info()]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer sizes")
    ap.add_argument("--only", default=None, help="regex on workload names")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per workload and thread count")
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--no-plot", action="store_true", help="skip roofline.png")
    args = ap.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]

    import numpy as np
    import torch
    import tl.ops as tlops
    tlops.package()
    info = {"machine": platform.processor() or platform.machine(), "python": platform.python_version(),
            "numpy": np.__version__, "torch": torch.__version__,
            "openblas_env": {k: os.environ.get(k) for k in _STRIP + tuple(_SET)}, "date": time.strftime("%Y-%m-%d %H:%M"),
            "loadavg_start": os.getloadavg()[0], "cpus": os.cpu_count()}
    ceil = {}
    for t in threads:
        ceil[t] = ceilings.measure(t)
        print(f"ceilings {t}T: {ceil[t]}", flush=True)
    results = []
    workloads = [w for w in all_workloads(args.quick) if args.only is None or re.search(args.only, w.name)]
    for t in threads:
        _set_threads(t)
        if t == threads[0]:
            info["blas"] = _blas_info()
            print("BLAS:", info["blas"], flush=True)
        for w in workloads:
            if t not in w.params.get("threads", threads):
                continue
            fns = w.setup()
            if w.group == "overhead":
                res = {name: {"median_s": harness.per_call(fn)} for name, fn in fns.items()}
            else:
                res = harness.measure(fns, budget_s=args.budget)
            del fns
            gc.collect()
            row = report.row(w, t, res, ceil[t])
            results.append(row)
            print(report.line(row), flush=True)
    info["loadavg_end"] = os.getloadavg()[0]
    doc = {"info": info, "ceilings": {str(k): v for k, v in ceil.items()}, "results": results}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)
    with open(os.path.join(args.out, "BENCHMARKS.md"), "w") as f:
        f.write(report.markdown(doc))
    if not args.no_plot:
        report.plot(doc, os.path.join(args.out, "roofline.png"))
    print(f"wrote {args.out}/BENCHMARKS.md, results.json" + ("" if args.no_plot else ", roofline.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
