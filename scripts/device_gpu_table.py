#!/usr/bin/env python3
"""Summarises scripts/device_gpu.sh's bench.jsonl as a Markdown table (execute median and
set_points in ms, execute throughput in points/s, relative error when checked)."""
import json
import sys

rows = []
for line in open(sys.argv[1]):
    try:
        rec = json.loads(line)
    except json.JSONDecodeError:
        continue
    rows.append(rec)
print("| case | dist | method | setpts ms | exec ms (median) | exec ms (best) | exec pts/s | total ms | rel err |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for rec in sorted(rows, key=lambda r: (r["case"], r["res"]["dist"] if r["res"] else "", r["req_method"])):
    r = rec["res"]
    if not r:
        print(f"| {rec['case']} | ? | {rec['req_method']} | failed | | | | | |")
        continue
    err = r.get("rel_err")
    label = r['method'] if rec['req_method'] in ('gm-sort', 'sm', 'output') else rec['req_method']
    print(f"| {rec['case']} | {r['dist']} | {label} | {r['setpts_ms']:.3f} | "
          f"{r['exec_ms_median']:.3f} | {r['exec_ms']:.3f} | {r['exec_median_pts_per_s']:.3g} | "
          f"{r['total_ms']:.3f} | {'' if err is None else f'{err:.2e}'} |")
