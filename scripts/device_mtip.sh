#!/usr/bin/env bash
# On the GPU machine (device tool), 1 GPU: the M-TIP generation on the device (issue 14).
# Steps (default: build test run demo, about 6-8 minutes on one H200):
#   build     configure + build into $BUILD (default build-gpu), log build.log
#   test      the M-TIP GPU tests (matching, merging, phasing, the whole loop on the GPU, each
#             against the host path and checking that the CUDA engine ran; fault injection on
#             the GPU engine) and dist's collectives on device memory
#   run       the size of the cuFINUFFT paper's M-TIP runs (2000 images of 128^2 per rank,
#             M = 81, 1e4 references, one match, 20 CG steps, one phasing cycle): simulate,
#             then reconstruct 2 generations on 1 rank (generation 2 matches, merges, phases);
#             MTIP_RUNS picks the runs: "continue" (--phase-continue: generation 2 phases once,
#             from generation 1's density, as the runs before this issue) and "default" (four
#             fresh starts and the continuation), both without issue 17's additions (half-set
#             merges, free pixels, the automatic preconditioner) so that they measure what issue
#             14 measured, and "realdata" (the default's phasing with issue 17's defaults: two
#             half merges, 5% free pixels, preconditioned CG); the per-stage table of
#             generation 2 is printed before/after-style against issue 14's figures
#   demo      scripts/mtip_demo.sh (2 ranks on the GPU, M = 41, 2000 images of 48^2,
#             10 generations) for each data seed of MTIP_SEEDS (default 11 12 13 14): density,
#             intensity and orientation error per seed
#   sanitize  compute-sanitizer memcheck on small cases of the GPU tests (not in the default:
#             it needs a few minutes of its own)
# $OUT (default ./device-out) gets gpu.txt, summary.txt (the tables, printed last) and
# mtip_logs.tar.gz (every log, the demos' PNGs).
#   scripts/device_mtip.sh [build|test|run|demo|sanitize]...
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
# The default steps (device_common.sh's "all" would add sanitize).
[ "${steps[*]}" = all ] && steps=(build test run demo)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# At most 8 files come back from $OUT: the logs go to $LOG and into one archive at the end.
LOG="$OUT/logs"
mkdir -p "$LOG"
gpu_header
summary=()

if want build; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      && cmake --build "$BUILD" -j "$JOBS" --target nufftmp-synth nufftmp-mtip \
           test_mtip_gpu_matching test_mtip_gpu_merging test_mtip_gpu_phasing \
           test_mtip_gpu_reconstruct test_dist_collectives; } > "$LOG/build.log" 2>&1
  rc=$?
  summary+=("build rc=$rc in $(( $(date +%s) - start )) s")
  grep -E "error|FAILED" "$LOG/build.log" | head -20
  [ $rc -eq 0 ] || { printf '%s\n' "${summary[@]}"; exit 1; }
fi

if want test; then
  start=$(date +%s)
  (cd "$BUILD" && timeout 420 ctest -R 'test_mtip_gpu_|test_dist_collectives' -V) \
    > "$LOG/ctest_mtip_gpu.log" 2>&1
  summary+=("mtip gpu tests rc=$? in $(( $(date +%s) - start )) s")
  grep -E "Test +#|tests passed|tests failed|best references equal|rel diff|correlation|Failure" \
    "$LOG/ctest_mtip_gpu.log" | sort -u | head -40
fi

if want sanitize; then
  T="$BUILD/tests/mtip"
  { timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$T/test_mtip_gpu_phasing" --gtest_filter='*EqualsHost*'
    echo "memcheck phasing rc=$?"
    timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$T/test_mtip_gpu_merging" --gtest_filter='*ToeplitzEqualsDirectSum:*DeviceOrientations*'
    echo "memcheck merging rc=$?"
    timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$T/test_mtip_gpu_matching" --gtest_filter='*SplitEqualsLocal:*EmptyAndClamped'
    echo "memcheck matching rc=$?"; } > "$LOG/sanitizer.log" 2>&1
  while read -r line; do summary+=("$line"); done < <(grep -E "rc=|ERROR SUMMARY" "$LOG/sanitizer.log")
fi

if want run; then
  DATA=${MTIP_DATA:-/tmp/mtip_issue14}
  mkdir -p "$DATA"
  start=$(date +%s)
  timeout 120 "$BUILD/apps/nufftmp-synth" --output "$DATA/data.h5" --M 81 --n-images 2000 \
    --nx 128 --ny 128 --pixel-size 0.5e-3 --atoms 200 --fluence 100 --seed 3 --overwrite \
    > "$LOG/synth.log" 2>&1
  summary+=("synth rc=$? in $(( $(date +%s) - start )) s")
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
  for r in ${MTIP_RUNS:-continue default realdata}; do
    t0=$(date +%s)
    extra=(--no-half-sets --free-fraction 0 --no-cg-precondition)
    [ "$r" = continue ] && extra+=(--phase-continue)
    [ "$r" = realdata ] && extra=()
    # MTIP_MPIRUN_ARGS, e.g. "--bind-to none": Open MPI binds one rank to one core, so its
    # OpenMP threads (the host scores' NUFFTs, FFTW) share that core.
    # shellcheck disable=SC2086
    timeout 240 mpirun -np 1 ${MTIP_MPIRUN_ARGS:-} "$BUILD/apps/nufftmp-mtip" --input "$DATA/data.h5" \
      --output "$DATA/$r.h5" --generations 2 --n-ref 10000 --phase-cycles 1 --q-ramp 1 \
      --match-iter 1 --cg-iter 20 --overwrite "${extra[@]}" > "$LOG/mtip_$r.log" 2>&1
    summary+=("mtip $r rc=$? in $(( $(date +%s) - t0 )) s")
    tail -3 "$LOG/mtip_$r.log"
  done
fi

if want demo; then
  for s in ${MTIP_SEEDS:-11 12 13 14}; do
    t0=$(date +%s)
    # The device has numpy, h5py and matplotlib (../shared/device.md): no venv to make there.
    BUILD_DIR="$ROOT/$BUILD" MTIP_DEMO_DIR="$LOG/demo$s" MTIP_DEMO_SEED=$s \
      NUFFTMP_PYTHON="${NUFFTMP_PYTHON:-python3}" timeout 150 \
      "$ROOT/scripts/mtip_demo.sh" > "$LOG/demo$s.log" 2>&1
    summary+=("demo seed $s rc=$? in $(( $(date +%s) - t0 )) s")
    rm -f "$LOG/demo$s"/*.h5  # the logs and the PNG come back, not the volumes
  done
fi

printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
python3 "$ROOT/scripts/device_mtip_table.py" "$LOG" | tee -a "$OUT/summary.txt"
tar czf "$OUT/mtip_logs.tar.gz" -C "$OUT" logs && rm -rf "$LOG"
