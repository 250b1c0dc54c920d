#!/usr/bin/env bash
# One call on the GPU machine (device tool, one H200, <= ~9 min) for issue 11's execute part:
# the CUDA engine's kernel variants (src/core/cuda/kernel_variant.hpp) against each other and
# against cuFINUFFT on the cases of compare.sh that were below 1.5x (plus a few to watch).
#   build     library, bench and every test (MPI and HDF5 off), -j16
#   test      ctest -L gpu: accuracy with the variant cases (widths 2..16, clustered) and the
#             whole grid again under NUFFTMP_CUDA_VARIANT=sweep, dealt, thread,tile
#   sanitize  compute-sanitizer memcheck and racecheck on small cases of the new kernels
#   ncu       one case per new kernel (and the kernel it would replace): achieved occupancy,
#             issue and pipe utilisation, shared-memory wavefronts and bank conflicts, DRAM
#   bench     every variant x case: nufftmp-bench --json --n_runs 10, --check on 30 sampled
#             outputs (the accuracy tests check the kernels; this catches a broken one at scale),
#             stage timings (NUFFTMP_CUDA_STAGES=1: GPU time of zero/pad, spread/interp, fft,
#             deconv; the stages wait for the stream at the end, adding ~10 us to exec_ms)
#   cuf       cuFINUFFT 2.6 on the same cases (.anchors/cuperftest, as compare.sh): its fastest
#             method of the last run per case (CUF_ALL=1: methods 1, 2 and, type 1, 3)
#   newtest   only the tests of the set_points refinement and the 64-bit fixed-point tile
#             (heuristics, behaviour, the accuracy variant cases 'vfixed') and compute-sanitizer
#             memcheck / racecheck on small fixed-point cases (~30-60 s; not part of "all")
# Steps run in that order, each checking the time left (LIMIT_S, default 540 s). Needs .anchors/
# carried (../shared/anchors/README.md) for cuf. The device gets no .git: pass the commit.
#   NUFFTMP_COMMIT=<sha> bash scripts/device_execute.sh [build] [test] [sanitize] [ncu] [bench]
#       [cuf]                                                           (default: all)
# RUNSET=refine replaces the bench runs by those of the method at set_points and the fixed-point
# tile (below: old defaults, new ones, cuFINUFFT on S21d-6/9/12, Q7, P7, Q8, P8, Q4, P4, P5):
#   NUFFTMP_COMMIT=<sha> RUNSET=refine bash scripts/device_execute.sh build newtest bench cuf
#                                                       (~3-4 min on one H200, .anchors carried)
# Logs under $OUT (8 files); the table (scripts/device_execute_table.py) is printed last.
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_session 540
export PATH=$PATH:/usr/local/cuda/bin  # ncu, compute-sanitizer
B="$BUILD/apps/nufftmp-bench"
T="$BUILD/tests/core/cuda/test_cuda_accuracy"
export NUFFTMP_AUTOTUNE_CACHE=$PWD/$BUILD/autotune.txt

# The cases: compare.sh's definitions (device_cases.sh).
# shellcheck source-path=SCRIPTDIR source=device_cases.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_cases.sh"
# cuFINUFFT's fastest method per case in the device run of 2026-12-01 (c189c19): the cuf step
# times that one (CUF_ALL=1: all of its methods).
declare -A CUF_BEST=([S21d-9]=3 [P2]=1 [P3]=3 [P4]=1 [P6]=1 [P7]=2 [P8]=1 [Q2]=2 [Q3]=3 [Q4]=2 [Q7]=2
  [Q8]=1 [S21d-6]=3 [S21d-12]=3 [S22f-3]=1 [S22f-6]=2 [S22d-6]=2 [S22d-12]=2 [S32f-6]=1
  [S32d-6]=1 [S32d-12]=2)
