#!/usr/bin/env bash
# One call on the GPU machine (device tool, one H200, <= ~9 min) for issue 10's GPU part: what
# set_points and plan cost, stage by stage, against cuFINUFFT.
#   build     CUDA engine + bench + tests (MPI and HDF5 off: the single-GPU library), -j16
#   test      ctest -L gpu (CUDA accuracy, behaviour, autotune, set_points)
#   sanitize  compute-sanitizer memcheck + racecheck on the new set_points path (small cases)
#   stages    NUFFTMP_CUDA_STAGES=1 bench runs: P1-P8, clustered Q1/Q7, sweep S31f-6
#   ab        the selectable variants, stage-timed like the above: the direct scatter (P1, P3,
#             P7, Q1), 64-bit indices (P1), the pool giving memory back at every synchronisation
#             (NUFFTMP_CUDA_POOL_RETAIN=0: the old behaviour; P1, P7)
#   compare   bash .anchors/compare.sh <bench> .anchors/cuperftest public, cluster, sweep
# Steps run in that order; each checks the time left (LIMIT_S, default 560 s from the start) and
# is cut short or skipped rather than overrun: typically build ~55 s, tests ~80, sanitizers ~70,
# stages + a/b ~60, then compare gets the rest (public and cluster complete, sweep as time
# allows). compare needs .anchors/ (carried: see ../shared/anchors/README.md). The device gets
# no .git: pass the commit.
#   NUFFTMP_COMMIT=<sha> bash scripts/device_setpts.sh [build] [test] [sanitize] [stages] [ab]
#       [compare]                                                    (default: all)
# Logs under $OUT (7 files); the summary table (scripts/device_setpts_table.py) is printed last.
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
LIMIT_S=${LIMIT_S:-560}
T_START=$SECONDS
left() { echo $((LIMIT_S - (SECONDS - T_START))); }
summary=$OUT/summary.txt
{ nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
    --format=csv,noheader 2>&1
  echo "commit ${NUFFTMP_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}" \
       "$(date -u +%FT%TZ)"; } > "$summary"
step() { echo "$*" | tee -a "$summary"; }
B="$BUILD/apps/nufftmp-bench"
export NUFFTMP_AUTOTUNE_CACHE=$PWD/$BUILD/autotune.txt

if want build; then
  t0=$SECONDS
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=OFF -DNUFFTMP_HDF5=OFF \
    && cmake --build "$BUILD" -j "${JOBS:-16}"; } > "$OUT/build.log" 2>&1
  step "build rc=$? in $((SECONDS - t0)) s"
  grep -E "error|FAILED" "$OUT/build.log" | head -10
fi

if want test; then
  t0=$SECONDS
  lim=$(( $(left) - 330 )); [ "$lim" -gt 150 ] && lim=150; [ "$lim" -lt 60 ] && lim=60
  (cd "$BUILD" && timeout "$lim" ctest -L gpu --output-on-failure -j 2) > "$OUT/ctest.log" 2>&1
  step "gpu tests rc=$? in $((SECONDS - t0)) s (limit $lim s)"
  grep -E "Test +#|tests passed|tests failed" "$OUT/ctest.log" | tee -a "$summary"
fi

if want sanitize; then
  t0=$SECONDS
  T="$BUILD/tests/core/cuda/test_cuda_set_points"
  { timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$T" \
      --gtest_filter='CudaSetPointsMemory.*:Sort/CudaSetPoints.BadPointThenGoodPoints/index64_direct'
    echo "memcheck set_points rc=$?"
    timeout 12 compute-sanitizer --tool memcheck --error-exitcode 9 "$B" --backend cuda \
      --type 1 --N1 300 --N2 200 --M 2e5 --n_runs 2 --plan_runs 2 --check --json
    echo "memcheck bench 2D type 1 rc=$?"
    timeout 12 compute-sanitizer --tool memcheck --error-exitcode 9 "$B" --backend cuda \
      --prec d --type 2 --N1 1000 --M 5e4 --n_runs 2 --plan_runs 2 --dist cluster --check --json
    echo "memcheck bench 1D type 2 rc=$?"
    timeout 30 compute-sanitizer --tool racecheck --error-exitcode 9 "$T" \
      --gtest_filter='Sort/CudaSetPoints.ClusteredAfterUniform/default'
    echo "racecheck set_points rc=$?"; } > "$OUT/sanitizer.log" 2>&1
  grep -E "rc=|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.log" | tee -a "$summary"
  step "sanitizers in $((SECONDS - t0)) s"
