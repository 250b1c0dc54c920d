#!/usr/bin/env python3
"""Summary of scripts/device_setpts.sh: steps, the stage timings of plan and set_points
(stages.txt: NUFFTMP_CUDA_STAGES=1 bench runs), and compare.csv (nufftmp against cuFINUFFT).
   device_setpts_table.py OUT_DIR"""
import json
import os
import re
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "device-out"
LINE = re.compile(r"^nufftmp stages (plan|set_points) #(\d+):(.*) total ([-\d.]+)/([-\d.]+)")
ITEM = re.compile(r"\s*([a-z_ ]+?) ([-\d.]+)/([-\d.]+),")
SHORT = {"props": "pr", "choose": "ch", "fine grid": "fg", "deconv factors": "df",
         "cufft plan": "fp", "cufft work area": "fw", "load sort kernels": "ls",
         "load kernels": "ld", "load alternative kernels": "la", "load deconvolution kernel": "lx",
         "cufft first run": "f1", "alloc": "al", "count": "co", "locate": "lo", "scan": "sc",
         "scatter": "sx", "unpack": "up", "gather": "ga", "subproblems": "sp", "sync": "sy",
         "bin stats": "bs"}


def read(name):
    p = os.path.join(out, name)
    return open(p).read() if os.path.exists(p) else ""


def parse_line(m):
    stages = [(s, float(h), float(g)) for s, h, g in ITEM.findall(m.group(3) + ",")]
    return {"call": m.group(1), "stages": stages, "host": float(m.group(4)),
            "gpu": float(m.group(5))}


def mean_of(calls):
    """Stage-wise mean of several timed calls (same stages)."""
    if not calls:
        return None
    names = [s for s, _, _ in calls[0]["stages"]]
    st = []
    for i, n in enumerate(names):
        hs = [c["stages"][i][1] for c in calls if len(c["stages"]) > i]
        gs = [c["stages"][i][2] for c in calls if len(c["stages"]) > i]
        st.append((n, sum(hs) / len(hs), sum(gs) / len(gs)))
    return {"stages": st, "host": sum(c["host"] for c in calls) / len(calls),
            "gpu": sum(c["gpu"] for c in calls) / len(calls)}


def fmt(call, which):
    """which: 'h' host, 'g' gpu, 'hg' both."""
    if call is None:
        return "-"
    parts = []
    for n, h, g in call["stages"]:
        k = SHORT.get(n, n)
        parts.append(f"{k} {h:.2f}/{g:.2f}" if which == "hg" else
                     f"{k} {h if which == 'h' else g:.2f}")
    tot = f"{call['host']:.2f}/{call['gpu']:.2f}" if which == "hg" else f"{call['host']:.2f}"
    return f"{tot} [{' '.join(parts)}]"


def cases():
    found, cur = [], None
    for line in read("stages.txt").splitlines():
        if line.startswith("#case "):
            cur = {"name": line[6:].strip(), "lines": [], "json": {}}
            found.append(cur)
        elif cur is None:
            continue
        elif line.startswith("#json "):
            try:
                cur["json"] = json.loads(line[6:])
            except ValueError:
                cur["json"] = {}
        else:
            m = LINE.match(line)
            if m:
                cur["lines"].append(parse_line(m))
    return found


def split(c):
    """first plan, steady plans, first/again/fresh set_points (bench order, run_single.cpp)."""
    plans, sp = [], []  # sp[i]: set_points calls after plan i
    for l in c["lines"]:
        if l["call"] == "plan":
            plans.append(l)
            sp.append([])
        elif sp:
            sp[-1].append(l)
    k = c["json"].get("plan_runs") or max(len(plans) - 2, 0)
    first = plans[0] if plans else None
    steady = mean_of(plans[1:1 + k])
    sp_first = sp[0][0] if sp and sp[0] else None
    again = mean_of(sp[0][1:]) if sp else None
    fresh = mean_of([s[0] for s in sp[1:1 + k] if s])
    return first, steady, sp_first, again, fresh


print("== plan and set_points by stage (ms; host/gpu where both; bench with NUFFTMP_CUDA_STAGES=1,")
print("   n_runs 3, plan_runs 3; fresh = mean over fresh plans, again = same plan, same points)")
print("   plan: pr props, ch choose, fg fine grid, df deconv factors, fp cufft plan, fw work area,")
print("   ls load sort kernels, ld load execute kernels, la load the alternative method's, lx load\n"
      "   deconvolution, f1 first cuFFT run; set_points: al alloc, co count (block) or")
