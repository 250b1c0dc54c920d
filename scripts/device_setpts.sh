#!/usr/bin/env bash
# One call on the GPU machine (device tool, one H200, <= ~9 min) for issue 10's GPU part: what
# set_points and plan cost, stage by stage, against cuFINUFFT.
#   build     CUDA engine + bench + tests (MPI and HDF5 off: the single-GPU library), -j16
#   test      ctest -L gpu (CUDA accuracy, behaviour, autotune, set_points)
#   sanitize  compute-sanitizer memcheck + racecheck on the new set_points path (small cases)
#   stages    NUFFTMP_CUDA_STAGES=1 bench runs of the default sort: P1-P8, clustered Q1/Q7,
#             sweep S31f-6 and S31d-12 (default sort: bucket scatter, auto counting)
#   ab        the sort's scatters (sort_strategy.hpp), stage-timed like the above, on P1, P2, P3,
#             P4, P7, S31f-6, S32f-6, S31d-12, Q1: bucket (the default) against packed (the
#             default before it), both with block counting (NUFFTMP_CUDA_SCATTER,
#             NUFFTMP_CUDA_COUNT), execute timed too; then 64-bit indices (P1) and the pool
#             giving memory back at every synchronisation (NUFFTMP_CUDA_POOL_RETAIN=0; P1).
#             NUFFTMP_AB_VARIANTS="bucket-block packed-block ..." changes the set: words
#             SCATTER-COUNT[-P2[-P3]], P2/P3 the bucket scatter's pass kernels
#             (NUFFTMP_CUDA_BUCKET_P2 = chunk|tile|tile2k, NUFFTMP_CUDA_BUCKET_P3 =
#             piece2k|piece4k), e.g. bucket-block-tile-piece4k; NUFFTMP_AB_FLAGS adds bench
#             flags to every a/b run (default: --check --check_samples 16, so the err column
#             checks each variant against the direct sum); about 2-3 s per run
#   records   the points' layout (NUFFTMP_CUDA_POINTS, sort_strategy.hpp PointLayout): memcheck
#             and racecheck of the records layout's set_points tests and of three bench runs,
#             then set_points + execute of P1-P7, S31f-6, S32f-6, S31d-12, Q1 (NUFFTMP_AB_CASES
#             does not apply; NUFFTMP_RECORDS_CASES does) in both layouts, stage-timed and
#             checked (--check: err column), rows CASE/split and CASE/records in the a/b table;
#             about 60-100 s of sanitizers and 3 s per run; only when named (not in "all")
#   jit       cuFFT's first plan of a shape with a cold and a warm driver JIT cache (P1 with a
#             fresh CUDA_CACHE_PATH twice, then CUDA_CACHE_DISABLE=1): what the cache keeps
#   compare   bash .anchors/compare.sh <bench> .anchors/cuperftest public, cluster, sweep
# Steps run in that order; each checks the time left (LIMIT_S, default 540 s from the start) and
# is cut short or skipped rather than overrun (a/b keeps 265 s for jit and compare only when
# those were asked for); NUFFTMP_TEST_REGEX limits the test step (ctest -R). Typically build
# ~55 s, tests ~30, sanitizers ~40-60, stages ~10, a/b ~45 (the default two variants), jit ~5,
# then compare the rest (~240 s: public, cluster, sweep). NUFFTMP_AB_CASES changes a/b's
# cases (default P1 P2 P3 P4 P7 S31f-6 S32f-6 S31d-12 Q1).
# compare needs .anchors/ (carried: see ../shared/anchors/README.md). The device gets no .git:
# pass the commit.
#   NUFFTMP_COMMIT=<sha> bash scripts/device_setpts.sh [build] [test] [sanitize] [stages] [ab]
#       [records] [jit] [compare]                        (default: all, which leaves out records)
# Logs under $OUT (7 files, 8 with records); the summary table (scripts/device_setpts_table.py)
# is printed last.
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_session 540
B="$BUILD/apps/nufftmp-bench"
export NUFFTMP_AUTOTUNE_CACHE=$PWD/$BUILD/autotune.txt

want build && device_build

# sanitized TOOL SECONDS LABEL PROGRAM ARGS...: PROGRAM under compute-sanitizer TOOL (an error
# exits 9) within SECONDS, then the line "TOOL LABEL rc=N".
sanitized() {
  local tool=$1 lim=$2 label=$3
  shift 3
  timeout "$lim" compute-sanitizer --tool "$tool" --error-exitcode 9 "$@"
  echo "$tool $label rc=$?"
}