flags() { case_flags "$1"; }
cells() { case_cells "$1"; }
dist() { case_dist "$1"; }
# Runs: "case label method [ENV=VALUE...]"; label = method/variant[/bins], "auto" = no flags.
RUNS=(
  "P3 auto auto" "P3 output/sweep output NUFFTMP_CUDA_VARIANT=sweep"
  "P3 output/sweep/250x7 output NUFFTMP_CUDA_VARIANT=sweep NUFFTMP_CUDA_BINSIZE=250,7 NUFFTMP_CUDA_MAXSUB=2048"
  "P3 output/sweep/250x28 output NUFFTMP_CUDA_VARIANT=sweep NUFFTMP_CUDA_BINSIZE=250,28 NUFFTMP_CUDA_MAXSUB=8192"
  "Q3 auto auto" "Q3 output/sweep output NUFFTMP_CUDA_VARIANT=sweep"
  "S21d-6 auto auto" "S21d-6 output/sweep output NUFFTMP_CUDA_VARIANT=sweep"
  "S21d-6 output/rows output NUFFTMP_CUDA_VARIANT=rows"
  "S21d-9 auto auto" "S21d-9 output/tile output NUFFTMP_CUDA_VARIANT=tile"
  "S21d-9 output/rows output NUFFTMP_CUDA_VARIANT=rows"
  "S21d-12 auto auto" "S21d-12 output/sweep output NUFFTMP_CUDA_VARIANT=sweep"
  "S21d-12 output/rows output NUFFTMP_CUDA_VARIANT=rows"
  "S21d-12 output/sweep/242x7 output NUFFTMP_CUDA_VARIANT=sweep NUFFTMP_CUDA_BINSIZE=242,7 NUFFTMP_CUDA_MAXSUB=2048"
  "S21d-12 output/sweep/242x28 output NUFFTMP_CUDA_VARIANT=sweep NUFFTMP_CUDA_BINSIZE=242,28 NUFFTMP_CUDA_MAXSUB=8192"
  "P7 auto auto" "P7 output/sweep output NUFFTMP_CUDA_VARIANT=sweep"
  "Q7 auto auto" "Q7 output/sweep output NUFFTMP_CUDA_VARIANT=sweep" "Q7 output/tile output"
  "P4 auto auto" "P4 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt" "P4 sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep"
  "P4 sm/sweep/250x6 sm NUFFTMP_CUDA_VARIANT=sweep NUFFTMP_CUDA_BINSIZE=250,6 NUFFTMP_CUDA_MAXSUB=2048"
  "Q4 auto auto" "Q4 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt" "Q4 sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep"
  "Q4 gm gm"
  "S22f-3 auto auto" "S22f-3 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt" "S22f-3 sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep"
  "S22f-6 auto auto" "S22f-6 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt" "S22f-6 sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep"
  "S22d-6 auto auto" "S22d-6 sm/group sm NUFFTMP_CUDA_VARIANT=group" "S22d-6 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt"
  "S22d-6 sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep" "S22d-6 sm/thread sm NUFFTMP_CUDA_VARIANT=thread"
  "S22d-12 auto auto" "S22d-12 sm/group sm NUFFTMP_CUDA_VARIANT=group" "S22d-12 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt"
  "S22d-12 sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep"
  "P2 auto auto" "P2 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt"
  "Q2 auto auto" "Q2 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt"
  "S32f-6 auto auto" "S32f-6 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt"
  "S32d-6 auto auto" "S32d-6 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt" "S32d-6 sm/thread sm NUFFTMP_CUDA_VARIANT=thread"
  "S32d-12 auto auto" "S32d-12 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt" "S32d-12 sm/thread sm NUFFTMP_CUDA_VARIANT=thread"
  "S32d-12 sm/dealt/6^3 sm NUFFTMP_CUDA_VARIANT=dealt NUFFTMP_CUDA_BINSIZE=6,6,6"
  "P2 sm/dealt/8x8x16 sm NUFFTMP_CUDA_VARIANT=dealt NUFFTMP_CUDA_BINSIZE=8,8,16 NUFFTMP_CUDA_MAXSUB=2048"
  "P6 auto auto" "P6 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt"
  "P8 auto auto" "P8 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt" "P8 sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep"
  "Q8 auto auto" "Q8 sm/thread sm NUFFTMP_CUDA_VARIANT=thread" "Q8 sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt" "Q8 sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep"
)
# The method refined at set_points (heuristics.hpp: NUFFTMP_CUDA_REFINE=0 is the old plan-time
# choice) and the 64-bit fixed-point tile for double type 1 (NUFFTMP_CUDA_VARIANT=fixed; tile
# and rows the old defaults). "auto" is the new default everywhere.
if [ "${RUNSET:-}" = refine ]; then
  RUNS=(
    "S21d-6 auto auto" "S21d-6 output/fixed output NUFFTMP_CUDA_VARIANT=fixed"
    "S21d-6 output/rows output NUFFTMP_CUDA_VARIANT=rows"
    "S21d-9 auto auto" "S21d-9 output/tile output NUFFTMP_CUDA_VARIANT=tile"
    "S21d-9 output/fixed output NUFFTMP_CUDA_VARIANT=fixed"
    "S21d-12 auto auto" "S21d-12 output/tile output NUFFTMP_CUDA_VARIANT=tile"
    "S21d-12 output/fixed output NUFFTMP_CUDA_VARIANT=fixed"
    "Q7 auto auto" "Q7 refine-off auto NUFFTMP_CUDA_REFINE=0" "Q7 output/tile output"
    "P7 auto auto" "P7 refine-off auto NUFFTMP_CUDA_REFINE=0" "P7 output/tile output"
    "Q8 auto auto" "Q8 sm/thread sm NUFFTMP_CUDA_VARIANT=thread" "Q8 gm-sort gm-sort"
    "P8 auto auto"
    "Q4 auto auto" "Q4 sm/thread sm NUFFTMP_CUDA_VARIANT=thread" "Q4 gm-sort gm-sort"
    "P4 auto auto"
    "P5 auto auto" "P5 output/fixed output NUFFTMP_CUDA_VARIANT=fixed"
  )
  CUF_BEST[P5]="2 3"