print("   lo locate (global counting), sc scan, sx scatter, up unpack (packed) or ga gather,")
print("   sp subproblems, sy sync")
rows = []
for c in cases():
    first, steady, sp_first, again, fresh = split(c)
    j = c["json"]
    print(f"{c['name']:<11} {j.get('method', 'FAIL'):<7} plan first {fmt(first, 'h')}")
    print(f"{'':19} plan fresh {fmt(steady, 'h')}")
    tot = lambda c: "-" if c is None else f"{c['host']:.2f}/{c['gpu']:.2f}"
    print(f"{'':19} setpts fresh {fmt(fresh, 'hg')} again {tot(again)} first {tot(sp_first)}")
    rows.append((c["name"], j))
print("\n== bench JSON of the same runs (ms)")
print(f"{'case':<11} {'plan':>7} {'p_fresh':>7} {'sp_1st':>7} {'sp':>6} {'sp_again':>8} "
      f"{'exec':>6} {'sp+ex':>6} {'mem MiB':>8} {'err':>8}")
for name, j in rows:
    g = lambda k: j.get(k)
    f = lambda v, w=7, p=3: f"{v:>{w}.{p}f}" if isinstance(v, (int, float)) else f"{'-':>{w}}"
    err = g("rel_err")
    print(f"{name:<11} {f(g('plan_ms'), 7, 2)} {f(g('plan_steady_ms'))} {f(g('setpts_first_ms'))} "
          f"{f(g('setpts_ms'), 6)} {f(g('setpts_again_ms'), 8)} {f(g('exec_ms'), 6)} "
          f"{f(g('setpts_exec_ms'), 6)} {f((g('mem_bytes') or 0) / 2**20, 8, 0)} "
          f"{(f'{err:.1e}' if isinstance(err, float) else '-'):>8}")

# a/b rows are labelled CASE/SCATTER-COUNT (device_setpts.sh, step ab) or CASE/split and
# CASE/records (step records: the points' layout).
ab = {}  # case -> {variant: (fresh set_points, json)}
for c in cases():
    if "/" not in c["name"]:
        continue
    n, v = c["name"].split("/", 1)
    ab.setdefault(n, {})[v] = (split(c)[4], c["json"])
if ab:
    print("\n== a/b: set_points on a fresh plan by scatter or layout, GPU ms (co count or locate,")
    print("   sc scan,", end="")
    print(" sx scatter = pass 2, up unpack = pass 3 (items + bins for bucket) or gather, sp")
    print("   subproblems); exec = the bench's execute (must not get slower), err its check")
    print(f"{'case':<8} {'variant':<26} {'setpts':>6} {'co':>5} {'sc':>5} {'sx':>5} {'up':>5} "
          f"{'sp':>5} {'exec':>6} {'err':>8}")
    for n, vs in ab.items():
        for v, (fresh, j) in vs.items():
            st = {SHORT.get(k, k): g for k, _, g in (fresh["stages"] if fresh else [])}
            st.setdefault("co", st.get("lo"))  # global counting: its locate pass
            st.setdefault("up", st.get("ga"))  # gather scatter: its gather
            st = {k: v for k, v in st.items() if v is not None}
            cell = lambda k: f"{st[k]:>5.2f}" if k in st else f"{'-':>5}"
            tot = f"{fresh['gpu']:>6.3f}" if fresh else f"{'-':>6}"
            ex = j.get("exec_ms")
            err = j.get("rel_err")
            print(f"{n:<8} {v:<26} {tot} {cell('co')} {cell('sc')} {cell('sx')} {cell('up')} "
                  f"{cell('sp')} {(f'{ex:.3f}' if isinstance(ex, float) else '-'):>6} "
                  f"{(f'{err:.1e}' if isinstance(err, float) else '-'):>8}")

csv = [l for l in read("compare.csv").splitlines() if l and not l.startswith("case,")]
if csv:
    print("\n== compare.sh (ratios above 1: nufftmp faster; setpts/plan ours vs cuFINUFFT's mean)")
    print(f"{'case':<8} {'meth':<7} {'exec':>6} {'cuf':>6} {'x':>5} {'setpts':>6} {'cuf':>6} "
          f"{'sp+ex x':>7} {'plan':>7} {'cuf':>6} {'plan x':>6} {'err':>8}")
    for l in csv:
        v = l.split(",")
        if len(v) < 14:
            print(l)
            continue
        print(f"{v[0]:<8} {v[1]:<7} {v[2]:>6} {v[7]:>6} {v[11]:>5} {v[3]:>6} {v[8]:>6} "
              f"{v[12]:>7} {v[4]:>7} {v[9]:>6} {v[13]:>6} {v[5]:>8}")
print("\n== steps")
print(read("summary.txt").rstrip())
