#!/usr/bin/env bash
# On the GPU machine (device tool): build, GPU tests, compute-sanitizer on small cases, and the
# public benchmark suite (P1-P8 of ../shared/benchmarks.md, uniform and clustered, each method).
# Logs go to $OUT (default ./device-out); the summary table is printed last.
#   scripts/device_gpu.sh [all|build|test|sanitize|bench]...   (default: all)
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv \
  > "$OUT/gpu.txt" 2>&1; cat "$OUT/gpu.txt"
echo "commit $(git rev-parse --short HEAD 2>/dev/null) $(date -u +%FT%TZ)" | tee -a "$OUT/gpu.txt"

if want build; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=${NUFFTMP_MPI:-OFF} -DNUFFTMP_HDF5=${NUFFTMP_HDF5:-OFF} \
    && cmake --build "$BUILD" -j "$JOBS" --target nufftmp nufftmp-bench test_cuda_accuracy \
         test_cuda_behaviour test_plan_rules_cuda; } > "$OUT/build.log" 2>&1
  echo "build rc=$? in $(( $(date +%s) - start )) s"; grep -E "error|FAILED" "$OUT/build.log" | head -20
fi

if want test; then
  start=$(date +%s)
  (cd "$BUILD" && timeout 300 ctest -L gpu --output-on-failure) > "$OUT/ctest.log" 2>&1
  echo "gpu tests rc=$? in $(( $(date +%s) - start )) s"
  grep -E "tests passed|Failed|FAILED|\*\*\*" "$OUT/ctest.log" | head -30
fi

if want bench; then
  B="$BUILD/apps/nufftmp-bench"
  runs=${NRUNS:-10}
  : > "$OUT/bench.jsonl"
  bench() {  # case dist method args...
    local name=$1 dist=$2 method=$3; shift 3
    local line
    line=$(timeout ${RUN_LIMIT:-40} "$B" --backend cuda --method "$method" --dist "$dist" --n_runs "$runs" \
             --json "$@" 2>>"$OUT/bench.err" | tail -1)
    echo "{\"case\":\"$name\",\"req_method\":\"$method\",\"res\":${line:-null}}" >> "$OUT/bench.jsonl"
  }
  for dist in uniform cluster; do
    chk=""; [ "$dist" = uniform ] && chk="--check"
    ms="gm-sort sm output"; [ "$dist" = uniform ] && ms="gm gm-sort sm output"
    for m in $ms; do
      bench P1 $dist $m --prec f --type 1 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5 $chk
      bench P3 $dist $m --prec f --type 1 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5 $chk
      bench P5 $dist $m --prec d --type 1 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9 $chk
      bench P7 $dist $m --prec f --type 1 --N1 10000000 --M 20000000 --tol 1e-5 $chk
    done
    ms="gm-sort sm"; [ "$dist" = uniform ] && ms="gm gm-sort sm"
    for m in $ms; do
      bench P2 $dist $m --prec f --type 2 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5 $chk
      bench P4 $dist $m --prec f --type 2 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5 $chk
      bench P6 $dist $m --prec d --type 2 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9 $chk
      bench P8 $dist $m --prec f --type 2 --N1 10000000 --M 20000000 --tol 1e-5 $chk
    done
  done
  python3 scripts/device_gpu_table.py "$OUT/bench.jsonl" | tee "$OUT/bench_table.md"
fi

if want tune; then
  # Bin size x points-per-round sweep of the output-driven spreader (type 1), and bin size of
  # the SM interpolator (type 2), through the NUFFTMP_CUDA_* knobs of heuristics.cpp.
  B="$BUILD/apps/nufftmp-bench"
  : > "$OUT/tune.jsonl"
  tune() {  # label env... -- args...
    local label=$1; shift; local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done; shift
    local line
    line=$(env "${envs[@]}" timeout ${RUN_LIMIT:-40} "$B" --backend cuda --n_runs 5 --json "$@" 2>>"$OUT/bench.err" | tail -1)
    echo "{\"case\":\"$label\",\"req_method\":\"${envs[*]}\",\"res\":${line:-null}}" >> "$OUT/tune.jsonl"
  }
  P1="--prec f --type 1 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5 --method output"
  P3="--prec f --type 1 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5 --method output"
  P5="--prec d --type 1 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9 --method output"
  P7="--prec f --type 1 --N1 10000000 --M 20000000 --tol 1e-5 --method output"
  for b in 8,8,8 4,4,4; do for np in 32 64 128; do
    tune P1 NUFFTMP_CUDA_BINSIZE=$b NUFFTMP_CUDA_NP=$np -- $P1; done; done
  for b in 16,16 32,32; do for np in 128 256; do
    tune P3 NUFFTMP_CUDA_BINSIZE=$b NUFFTMP_CUDA_NP=$np -- $P3; done; done
  for np in 16 32 64; do tune P5 NUFFTMP_CUDA_BINSIZE=4,4,4 NUFFTMP_CUDA_NP=$np -- $P5; done
  for b in 4,4,4 8,8,8; do
    tune P6 NUFFTMP_CUDA_BINSIZE=$b -- --prec d --type 2 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9 --method sm; done
  for b in 512 2048 4096; do
    tune P8 NUFFTMP_CUDA_BINSIZE=$b -- --prec f --type 2 --N1 10000000 --M 20000000 --tol 1e-5 --method sm; done
  python3 scripts/device_gpu_table.py "$OUT/tune.jsonl" > "$OUT/tune_table.md"
  cut -c1-150 "$OUT/tune_table.md" | sort -t'|' -k2,2 -k7,7n | awk -F'|' '{print $2 "|" $4 "|" $7 "|" $9}' | head -60
fi

if want sanitize; then
  start=$(date +%s)
  T="$BUILD/tests/core/cuda/test_cuda_accuracy"
  { timeout 150 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$T" \
      --gtest_filter='*3d_type1_f_*uniform*:*2d_type2_d_*clustered*:*1d_type1_d_output*:*3d_type2_f_sm*'
    echo "memcheck rc=$?"
    timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 "$T" \
      --gtest_filter='*3d_type1_f_output_tol5_clustered*:*2d_type1_d_sm_tol12_uniform*:*3d_type2_d_sm_tol6*'
    echo "racecheck rc=$?"; } > "$OUT/sanitizer.log" 2>&1
  echo "sanitizers in $(( $(date +%s) - start )) s:"; grep -E "rc=|ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" "$OUT/sanitizer.log" | head
fi

