#!/usr/bin/env bash
# On the GPU machine (device tool; kind nvidia-h200: the 2-rank rows share its GPU, each rank
# with half the memory budget; nvidia-h200-x2 gives them a GPU each): build the Ewald library,
# app and tests with CUDA, run the Ewald tests (CPU ones, the app's smoke tests and the gpu
# label), then time energy + forces of random neutral systems (density 1, +1/-1) on one GPU
# (1e6, 1e7, 1e8) and on 2 ranks (2e7, 2e8), each with the memory estimate of the parameter
# choice (src/ewald/memory_model.hpp) beside the measured plans and the sampled GPU 0 peak,
# and print one table last. Default steps (build test bench): about 6-7 minutes (estimate, not
# measured; the 2e8 row is the longest, ~2-2.5 min: SIZES2=2e7 saves it). The memcheck (sanitize) and the CPU-engine row (CPU_N) are
# off by default: add "sanitize" to the steps, set CPU_N=1e6 (~3 min).
# Logs under $OUT: ewald_build.log, ewald_ctest.log, ewald_sanitizer.log, ewald_bench.jsonl,
# ewald_bench.log, ewald_gpu.txt (at most 8 files come back).
#   scripts/device_ewald.sh [all|build|test|sanitize|bench]...   (default: all)
# Knobs (environment):
#   ACC      requested accuracy of the timed runs (default 1e-6)
#   SIZES    ion counts on one GPU (default "1e6 1e7 1e8")
#   SIZES2   ion counts on 2 ranks (default "2e7 2e8": the same ions per rank as 1e7, 1e8)
#   UPS2     --upsampfac of the 2-rank rows of 1e8 ions and more (default 1.25: 489^3 modes
#            and rcut 10.6 instead of 343^3 and 14.9 at sigma 2, about 3x fewer pairs)
#   CPU_N    ion count of a CPU-engine reference run (default none; 1e6 took 52 s a step)
#   STEPS    evaluations per run; the fastest after the first is reported (default 2)
#   EXTRA    extra nufftmp-ewald flags for every timed run (e.g. "--upsampfac 1.25")
#   MORE=1   two more rows: the host real-space path at the smallest size, and upsampfac 1.25
#            at the largest (about 70 s more)
# Memory (issue 16): 80% of the free GPU memory per GPU by default (--memory-budget);
# NUFFTMP_CUDA_POOL_RETAIN is left at its default.
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
ACC=${ACC:-1e-6}
SIZES=${SIZES:-1e6 1e7 1e8}
SIZES2=${SIZES2:-2e7 2e8}
CPU_N=${CPU_N:-}
UPS2=${UPS2:-1.25}
STEPS=${STEPS:-2}
MORE=${MORE:-0}
EXTRA=${EXTRA:-}
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  echo "commit $(git rev-parse --short HEAD 2>/dev/null) $(date -u +%FT%TZ), $NGPU GPU(s), $(nproc) cores"; } \
  > "$OUT/ewald_gpu.txt" 2>&1
cat "$OUT/ewald_gpu.txt"

if want build; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=ON -DNUFFTMP_HDF5=ON \
    && cmake --build "$BUILD" -j "$JOBS" --target nufftmp-ewald test_ewald_logic \
         test_ewald_madelung test_ewald_direct test_ewald_errors test_ewald_io test_ewald_gpu; } \
    > "$OUT/ewald_build.log" 2>&1
  echo "build rc=$? in $(( $(date +%s) - start )) s"
  grep -E "error|FAILED" "$OUT/ewald_build.log" | head -20
fi

if want test; then
  start=$(date +%s)
  # The GPU tests only (the CPU ones run in CI): direct Ewald on 1 and 2 ranks, Madelung,
  # agreement with the CPU engine and the host real-space path.
  (cd "$BUILD" && timeout 240 ctest -R ewald_gpu --output-on-failure -j 2) > "$OUT/ewald_ctest.log" 2>&1
  echo "ewald tests rc=$? in $(( $(date +%s) - start )) s"
  grep -E "tests passed|Failed|FAILED|\*\*\*|Skipped|gpu .*M =|gpu acc|gpu vs cpu" \
    "$OUT/ewald_ctest.log" | head -30
fi

if [ "${steps[*]}" != all ] && want sanitize; then
  # memcheck of the new kernels (cell list, pair sums, mode array, assembly) on small systems.
  start=$(date +%s)
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/tests/ewald/test_ewald_gpu" \
    --gtest_filter='EwaldGpu.MatchesDirectEwald:EwaldGpu.CloseIonsFoundOnTheDevice' \
    > "$OUT/ewald_sanitizer.log" 2>&1
  echo "memcheck rc=$? in $(( $(date +%s) - start )) s: $(grep -E "ERROR SUMMARY" "$OUT/ewald_sanitizer.log" | tail -1)"
fi