fi

# The cases (compare.sh's definitions).
declare -A C=(
  [P1]="--prec f --type 1 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5"
  [P2]="--prec f --type 2 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5"
  [P3]="--prec f --type 1 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5"
  [P4]="--prec f --type 2 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5"
  [P5]="--prec d --type 1 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9"
  [P6]="--prec d --type 2 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9"
  [P7]="--prec f --type 1 --N1 10000000 --M 20000000 --tol 1e-5"
  [P8]="--prec f --type 2 --N1 10000000 --M 20000000 --tol 1e-5"
  [S31f-6]="--prec f --type 1 --N1 96 --N2 96 --N3 96 --M 7077888 --tol 1e-6"
)
# run_stage LABEL CASE DIST [ENV=VALUE...]: one bench run with stage timings into stages.txt.
run_stage() {
  local label=$1 case=$2 dist=$3; shift 3
  local out
  # shellcheck disable=SC2086  # the case's flags are words
  out=$(env NUFFTMP_CUDA_STAGES=1 "$@" timeout 40 "$B" --backend cuda --dist "$dist" \
          --n_runs 3 --plan_runs 3 --json ${C[$case]} 2>&1)
  { echo "#case $label"; echo "$out" | grep -E "^nufftmp stages|^nufftmp-bench"
    echo "#json $(echo "$out" | grep '^{' | tail -1)"; } >> "$OUT/stages.txt"
}
: > "$OUT/stages.txt"

if want stages; then
  t0=$SECONDS
  for c in P1 P2 P3 P4 P5 P6 P7 P8; do
    [ "$(left)" -lt 250 ] && { step "stages: out of time before $c"; break; }
    run_stage "$c" "$c" uniform
  done
  for c in P1 P7; do [ "$(left)" -lt 250 ] && break; run_stage "Q${c#P}" "$c" cluster; done
  [ "$(left)" -ge 250 ] && run_stage S31f-6 S31f-6 uniform
  step "stages in $((SECONDS - t0)) s"
fi

if want ab; then
  t0=$SECONDS
  for v in "P1/direct P1 uniform NUFFTMP_CUDA_SCATTER=direct" \
           "P3/direct P3 uniform NUFFTMP_CUDA_SCATTER=direct" \
           "P7/direct P7 uniform NUFFTMP_CUDA_SCATTER=direct" \
           "Q1/direct P1 cluster NUFFTMP_CUDA_SCATTER=direct" \
           "P1/index64 P1 uniform NUFFTMP_CUDA_INDEX64=1" \
           "P1/retain0 P1 uniform NUFFTMP_CUDA_POOL_RETAIN=0" \
           "P7/retain0 P7 uniform NUFFTMP_CUDA_POOL_RETAIN=0"; do
    [ "$(left)" -lt 235 ] && { step "a/b: out of time before ${v%% *}"; break; }
    # shellcheck disable=SC2086
    run_stage $v
  done
  step "a/b in $((SECONDS - t0)) s"
fi

if want compare; then
  if [ -x .anchors/cuperftest ] && [ -f .anchors/compare.sh ]; then
    : > "$OUT/compare.csv"
    for set in public cluster sweep; do
      lim=$(( $(left) - 10 ))
      [ "$lim" -lt 30 ] && { step "compare: no time left for $set"; continue; }
      t0=$SECONDS
      timeout "$lim" bash .anchors/compare.sh "$B" .anchors/cuperftest "$set" > "$OUT/compare_$set.tmp" 2>&1
      rc=$?
      if [ -s "$OUT/compare.csv" ]; then tail -n +2 "$OUT/compare_$set.tmp" >> "$OUT/compare.csv"
      else cat "$OUT/compare_$set.tmp" > "$OUT/compare.csv"; fi
      rm -f "$OUT/compare_$set.tmp"
      step "compare $set rc=$rc in $((SECONDS - t0)) s"
    done
  else
    step "compare: .anchors/cuperftest or .anchors/compare.sh missing (carry .anchors)"
  fi
fi

step "total $((SECONDS - T_START)) s"
python3 scripts/device_setpts_table.py "$OUT" | tee "$OUT/table.txt"
