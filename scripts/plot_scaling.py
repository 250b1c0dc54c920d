#!/usr/bin/env python3
"""Plots of a scaling series written by scripts/weak_scaling.sh (JSON lines of nufftmp-bench).

  scripts/plot_scaling.py scaling.jsonl [-o prefix]

Writes <prefix>_efficiency.png (parallel efficiency against ranks, one line per case) and
<prefix>_split.png (execute time split into local compute and communication, one panel per
case, one bar per rank count). Efficiency: the value the bench measured when present (weak
scaling measures T(1 rank) in the run itself), else from the series: weak T(1)/T(P), strong
T(1)/(P T(P)).
"""
import argparse
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    series = defaultdict(dict)  # (case, mode, prec, type, dim, N) -> ranks -> total line
    with open(path) as fh:
        for line in fh:
            line = line.strip()
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if r.get("scope") != "total":
                continue
            key = (r.get("case", "case"), r["mode"], r["prec"], r["type"], r["dim"],
                   "x".join(str(n) for n in r["N"]))
            series[key][r["ranks"]] = r
    return series


def efficiency(runs):
    out = {}
    t1 = runs[1]["exec_ms"] if 1 in runs else None
    for p, r in sorted(runs.items()):
        if r.get("efficiency") is not None:
            out[p] = r["efficiency"]
        elif t1 and r["exec_ms"] > 0:
            out[p] = t1 / r["exec_ms"] if r["mode"] == "weak" else t1 / (p * r["exec_ms"])
    return out


def label(key):
    case, mode, prec, typ, dim, n = key
    return f"{case}: type {typ} {dim}D {n} {'float' if prec == 'f' else 'double'} ({mode})"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("jsonl")
    ap.add_argument("-o", "--prefix", default="scaling")
    a = ap.parse_args()
    series = load(a.jsonl)
    if not series:
        sys.exit(f"no total lines in {a.jsonl}")

    fig, ax = plt.subplots(figsize=(7, 4.5))
    max_p = 1
    for key, runs in sorted(series.items()):
        eff = efficiency(runs)
        if eff:
            ps = sorted(eff)
            ax.plot(ps, [eff[p] for p in ps], "o-", label=label(key))
            max_p = max(max_p, ps[-1])
    ax.axhline(0.95, color="gray", ls="--", lw=0.8)
    ax.text(1, 0.955, "95% target", color="gray", fontsize=8)
    ax.set_xlabel("ranks")
    ax.set_ylabel("parallel efficiency")
    ax.set_xticks(range(1, max_p + 1))
    ax.set_ylim(0, 1.15)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax.set_title("nufftmp distributed scaling")
    fig.tight_layout()
    fig.savefig(f"{a.prefix}_efficiency.png", dpi=130)

    n = len(series)
    fig, axes = plt.subplots(1, n, figsize=(3.6 * n + 1, 4), squeeze=False)
    for ax, (key, runs) in zip(axes[0], sorted(series.items())):
        ps = sorted(runs)
        comp = [runs[p]["compute_ms"] for p in ps]
        comm = [runs[p]["comm_ms"] for p in ps]
        x = range(len(ps))
        ax.bar(x, comp, label="local compute")
        ax.bar(x, comm, bottom=comp, label="communication")
        ax.set_xticks(list(x))
        ax.set_xticklabels([str(p) for p in ps])
        ax.set_xlabel("ranks")
        ax.set_ylabel("execute time (ms)")
        ax.set_title(label(key), fontsize=8)
        ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(f"{a.prefix}_split.png", dpi=130)
    print(f"wrote {a.prefix}_efficiency.png and {a.prefix}_split.png")


if __name__ == "__main__":
    main()