if want test; then
  # What the later steps keep: ~380 s for all of them; the records step alone ~200 s, which
  # leaves the tests up to 300 s.
  rest=380 cap=120
  want sanitize || want stages || want ab || want jit || want compare || { rest=200; cap=300; }
  lim=$(( $(left) - rest )); [ "$lim" -gt $cap ] && lim=$cap; [ "$lim" -lt 60 ] && lim=60
  device_gpu_tests "$lim" "${NUFFTMP_TEST_REGEX:-}"
fi

if want sanitize; then
  t0=$SECONDS
  T="$BUILD/tests/core/cuda/test_cuda_set_points"
  # The sort's kernels under memcheck: block counting with the bucket scatter (32- and 64-bit,
  # also with several bins per bucket and split buckets, and every pass-2/pass-3 variant:
  # bucket_block* holds them) and the packed one, global counting
  # with the packed scatter, and the no-allocation promise of the default (gather and direct
  # passed memcheck at c189c19 and are unchanged).
  { sanitized memcheck 180 set_points "$T" \
      --gtest_filter='Sort/CudaSetPoints.BadPointThenGoodPoints/bucket_block*:Sort/CudaSetPoints.BadPointThenGoodPoints/packed_block*:Sort/CudaSetPoints.ClusteredAfterUniform/packed_global:Sort/CudaSetPointsMemory.SecondCallAllocatesNothing/default:Sort/CudaSetPointsMemory.SecondCallAllocatesNothing/bucket_block_tile_split3_tiles16'
    sanitized memcheck 12 "bench 2D type 1" "$B" --backend cuda \
      --type 1 --N1 300 --N2 200 --M 2e5 --n_runs 2 --plan_runs 2 --check --json
    sanitized memcheck 12 "bench 1D type 2" "$B" --backend cuda \
      --prec d --type 2 --N1 1000 --M 5e4 --n_runs 2 --plan_runs 2 --dist cluster --check --json
    # The shared histogram of the block counting and the bucket scatter's shared-memory sorts
    # (atomics, scans, barriers) under racecheck.
    sanitized racecheck 120 set_points "$T" \
      --gtest_filter='Sort/CudaSetPoints.ClusteredAfterUniform/packed_block:Sort/CudaSetPoints.ClusteredAfterUniform/default:Sort/CudaSetPoints.ClusteredAfterUniform/bucket_block_split7:Sort/CudaSetPoints.ClusteredAfterUniform/bucket_block_tile_split3_tiles16:Sort/CudaSetPoints.ClusteredAfterUniform/bucket_block_tile2k_piece4k:Sort/CudaSetPoints.ClusteredAfterUniform/bucket_block_piece4k_split7'
  } > "$OUT/sanitizer.log" 2>&1
  grep -E "rc=|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer.log" | tee -a "$summary"
  step "sanitizers in $((SECONDS - t0)) s"
fi