fi
# CASES="P2 S21d-9 ..." keeps only the runs of those cases (bench and cuf).
if [ -n "${CASES:-}" ]; then
  kept=()
  for r in "${RUNS[@]}"; do [[ " $CASES " == *" ${r%% *} "* ]] && kept+=("$r"); done
  RUNS=("${kept[@]}")
fi

want build && device_build

if want test; then
  lim=$(( $(left) - 360 )); [ "$lim" -gt 120 ] && lim=120; [ "$lim" -lt 60 ] && lim=60
  device_gpu_tests "$lim"
  grep -E "^\[  FAILED  \]" "$OUT/ctest.log" | sort -u | head -20 | tee -a "$summary"
fi

# Not part of "all" (the test step runs these among every GPU test): name it.
if [[ " ${steps[*]} " == *" newtest "* ]]; then
  t0=$SECONDS
  { (cd "$BUILD" && timeout 60 ctest -R 'test_cuda_heuristics|test_cuda_behaviour' \
       --output-on-failure)
    echo "ctest heuristics+behaviour rc=$?"
    timeout 90 "$T" --gtest_filter='*vfixed*'
    echo "accuracy vfixed rc=$?"
    timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 "$T" \
      --gtest_filter='*2d_type1*tol9_*vfixed*:*3d_type1*tol6_clustered*vfixed*'
    echo "memcheck fixed rc=$?"
    timeout 40 compute-sanitizer --tool racecheck --error-exitcode 9 "$T" \
      --gtest_filter='*2d_type1*tol12_clustered*vfixed_bown*'
    echo "racecheck fixed rc=$?"; } > "$OUT/newtest.log" 2>&1
  grep -E "rc=|tests passed|tests failed|ERROR SUMMARY|RACECHECK SUMMARY|FAILED  \]|PASSED" \
    "$OUT/newtest.log" | sort -u | head -30 | tee -a "$summary"
  step "newtest in $((SECONDS - t0)) s"
