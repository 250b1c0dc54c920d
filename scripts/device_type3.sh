#!/usr/bin/env bash
# On the GPU machine (device tool): type 3 and spread_interp_only. Builds, runs the type 3 GPU
# tests (and the distributed GPU variant with DIST=1), then times the type 3 cases T1-T4 of
# ../shared/benchmarks.md with nufftmp-bench next to cuFINUFFT's `cuperftest --type 3` with the
# same flags (its methods 1 and 2; CUF=path, default .anchors/cuperftest). About 8 minutes.
#   scripts/device_type3.sh [all|build|test|bench]...   (default: all)
# Environment: METHODS="auto sm output" (our methods to time, default auto), NRUNS (10),
# DIST (1: build the MPI layer and run test_dist_type3_gpu on 2 ranks), JOBS, BUILD, OUT.
# Logs and JSON lines go to $OUT; the summary table is printed last.
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
CUF=${CUF:-.anchors/cuperftest}
DIST=${DIST:-1}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/gpu.txt" 2>&1
echo "commit $(git rev-parse --short HEAD 2>/dev/null) $(date -u +%FT%TZ)" >> "$OUT/gpu.txt"
cat "$OUT/gpu.txt"

if want build; then
  start=$(date +%s)
  mpi=OFF
  targets="nufftmp nufftmp-bench test_cuda_type3 test_type3_accuracy test_type3_behaviour"
  targets="$targets test_type3_geometry test_spread_interp_only"
  if [ "$DIST" = 1 ]; then mpi=ON; targets="$targets test_dist_type3 test_dist_type3_gpu"; fi
  # shellcheck disable=SC2086
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=$mpi -DNUFFTMP_HDF5=OFF \
    && cmake --build "$BUILD" -j "$JOBS" --target $targets; } > "$OUT/build.log" 2>&1
  echo "build rc=$? in $(( $(date +%s) - start )) s"
  grep -E "error|FAILED" "$OUT/build.log" | head -20
fi

if want test; then
  start=$(date +%s)
  (cd "$BUILD" && timeout 420 ctest -R "type3|spread_interp" -E "_np[0-9]" --output-on-failure) \
    > "$OUT/ctest.log" 2>&1
  echo "type 3 tests rc=$? in $(( $(date +%s) - start )) s"
  grep -E "tests passed|Failed|FAILED|\*\*\*|Skipped|Not Run" "$OUT/ctest.log" | head -30
fi

if want bench; then
  B="$BUILD/apps/nufftmp-bench"
  runs=${NRUNS:-10}
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
  : > "$OUT/type3_bench.jsonl"
  : > "$OUT/type3_cuperftest.csv"
  cases="T1,f,64,64,64,2097152,1e-6 T2,d,64,64,64,2097152,1e-9 T3,f,512,512,1,1048576,1e-5
T4,d,1000000,1,1,2000000,1e-9"
  for c in $cases; do
    IFS=, read -r name p n1 n2 n3 m tol <<<"$c"
    a="--prec $p --type 3 --N1 $n1 --N2 $n2 --N3 $n3 --M $m --tol $tol"
    for meth in ${METHODS:-auto}; do
      # shellcheck disable=SC2086
      line=$(timeout 120 "$B" $a --backend cuda --method "$meth" --check --json --n_runs "$runs" \
               2>>"$OUT/type3_bench.err" | grep '^{' | tail -1)
      echo "{\"case\":\"$name\",\"req_method\":\"$meth\",\"res\":${line:-null}}" \
        >> "$OUT/type3_bench.jsonl"
    done
    if [ -x "$CUF" ]; then
      for meth in 1 2; do
        # shellcheck disable=SC2086
        o=$(timeout 120 "$CUF" $a --method $meth --n_runs "$runs" 2>&1)
        echo "$o" > "$OUT/cuperftest_${name}_m$meth.log"
        echo "$o" | awk -F, -v n="$name" -v m="$meth" \
          '/^execute,/{e=$5} /^makeplan,/{p=$4} /^setpts,/{s=$4}
           END{if (e!="") print n","m","e","s","p}' >> "$OUT/type3_cuperftest.csv"
      done
    fi
  done
  python3 - "$OUT/type3_bench.jsonl" "$OUT/type3_cuperftest.csv" <<'PY' | tee "$OUT/type3_table.md"
import json, sys
ours, theirs = {}, {}
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["res"]: ours.setdefault(r["case"], []).append((r["req_method"], r["res"]))
for l in open(sys.argv[2]):
    n, m, e, s, p = l.strip().split(",")
    theirs.setdefault(n, []).append((int(m), float(e), float(s), float(p)))
f = lambda x: "-" if x is None else "%.4g" % x
print("| case | ours method | exec ms | setpts ms (fresh plan) | setpts again ms | rel err | grid |"
      " cuFINUFFT best m | exec ms | setpts ms | exec ratio | setpts+exec ratio |")
print("|" + " --- |" * 12)
for case in ["T1", "T2", "T3", "T4"]:
    best = min(theirs.get(case, []), key=lambda r: r[1], default=None)
    for meth, d in ours.get(case, [("-", {})]):
        ex, sp = d.get("exec_ms"), d.get("setpts_ms")
        grid = "x".join(str(v) for v in d.get("nf", [])[: d.get("dim", 0)])
        ratio = f(best[1] / ex) if best and ex else "-"
        r2 = f((best[1] + best[2]) / (ex + sp)) if best and ex and sp else "-"
        print(f"| {case} | {meth} ({d.get('method', 'FAIL')}) | {f(ex)} | {f(sp)} | "
              f"{f(d.get('setpts_again_ms'))} | {f(d.get('rel_err'))} | {grid} | "
              f"{best[0] if best else '-'} | "
              f"{f(best[1] if best else None)} | {f(best[2] if best else None)} | {ratio} | {r2} |")
print("ratios above 1: nufftmp faster (theirs: fastest execute of their best method, its mean "
      "setpts, which rebuilds its inner plan every time; ours: set_points on a fresh plan, its "
      "inner plans included, as cuperftest times it; 'again': new points on the same plan, the "
      "inner plans kept)")
PY
fi