# The cases: compare.sh's definitions (device_cases.sh).
# shellcheck source-path=SCRIPTDIR source=device_cases.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_cases.sh"
# run_stage LABEL CASE DIST [ENV=VALUE...]: one bench run with stage timings into stages.txt
# ($STAGE_FLAGS: more bench flags).
run_stage() {
  local label=$1 case=$2 dist=$3; shift 3
  local out
  # shellcheck disable=SC2046,SC2086  # the case's flags and STAGE_FLAGS are words
  out=$(env NUFFTMP_CUDA_STAGES=1 "$@" timeout 40 "$B" --backend cuda --dist "$dist" \
          --n_runs 3 --plan_runs 3 --json $(case_flags "$case") ${STAGE_FLAGS:-} 2>&1)
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
  for c in S31f-6 S31d-12; do [ "$(left)" -lt 250 ] && break; run_stage "$c" "$c" uniform; done
  step "stages in $((SECONDS - t0)) s"
fi

if want ab; then
  t0=$SECONDS
  # Label CASE/SCATTER-COUNT (the default row of each case is in "stages"); Q1 = P1 clustered.
  ab=()
  for c in ${NUFFTMP_AB_CASES:-P1 P2 P3 P4 P7 S31f-6 S32f-6 S31d-12 Q1}; do
    case_=$c; dist=uniform; [[ $c == Q* ]] && { case_=P${c#Q}; dist=cluster; }
    for v in ${NUFFTMP_AB_VARIANTS:-bucket-block packed-block}; do
      IFS=- read -r sc co p2 p3 <<< "$v"
      e="NUFFTMP_CUDA_SCATTER=$sc NUFFTMP_CUDA_COUNT=$co"
      [ -n "$p2" ] && e+=" NUFFTMP_CUDA_BUCKET_P2=$p2"
      [ -n "$p3" ] && e+=" NUFFTMP_CUDA_BUCKET_P3=$p3"
      ab+=("$c/$v $case_ $dist $e")
    done
  done
  reserve=15; want jit || want compare && reserve=265
  export STAGE_FLAGS=${NUFFTMP_AB_FLAGS---check --check_samples 16}
  ab+=("P1/index64 P1 uniform NUFFTMP_CUDA_INDEX64=1"
       "P1/retain0 P1 uniform NUFFTMP_CUDA_POOL_RETAIN=0")
  for v in "${ab[@]}"; do
    [ "$(left)" -lt "$reserve" ] && { step "a/b: out of time before ${v%% *}"; break; }
    # shellcheck disable=SC2086
    run_stage $v
  done
  unset STAGE_FLAGS
  step "a/b in $((SECONDS - t0)) s"
fi

# records runs only when named: "all" keeps its budget for the steps it always had.
if printf '%s\n' "${steps[@]}" | grep -qx records; then
  t0=$SECONDS
  T="$BUILD/tests/core/cuda/test_cuda_set_points"
  # The records layout's sort (packed scatter writing final records, the bucket's pass 3 writing
  # records in its variants) and every execute kernel reading records, under memcheck; the
  # pass-3 shared staging of records under racecheck.
  { sanitized memcheck 150 "set_points records" "$T" \
      --gtest_filter='Sort/CudaSetPoints.BadPointThenGoodPoints/default_records:Sort/CudaSetPoints.BadPointThenGoodPoints/packed_global_records:Sort/CudaSetPoints.BadPointThenGoodPoints/bucket_block_split3_records:Sort/CudaSetPoints.GrowAndShrink/bucket_block_tile_piece2k_split7_tiles16_records:Sort/CudaSetPoints.ClusteredAfterUniform/bucket_block_chunk_piece4k_split7_records:Sort/CudaSetPointsMemory.SecondCallAllocatesNothing/default_records'
    ( export NUFFTMP_CUDA_POINTS=records  # the bench's plans: 2D type 1, 3D type 2, 1D clustered
      for args in "--type 1 --N1 300 --N2 200 --M 2e5" \
                  "--prec d --type 2 --N1 40 --N2 40 --N3 40 --M 1e5" \
                  "--type 2 --N1 1000 --M 5e4 --dist cluster"; do
        # shellcheck disable=SC2086  # the case's flags are words
        sanitized memcheck 20 "bench records $args" "$B" --backend cuda $args --n_runs 2 \
          --plan_runs 2 --check --json
      done )
    sanitized racecheck 60 "set_points records" "$T" \
      --gtest_filter='Sort/CudaSetPoints.ClusteredAfterUniform/default_records:Sort/CudaSetPoints.ClusteredAfterUniform/bucket_block_split3_records'
  } > "$OUT/sanitizer_records.log" 2>&1
  grep -E "rc=|ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/sanitizer_records.log" | tee -a "$summary"
  step "records sanitizers in $((SECONDS - t0)) s"
  t0=$SECONDS
  export STAGE_FLAGS=${NUFFTMP_AB_FLAGS---check --check_samples 16}
  reserve=15; want jit || want compare && reserve=265
  for c in ${NUFFTMP_RECORDS_CASES:-P1 P2 P3 P4 P5 P6 P7 S31f-6 S32f-6 S31d-12 Q1}; do
    case_=$c; dist=uniform; [[ $c == Q* ]] && { case_=P${c#Q}; dist=cluster; }
    for layout in split records; do
      [ "$(left)" -lt "$reserve" ] && { step "records: out of time before $c/$layout"; break 2; }
      run_stage "$c/$layout" "$case_" "$dist" NUFFTMP_CUDA_POINTS=$layout
    done
  done
  unset STAGE_FLAGS
  step "records a/b in $((SECONDS - t0)) s"
fi

if want jit; then
  # cuFFT's first plan of a new shape (P1: 256^3 C2C) with a cold driver JIT cache, the same
  # cache warm in a second process, and the cache off: plan_ms of each (bench JSON).
  t0=$SECONDS
  jc=$(mktemp -d)
  for v in "cold CUDA_CACHE_PATH=$jc" "warm CUDA_CACHE_PATH=$jc" "disabled CUDA_CACHE_DISABLE=1"; do
    [ "$(left)" -lt 250 ] && break
    # shellcheck disable=SC2046,SC2086
    ms=$(env ${v#* } timeout 30 "$B" --backend cuda --n_runs 1 --plan_runs 1 --json $(case_flags P1) \
           2>/dev/null | grep '^{' | tail -1 | python3 -c \
           'import json,sys; d=json.load(sys.stdin); print(d["plan_ms"], d["plan_steady_ms"])')
    step "jit ${v%% *}: P1 plan_ms plan_steady_ms = ${ms:-failed}"
  done
  rm -rf "$jc"
  step "jit in $((SECONDS - t0)) s"
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