fi

if want sanitize; then
  t0=$SECONDS
  # Case names put the tolerance (and the distribution) before the variant (case_name in
  # test_cuda_accuracy.cpp): the filters follow that order, or they match nothing.
  { timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 "$T" \
      --gtest_filter='*tol4*vsweep_b64x8*:*tol14*vsweep_b64x0*:*vsweep_bown*:*tol9*vdealt*'
    echo "memcheck variants rc=$?"
    timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 "$T" \
      --gtest_filter='*2d_type*tol4*vsweep_b64x8*:*1d_type2*tol6*clustered*vsweep_b64x0*:*tol3*vdealt*'
    echo "racecheck variants rc=$?"; } > "$OUT/sanitizer.log" 2>&1
  grep -E "rc=|ERROR SUMMARY|RACECHECK SUMMARY|FAILED  \]" "$OUT/sanitizer.log" | tee -a "$summary"
  step "sanitizers in $((SECONDS - t0)) s"
fi

# run_bench CASE LABEL METHOD [ENV=VALUE...]: one bench run, its JSON, what ran (the engine's
# debug line: method, variant, bins, maxsub) and the median GPU time of each execute stage into
# bench.jsonl.
run_bench() {
  local case=$1 label=$2 method=$3; shift 3
  local err json
  err=$(mktemp)
  # shellcheck disable=SC2046,SC2086  # the case's flags are words
  json=$(env NUFFTMP_CUDA_STAGES=1 "$@" timeout 60 "$B" --backend cuda --method "$method" \
           --dist "$(dist "$case")" --n_runs 10 --plan_runs 1 --check --check_samples 30 \
           --json --debug 1 \
           $(flags "$case") \
           2>"$err" | grep '^{' | tail -1)
  python3 - "$case" "$label" "$*" "${json:-null}" "$err" >> "$OUT/bench.jsonl" <<'PY'
import json, re, statistics, sys
case, label, env, res, errf = sys.argv[1:6]
stages, choice = {}, ""
for line in open(errf, errors="replace"):
    # What ran: method (variant), bins, maxsub - the plan's line, then set_points' refinement
    # (the last one: the bench's timed runs follow it).
    if ("cuda engine on" in line and not choice) or "nufftmp: set_points:" in line:
        m = re.search(r"method (\S+)( \((\w+)\))?, bins (\S+), maxsub (\d+)", line)
        if m:
            choice = "%s(%s) %s/%s" % (m.group(1), m.group(3) or "-", m.group(4), m.group(5))
    if not line.startswith("nufftmp stages execute"):
        continue
    for name, gpu in re.findall(r" (\w+) [-0-9.]+/([-0-9.]+)", line.split(":", 1)[1]):
        stages.setdefault(name, []).append(float(gpu))
med = {k: statistics.median(v[1:] if len(v) > 2 else v) for k, v in stages.items()}
print(json.dumps({"case": case, "label": label, "env": env, "res": json.loads(res), "stages": med,
                  "choice": choice}))
PY
  rm -f "$err"
}

