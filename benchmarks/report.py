"""Turning timings into rows (rates, ratios, roofline fractions, goal checks), the Markdown table
and the roofline plot.

Rates: GFLOP/s for matmul-type groups, GB/s (bytes that must move / median time) for memory
groups, microseconds per call for overhead. Roofline time = max(FLOPs / FMA peak, bytes / triad)
with the peak and triad of the same thread count measured in the same run (bf16 peak = 2x fp32,
one vdpbf16ps does two multiply-adds per fp32 lane). ``ratio vs X`` = X's time / tl's time
(> 1 means tl is faster).
"""
from __future__ import annotations

COMPUTE = ("matmul", "skinny", "epilogue", "bf16", "conv", "attention")


def _peak(group: str, ceil: dict) -> float:
    p = ceil["fma_avx512_gflops"] or ceil["fma_avx2_gflops"]
    return 2 * p if group == "bf16" else p


def row(w, threads: int, res: dict, ceil: dict) -> dict:
    r = {"name": w.name, "group": w.group, "threads": threads, "flops": w.flops, "bytes": w.bytes,
         "goal": w.goal, "params": w.params, "contenders": {}}
    roof = max(w.flops / (_peak(w.group, ceil) * 1e9), w.bytes / (ceil["triad_gbs"] * 1e9)) if w.group != "overhead" else 0
    for name, m in res.items():
        c = dict(m)
        if "median_s" in m:
            t = m["median_s"]
            if w.group in COMPUTE:
                c["rate"], c["unit"] = w.flops / t / 1e9, "GFLOP/s"
            elif w.group == "memory":
                c["rate"], c["unit"] = w.bytes / t / 1e9, "GB/s"
            else:
                c["rate"], c["unit"] = t * 1e6, "us/call"
            if roof:
                c["roof_frac"] = roof / t
        r["contenders"][name] = c
    tl = res.get("tl") or res.get("tl.ops")
    if tl and "median_s" in tl:
        r["ratios"] = {n: m["median_s"] / tl["median_s"] for n, m in res.items()
                       if "median_s" in m and not n.startswith("tl")}
    r["met"], r["why"] = _goal(w, r, ceil)
    return r


def _met_cell(r):
    """The table's last column: models have no goal of their own (reported, not judged)."""
    if r["name"].startswith("model "):
        return "(reported)" if r["met"] else "NO: " + r["why"]
    return "yes" if r["met"] else "NO: " + r["why"]


def _goal(w, r, ceil):
    c, ratios = r["contenders"], r.get("ratios", {})
    tlc = c.get("tl", {})
    if "rate" not in tlc and w.group != "overhead":
        return False, "tl failed"
    miss = []
    if w.group == "matmul":
        if ratios.get("numpy", 0) < 1.0:
            miss.append(f"{ratios.get('numpy', 0):.2f}x numpy < 1.0")
        if w.params["n"] >= 1024 and tlc["roof_frac"] < 0.92:
            miss.append(f"{100 * tlc['roof_frac']:.0f}% peak < 92%")
    elif w.group == "skinny":
        best = min((ratios[k] for k in ratios), default=0)
        if best < 1.0:
            miss.append(f"{best:.2f}x best peer < 1.0")
        if w.params["m"] == 1 and tlc["rate"] and w.bytes / (w.flops / tlc["rate"]) / ceil["triad_gbs"] < 0.85:
            miss.append(f"{100 * tlc['roof_frac']:.0f}% bandwidth < 85%")
    elif w.group == "epilogue":
        if ratios.get("numpy", 0) < 1.3:
            miss.append(f"{ratios.get('numpy', 0):.2f}x numpy < 1.3")
    elif w.group == "bf16":
        if ratios.get("torch", 0) < 0.9:
            miss.append(f"{ratios.get('torch', 0):.2f}x torch < 0.9")
    elif w.group == "memory":
        if tlc["roof_frac"] < 0.8:
            miss.append(f"{100 * tlc['roof_frac']:.0f}% triad < 80%")
        if ratios.get("numpy", 0) < 2.0:
            miss.append(f"{ratios.get('numpy', 0):.2f}x numpy < 2")
        tr = [v for k, v in ratios.items() if k.startswith("torch")]
        if tr and min(tr) < 1.0:
            miss.append(f"{min(tr):.2f}x torch < 1")
    elif w.group == "shapes":
        if ratios.get("numpy", 0) < 0.9:
            miss.append(f"{ratios.get('numpy', 0):.2f}x numpy < 0.9")
    elif w.group in ("conv", "attention"):
        need = 0.8 if w.group == "conv" else 1.0
        tr = [v for k, v in ratios.items() if k.startswith("torch")]
        if not tr or min(tr) < need:
            miss.append(f"{min(tr, default=0):.2f}x torch < {need}")
    elif w.group == "overhead":
        t, p = c.get("tl.ops", {}).get("median_s"), c.get("torch", {}).get("median_s")
        if t is None or p is None or t > p:
            miss.append("tl.ops slower than torch.add")
    return not miss, "; ".join(miss)


