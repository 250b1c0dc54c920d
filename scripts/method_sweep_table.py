#!/usr/bin/env python3
"""The table of scripts/device_method_sweep.sh: per case, the automatic choice's execute time
against the fastest candidate whose error is within 1.5x the automatic one's.

    python3 scripts/method_sweep_table.py method_sweep.jsonl [--slack 0.05]

Each input line is {"case": NAME, "label": LABEL, "res": <nufftmp-bench JSON or {}>}. A row is
flagged when the best candidate is more than --slack (default 5%) faster than auto; the exit
status is 0 either way (a table, not a test: machines are noisy).
"""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("jsonl")
    ap.add_argument("--slack", type=float, default=0.05)
    a = ap.parse_args()
    cases = {}
    order = []
    with open(a.jsonl) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            name = rec.get("case")
            if name not in cases:
                cases[name] = []
                order.append(name)
            cases[name].append((rec.get("label"), rec.get("res") or {}))
    print("| case | auto ms | auto err | best | best ms | best err | auto/best | flag |")
    print("|---|---|---|---|---|---|---|---|")
    flagged = 0
    for name in order:
        runs = cases[name]
        auto = next((r for lbl, r in runs if lbl == "auto" and "exec_ms" in r), None)
        if auto is None:
            print(f"| {name} | (auto failed) | | | | | | |")
            continue
        err_cap = 1.5 * float(auto.get("rel_err", 0.0) or 0.0)
        best_lbl, best = "auto", auto
        for lbl, r in runs:
            if "exec_ms" not in r:
                continue
            err = r.get("rel_err")
            if err is None or (err_cap > 0 and float(err) > err_cap):
                continue
            if float(r["exec_ms"]) < float(best["exec_ms"]):
                best_lbl, best = lbl, r
        ratio = float(auto["exec_ms"]) / float(best["exec_ms"])
        flag = "**>5%**" if ratio > 1.0 + a.slack else ""
        flagged += bool(flag)
        print(f"| {name} | {float(auto['exec_ms']):.3f} | {float(auto.get('rel_err', 0)):.2e} | "
              f"{best_lbl} | {float(best['exec_ms']):.3f} | {float(best.get('rel_err', 0)):.2e} | "
              f"{ratio:.3f} | {flag} |")
    print(f"\n{len(order)} cases, {flagged} with a candidate more than "
          f"{100 * a.slack:.0f}% faster than auto")
    return 0


if __name__ == "__main__":
    sys.exit(main())
