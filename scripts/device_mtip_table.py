#!/usr/bin/env python3
"""The tables of scripts/device_mtip.sh from its logs (the folder given as the argument).

1. Generation 2 at the size of the cuFINUFFT paper's M-TIP runs, per stage, before (issue 14's
   figures, one H200, commit 5a815a9 era: host phasing, CG vectors on the host, matcher rebuilt
   per call) and after (mtip_continue.log: generation 2 phases once, from generation 1's
   density, as before; mtip_default.log: four fresh starts and the continuation; both without
   issue 17's half sets, free pixels and automatic preconditioner; mtip_realdata.log: the
   default with them).
2. The GPU demo per data seed: final density / intensity correlation, orientation error, time.
"""
import os
import re
import sys

LOG = sys.argv[1] if len(sys.argv) > 1 else "."
GEN = re.compile(
    r"gen (\d+)/\d+: slicing ([\d.]+) s, matching ([\d.]+) s, merging ([\d.]+) s "
    r"\(CG (\d+) it, res ([^)]+)\), phasing ([\d.]+) s \(Fourier err ([\d.]+)\)"
    r"(?:, total ([\d.]+) s on (\w+))?")
FINAL = re.compile(r"final correlation with the ground truth: ([\d.-]+) \(density\), ([\d.-]+) "
                   r"\(intensity\)(?:, median orientation error ([\d.]+) deg)?")
BEFORE = {"slicing": 0.05, "matching": 0.07, "merging": 1.08, "phasing": 1.72}


def generations(path):
    try:
        text = open(path).read()
    except OSError:
        return None
    return [m.groups() for m in GEN.finditer(text)]


def stage_table():
    runs = {}
    for name in ("continue", "default", "realdata"):
        gens = generations(os.path.join(LOG, f"mtip_{name}.log"))
        if gens:
            g2 = [g for g in gens if g[0] == "2"]
            if g2:
                runs[name] = g2[0]
    if not runs:
        print("(no generation-2 progress lines: see logs/mtip_*.log)")
        return
    cols = list(runs)
    print("\n| generation 2 (2000 x 128^2, M = 81, 1e4 refs, 20 CG, 1 cycle) | before (issue 14) | "
          + " | ".join(f"after, {c}" for c in cols) + " |")
    print("| --- | --- |" + " --- |" * len(cols))
    idx = {"slicing": 1, "matching": 2, "merging": 3, "phasing": 6}
    for stage, i in idx.items():
        print(f"| {stage} s | {BEFORE[stage]:.2f} | " +
              " | ".join(runs[c][i] for c in cols) + " |")
    four = lambda g: sum(float(g[i]) for i in idx.values())
    print(f"| sum of the four s | {sum(BEFORE.values()):.2f} | " +
          " | ".join(f"{four(runs[c]):.3f}" for c in cols) + " |")
    print("| whole generation (scores, files included) s | - | " +
          " | ".join(runs[c][8] or "-" for c in cols) + " |")
    print("| CG iterations / residual | 20 | " +
          " | ".join(f"{runs[c][4]} / {runs[c][5]}" for c in cols) + " |")
    print("| Fourier error | - | " + " | ".join(runs[c][7] for c in cols) + " |")
    print("| engine | cuda + host | " + " | ".join(runs[c][9] or "?" for c in cols) + " |")


def demo_table():
    rows = []
    for f in sorted(os.listdir(LOG)):
        m = re.fullmatch(r"demo(\d+)\.log", f)
        if not m:
            continue
        text = open(os.path.join(LOG, f)).read()
        fin = FINAL.search(text)
        gens = [g for g in GEN.finditer(text)]
        total = sum(float(g.group(9) or 0) for g in gens)
        rows.append((m.group(1), fin.groups() if fin else None, len(gens), total))
    if not rows:
        return
    print("\n| demo data seed | density | intensity | orientation error deg | generations | "
          "sum of generation times s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for seed, fin, n, total in rows:
        if fin:
            print(f"| {seed} | {fin[0]} | {fin[1]} | {fin[2] or '-'} | {n} | {total:.1f} |")
        else:
            print(f"| {seed} | (no final line: see logs/demo{seed}.log) | | | {n} | {total:.1f} |")


stage_table()
demo_table()