if want bench; then
  A="$BUILD/apps/nufftmp-ewald"
  : > "$OUT/ewald_bench.jsonl"
  : > "$OUT/ewald_bench.log"
  # label ranks limit args...: one JSON line per run, with the peak memory of GPU 0 sampled
  # every 0.2 s while it runs.
  bench() {
    local label=$1 ranks=$2 limit=$3; shift 3
    local mem="$OUT/.mem" line peak
    : > "$mem"
    ( while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 \
        >> "$mem" 2>/dev/null; sleep 0.2; done ) &
    local sampler=$!
    echo "== $label: mpirun -np $ranks $A $* $EXTRA" >> "$OUT/ewald_bench.log"
    line=$(timeout "$limit" mpirun -np "$ranks" --oversubscribe "$A" "$@" $EXTRA --json \
             2>>"$OUT/ewald_bench.log" | tail -1)
    kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
    peak=$(sort -n "$mem" | tail -1)
    echo "$line" >> "$OUT/ewald_bench.log"
    echo "{\"label\":\"$label\",\"gpu0_peak_mib\":${peak:-null},\"res\":${line:-null}}" \
      >> "$OUT/ewald_bench.jsonl"
  }
  big() { python3 -c "import sys; sys.exit(0 if float('$1') >= float('$2') else 1)"; }
  for n in $SIZES; do
    ref=""; [ "$n" = 1e6 ] && ref="--reference"
    bench "1 GPU" 1 150 --random "$n" --accuracy "$ACC" --steps "$STEPS" $ref
  done
  for n in $SIZES2; do
    ups=""; big "$n" 1e8 && ups="--upsampfac $UPS2"
    bench "2 ranks" 2 170 --random "$n" --accuracy "$ACC" --steps "$STEPS" $ups
  done
  # The same accuracy on the CPU engine (all cores of the host), when asked for.
  if [ -n "$CPU_N" ]; then
    OMP_NUM_THREADS=$(nproc) bench "CPU engine" 1 200 --cpu --random "$CPU_N" --accuracy "$ACC" \
      --steps 2
  fi
  if [ "$MORE" = 1 ]; then
    bench "1 GPU, host real space" 1 120 --random "${SIZES%% *}" --accuracy "$ACC" --steps 2 \
      --host-real-space
    # The largest size at upsampfac 1.25 (fine grid 1.95 instead of 8 points per mode: the
    # accuracy-optimal modes fit, a wider kernel).
    bench "1 GPU, upsampfac 1.25" 1 150 --random "${SIZES##* }" --accuracy "$ACC" \
      --steps "$STEPS" --upsampfac 1.25
  fi
  rm -f "$OUT/.mem"
  python3 - "$OUT/ewald_bench.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| run | N | ranks | rcut | modes | sigma | b2 | phased | capped | real ms | nufft ms | modes ms | comm ms | transfer ms | step ms | ns/ion | first ms | budget GB | est GB | plans GB (est) | solver GB | GPU0 MiB | err pot | err force |")
print("| --- | ---: | ---: | ---: | --- | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
for r in rows:
    d = r["res"]
    if d is None:
        print(f"| {r['label']} | (failed or timed out: see ewald_bench.log) |"); continue
    m = "x".join(str(v) for v in d["modes"])
    e = lambda k: f"{d[k]:.1e}" if k in d else "-"
    g = lambda k: f"{d[k]:.1f}" if k in d else "-"
    yn = lambda k: ("yes" if d.get(k) else "no") if k in d else "-"
    ups = d.get("upsampfac_used", ["-"])[-1]
    plans = (f"{d['mem_plan1_gb'] + d['mem_plan2_gb']:.1f} ({d['mem_plan1_est_gb'] + d['mem_plan2_est_gb']:.1f})"
             if "mem_plan1_gb" in d else "-")
    print(f"| {r['label']} | {d['n']:.0e} | {d['ranks']} | {d['rcut']:.2f} | {m} | {ups} | {d.get('type2_batch', '-')} | "
          f"{yn('phase_buffers')} | {yn('memory_capped')} | "
          f"{d['real_ms']:.1f} | {d['nufft_ms']:.1f} | {d['modes_ms']:.1f} | {d['comm_ms']:.1f} | "
          f"{d['transfer_ms']:.1f} | {d['total_ms']:.1f} | {d['ns_per_ion']:.1f} | {d['first_ms']:.0f} | "
          f"{g('budget_gb')} | {g('mem_est_gb')} | {plans} | {g('mem_solver_peak_gb')} | "
          f"{r['gpu0_peak_mib']} | {e('err_potential')} | {e('err_force')} |")
print("est GB: the model's peak per rank (mem_est in ewald_bench.jsonl has its parts); plans: both"
      " plans' measured memory_bytes (largest rank) and the model's share for them; solver: the"
      " solver's own device buffers at their peak; GPU0 MiB: nvidia-smi's peak for the whole GPU"
      " (both ranks when they share it, CUDA contexts and the pool's cache included).")
EOF
fi
