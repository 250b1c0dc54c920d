#!/usr/bin/env python3
"""The table of scripts/device_execute.sh: its summary, the ncu figures per kernel, and per case
every variant's execute time (the bench's fastest of 10, and the GPU time of the stages, median)
with its error and its ratio to cuFINUFFT's best method (above 1: nufftmp faster).

usage: device_execute_table.py OUT_DIR
"""
import csv
import io
import json
import os
import sys


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def ncu_rows(text):
    """Blocks '== case kernel env ==' followed by ncu's raw CSV (header, units, values)."""
    out, label, lines = [], None, []

    def flush():
        if label and len(lines) >= 2:
            rows = list(csv.reader(io.StringIO("\n".join(lines))))
            head, vals = rows[0], rows[-1]
            d = dict(zip(head, vals))
            if len(rows) >= 3:  # the units row: the time in microseconds
                unit = dict(zip(head, rows[1])).get("gpu__time_duration.sum", "")
                t = num(d.get("gpu__time_duration.sum", ""))
                scale = {"nsecond": 1e-3, "usecond": 1.0, "msecond": 1e3}.get(unit)
                if t is not None and scale:
                    d["gpu__time_duration.sum"] = str(t * scale)
            out.append((label, d))

    for line in text.splitlines():
        if line.startswith("== "):
            flush()
            label, lines = line.strip("= "), []
        elif line.startswith('"'):
            lines.append(line)
        elif line.startswith("ncu:"):
            out.append((line, {}))
    flush()
    return out


SHORT = [("gpu__time_duration.sum", "us"), ("sm__warps_active.avg.pct_of_peak_sustained_active", "occ%"),
         ("smsp__issue_active.avg.pct_of_peak_sustained_active", "issue%"),
         ("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", "fma%"),
         ("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active", "fp64%"),
         ("sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active", "alu%"),
         ("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active", "lsu%"),
         ("l1tex__throughput.avg.pct_of_peak_sustained_active", "l1%"),
         ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram%"),
         ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "shWF"),
         ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "shConf"),
         ("launch__registers_per_thread", "regs")]


def num(v):
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "device-out"
    print(read(os.path.join(out, "summary.txt")).rstrip())

    rows = ncu_rows(read(os.path.join(out, "ncu.txt")))
    if rows:
        print("\n== ncu (one launch each; --clock-control none)")
        print("  ".join(["kernel".ljust(44)] + [s for _, s in SHORT]))
        for label, d in rows:
            cells = []
            for key, short in SHORT:
                v = num(d.get(key, ""))
                if v is None:
                    cells.append("-")
                elif short == "us":
                    cells.append("%.0f" % v)
                elif short in ("shWF", "shConf"):
                    cells.append("%.3g" % v)
                else:
                    cells.append("%.0f" % v)
            print("  ".join([label[:44].ljust(44)] + cells))

    cuf = {}
    for line in read(os.path.join(out, "cuf.csv")).splitlines()[1:]:
        parts = line.split(",")
        if len(parts) == 3 and num(parts[2]):
            case, m, ms = parts[0], parts[1], float(parts[2])
            if case not in cuf or ms < cuf[case][1]:
                cuf[case] = (m, ms)

    runs = []
    for line in read(os.path.join(out, "bench.jsonl")).splitlines():
        try:
            runs.append(json.loads(line))
        except ValueError:
            pass
    if not runs:
        return
    print("\n== execute per variant (ms; 'gpu' = stage GPU time, median; ratio = cuFINUFFT best / ours)")
    print("   variant               ran: method(variant) bins/maxsub    exec    gpu  sprd/intp    fft"
          "  rel_err  ratio r_gpu")
    order = []
    for r in runs:
        if r["case"] not in order:
            order.append(r["case"])
    for case in order:
        best = cuf.get(case)
        head = "%s: cuFINUFFT best %s" % (case, "m%s %.4g ms" % best if best else "n/a")
        print(head)
        mine = [r for r in runs if r["case"] == case]
        fastest = min((r["res"]["exec_ms"] for r in mine if r.get("res")), default=None)
        for r in mine:
            res, st = r.get("res") or {}, r.get("stages") or {}
            ex = res.get("exec_ms")
            gpu = st.get("total")
            core = st.get("spread", st.get("interp"))
            fft = st.get("fft")
            f = lambda v, p="%.4g": (p % v) if v is not None else "-"
            ratio = f(best[1] / ex, "%.2f") if best and ex else "-"
            ratio_gpu = f(best[1] / gpu, "%.2f") if best and gpu else "-"
            star = "*" if ex is not None and ex == fastest else " "
            ran = r.get("choice") or str(res.get("method", "FAIL"))
            print("  %s%-21s %-30s %6s %6s %8s %6s %8s %5s %5s" % (
                star, r["label"][:21], ran[:30], f(ex), f(gpu), f(core), f(fft),
                f(res.get("rel_err"), "%.1e"), ratio, ratio_gpu))

    # One line per case: the default against the fastest variant (what a new default would give).
    print("\n== per case: auto (the current default) and the fastest variant; ratio to cuFINUFFT best")
    for case in order:
        mine = [r for r in runs if r["case"] == case and (r.get("res") or {}).get("exec_ms")]
        if not mine:
            print("  %-8s no result" % case)
            continue
        auto = next((r for r in mine if r["label"] == "auto"), None)
        fast = min(mine, key=lambda r: r["res"]["exec_ms"])
        best = cuf.get(case)
        ra = "%.2f" % (best[1] / auto["res"]["exec_ms"]) if best and auto else "-"
        rf = "%.2f" % (best[1] / fast["res"]["exec_ms"]) if best else "-"
        print("  %-8s auto %7s ms (%s)  fastest %-21s %7s ms (%s)" % (
            case, "%.4g" % auto["res"]["exec_ms"] if auto else "-", ra, fast["label"][:21],
            "%.4g" % fast["res"]["exec_ms"], rf))





if __name__ == "__main__":
    main()