if want ncu; then
  t0=$SECONDS
  want_metrics="gpu__time_duration.sum sm__warps_active.avg.pct_of_peak_sustained_active
    smsp__issue_active.avg.pct_of_peak_sustained_active sm__throughput.avg.pct_of_peak_sustained_elapsed
    l1tex__throughput.avg.pct_of_peak_sustained_active dram__throughput.avg.pct_of_peak_sustained_elapsed
    sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
    sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active
    sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active
    sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active
    l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
    smsp__inst_executed.sum launch__registers_per_thread launch__occupancy_limit_shared_mem"
  known=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
  metrics=""
  for m in $want_metrics; do
    base=${m%%.*}
    if echo "$known" | grep -qx "$base"; then metrics="$metrics,$m"; else echo "ncu: no $base" >> "$OUT/ncu.txt"; fi
  done
  metrics=${metrics#,}
  [ -z "$metrics" ] && echo "ncu: no metric available (is ncu on PATH?)" >> "$OUT/ncu.txt"
  # ncu_case CASE KERNEL-REGEX METHOD [ENV=VALUE...]
  ncu_case() {
    local case=$1 kern=$2 method=$3; shift 3
    [ -z "$metrics" ] && return
    [ "$(left)" -lt 300 ] && { echo "ncu: out of time before $case $kern" >> "$OUT/ncu.txt"; return; }
    echo "== $case $kern $* ==" >> "$OUT/ncu.txt"
    # shellcheck disable=SC2046
    env "$@" timeout 60 ncu --clock-control none --cache-control none -k "regex:$kern" -c 1 \
      --metrics "$metrics" --csv --page raw "$B" --backend cuda --method "$method" \
      --dist "$(dist "$case")" --n_runs 1 --plan_runs 1 --json $(flags "$case") \
      2>/dev/null | grep -E '^"' | cut -c1-4000 >> "$OUT/ncu.txt"
  }
  ncu_case P3 spread_output_kernel output
  ncu_case P3 spread_sweep_kernel output NUFFTMP_CUDA_VARIANT=sweep
  ncu_case S21d-12 spread_sweep_kernel output NUFFTMP_CUDA_VARIANT=sweep
  ncu_case P4 interp_sm_thread_kernel sm
  ncu_case P4 interp_sweep_kernel sm NUFFTMP_CUDA_VARIANT=sweep
  ncu_case P4 interp_dealt_kernel sm NUFFTMP_CUDA_VARIANT=dealt
  ncu_case P2 interp_dealt_kernel sm NUFFTMP_CUDA_VARIANT=dealt
  ncu_case S32d-12 interp_dealt_kernel sm NUFFTMP_CUDA_VARIANT=dealt
  step "ncu in $((SECONDS - t0)) s"
fi

if want bench; then
  t0=$SECONDS
  : > "$OUT/bench.jsonl"
  for r in "${RUNS[@]}"; do
    [ "$(left)" -lt 110 ] && { step "bench: out of time before $r"; break; }
    # shellcheck disable=SC2086
    run_bench $r
  done
  step "bench in $((SECONDS - t0)) s ($(wc -l < "$OUT/bench.jsonl") runs)"
fi

if want cuf; then
  t0=$SECONDS
  if [ -x .anchors/cuperftest ]; then
    export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
    echo "case,method,exec_min_ms" > "$OUT/cuf.csv"
    for cs in $(printf '%s\n' "${RUNS[@]}" | awk '{print $1}' | uniq); do
      [ "$(left)" -lt 8 ] && { step "cuf: out of time before $cs"; break; }
      meths=${CUF_BEST[$cs]:-1 2}
      [ "${CUF_ALL:-0}" = 1 ] && { meths="1 2"; [[ "$(flags "$cs")" == *"--type 1"* ]] && meths="1 2 3"; }
      for m in $meths; do
        # shellcheck disable=SC2046
        o=$(CLUSTER_CELLS=$(cells "$cs") timeout 60 .anchors/cuperftest $(flags "$cs") \
              --method "$m" --n_runs 10 2>/dev/null)
        e=$(echo "$o" | awk -F, '/^execute,/{print $5}')
        echo "$cs,$m,${e:-}" >> "$OUT/cuf.csv"
      done
    done
  else
    step "cuf: .anchors/cuperftest missing (carry .anchors)"
  fi
  step "cuf in $((SECONDS - t0)) s"
fi

step "total $((SECONDS - T_START)) s"
python3 scripts/device_execute_table.py "$OUT" | tee "$OUT/table.txt"