def _fmt(v) -> str:
    return "—" if v is None else (f"{v:.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}")


def line(r: dict) -> str:
    parts = [f"{r['name']:<28} {r['threads']}T"]
    for n, c in r["contenders"].items():
        parts.append(f"{n}={_fmt(c.get('rate'))}" if "rate" in c else f"{n}=ERR({c.get('error', '')[:60]})")
    if "tl" in r["contenders"] and "roof_frac" in r["contenders"]["tl"]:
        parts.append(f"roof={100 * r['contenders']['tl']['roof_frac']:.0f}%")
    parts.append("OK" if r["met"] else f"MISS: {r['why']}")
    return "  ".join(parts)


def markdown(doc: dict) -> str:
    info, ceil = doc["info"], doc["ceilings"]
    out = ["# Benchmarks", "", f"Generated by `make bench` ({info['date']}); medians of interleaved runs, "
           "same process. Regenerate, do not edit.", "",
           f"NumPy {info['numpy']}, PyTorch {info['torch']}, Python {info['python']}. "
           f"OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE in the benchmark process: {info['openblas_env']}.", "",
           f"1-minute load average at start / end: {info.get('loadavg_start', 0):.1f} / "
           f"{info.get('loadavg_end', 0):.1f} on {info.get('cpus')} CPUs (other work on the machine "
           "slows every contender; ratios from the same interleaved run stay comparable).", "",
           "BLAS libraries seen by threadpoolctl: " + "; ".join(
               f"{b.get('internal_api')} {b.get('version')} kernel **{b.get('architecture')}**"
               for b in info.get("blas", [])), "",
           "## Ceilings (measured in this run)", "", "| threads | FMA fp32 AVX-512 GFLOP/s | FMA AVX2 | "
           "triad GB/s | triad NT stores | triad cache-resident |", "|---|---|---|---|---|---|"]
    for t, c in ceil.items():
        out.append(f"| {t} | {c['fma_avx512_gflops']} | {c['fma_avx2_gflops']} | {c['triad_gbs']} | "
                   f"{c['triad_nt_gbs']} | {c['triad_l2_gbs']} |")
    out += ["", "## Results", "", "Rates: GFLOP/s (matmul), GB/s of bytes that must move (memory-bound), "
            "µs per call (overhead). `x numpy` = NumPy time / tl time (> 1: tl faster). "
            "`roof` = roofline time / tl time.", "",
            "| workload | T | tl | numpy | torch | unit | x numpy | x torch | roof | goal | met |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["results"]:
        c = r["contenders"]
        tl = c.get("tl") or c.get("tl.ops") or {}
        tor = next((v for k, v in c.items() if k.startswith("torch")), {})
        unit = tl.get("unit") or next((v.get("unit") for v in c.values() if "unit" in v), "")
        tname = next((k for k in c if k.startswith("torch")), "torch")
        rat = r.get("ratios", {})
        xt = next((v for k, v in rat.items() if k.startswith("torch")), None)
        roof = f"{100 * tl['roof_frac']:.0f}%" if "roof_frac" in tl else ""
        name = r["name"] + (" (torch allocates)" if "alloc" in tname else "")
        if r["group"] == "overhead":
            name += f"; tl kernel direct {_fmt(c.get('tl kernel', {}).get('rate'))} µs"
            if "tl C launch" in c:
                name += (f"; C tl_kernel_launch {_fmt(c['tl C launch'].get('rate'))} µs (kernel body alone "
                         f"{_fmt(c.get('tl C kernel body', {}).get('rate'))} µs)")
        out.append(f"| {name} | {r['threads']} | {_fmt(tl.get('rate'))} | {_fmt(c.get('numpy', {}).get('rate'))} | "
                   f"{_fmt(tor.get('rate'))} | {unit} | {_fmt(rat.get('numpy'))} | {_fmt(xt)} | {roof} | "
                   f"{r['goal']} | {_met_cell(r)} |")
    scal = {r["threads"]: r["contenders"].get("tl", {}).get("median_s") for r in doc["results"]
            if r["name"] == "matmul 2048x2048x2048"}
    if scal.get(1) and scal.get(2):
        s = scal[1] / scal[2]
        out += ["", f"matmul 2048 scaling, 2 threads vs 1: **{s:.2f}x** (goal >= 1.8x: {'met' if s >= 1.8 else 'MISSED'})"]
    errs = [(r["name"], r["threads"], k, v["error"]) for r in doc["results"] for k, v in r["contenders"].items()
            if "error" in v]
    if errs:
        out += ["", "Contenders that failed:", ""] + [f"- {n} {t}T {k}: {e}" for n, t, k, e in errs]
    return "\n".join(out) + "\n"


def plot(doc: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(14, 6))
    colors = {"tl": "tab:red", "numpy": "tab:blue", "torch": "tab:green", "torch (alloc)": "tab:green"}
    for t, c in doc["ceilings"].items():
        bw, pk = c["triad_gbs"], c["fma_avx512_gflops"]
        xs = [2 ** (i / 4) for i in range(-24, 48)]
        ax.plot(xs, [min(pk, bw * x) for x in xs], "--" if t == "1" else "-", color="gray",
                label=f"roof {t}T ({pk:.0f} GFLOP/s, {bw:.0f} GB/s)")
    for r in doc["results"]:
        if r["group"] not in COMPUTE or r["group"] == "bf16" or not r["bytes"]:
            continue
        ai = r["flops"] / r["bytes"]
        for n, c in r["contenders"].items():
            if "rate" in c:
                ax.scatter(ai, c["rate"], color=colors.get(n, "k"), marker="o" if r["threads"] == 1 else "^", s=25)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (FLOP / byte that must move)")
    ax.set_ylabel("GFLOP/s")
    ax.set_title("fp32 matmul roofline (o 1 thread, ^ 2 threads; red tl, blue numpy, green torch)")
    ax.legend(fontsize=7)
    mem = [r for r in doc["results"] if r["group"] == "memory" and r["threads"] == 1]
    names = [r["name"] for r in mem]
    for i, who in enumerate(("tl", "numpy", "torch")):
        vals = [next((c.get("rate", 0) for k, c in r["contenders"].items() if k.startswith(who)), 0) for r in mem]
        bx.barh([j + 0.27 * i for j in range(len(mem))], vals, height=0.27, color=colors[who], label=who)
    if "1" in doc["ceilings"]:
        bx.axvline(doc["ceilings"]["1"]["triad_gbs"], color="gray", ls="--", label="triad 1T")
    bx.set_yticks([j + 0.27 for j in range(len(mem))])
    bx.set_yticklabels(names, fontsize=7)
    bx.set_xlabel("GB/s (bytes that must move / time), 1 thread")
    bx.set_title("memory-bound ops vs STREAM triad")
    bx.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
