#!/usr/bin/env bash
# One call on the GPU machine (device tool, one H200) that validates a whole tree: the full
# build (CUDA, MPI, HDF5: every library, app and test), every GPU test (ctest label gpu: core,
# type 3, tolerance sweeps, kernel variants, distributed on one GPU, M-TIP, Ewald), then the
# topic scripts named after it, each in its own folder under $OUT and within the time left
# (LIMIT_S, default 570 s). The folders are packed into $OUT/logs.tgz at the end (the device
# tool returns at most 8 files); $OUT/summary.txt holds every step's summary.
#   NUFFTMP_COMMIT=<sha> bash scripts/device_all.sh [build] [test] [execute] [compare] [mtip]
#       [type3] [python] [ewald] [pswf]
#   execute  scripts/device_execute.sh bench cuf     (kernel variants vs cuFINUFFT)
#   compare  scripts/device_setpts.sh stages compare (set_points stages, compare.sh public,
#            cluster, sweep)
#   mtip     scripts/device_mtip.sh run              (a generation at issue 5's size)
#   mtipdemo scripts/device_mtip.sh run demo         (and the quickstart demo, seeds 11-14)
#   type3    scripts/device_type3.sh bench           (T1-T4 against cuperftest --type 3)
#   python   scripts/device_python.sh                (CuPy/PyTorch tests, overhead, cases)
#   ewald    scripts/device_ewald.sh bench           (energy + forces timings)
#   pswf     scripts/device_pswf.sh bench calib      (PSWF against ES, the cost model)
# compare, execute and type3 need .anchors/ carried (../shared/anchors/README.md).
set -u
ROOT_OUT=${OUT:-$PWD/device-out}
export OUT=$ROOT_OUT/all
export BUILD=${BUILD:-build-gpu}
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
device_session 570

if want build; then
  t0=$SECONDS
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=ON -DNUFFTMP_HDF5=ON \
    && cmake --build "$BUILD" -j "$JOBS" -- -k 0; } > "$OUT/build.log" 2>&1
  step "build (CUDA, MPI, HDF5) rc=$? in $((SECONDS - t0)) s"
  grep -E "error|FAILED" "$OUT/build.log" | head -20 | tee -a "$summary"
fi

if want test; then
  t0=$SECONDS
  (cd "$BUILD" && timeout "${TEST_LIMIT:-240}" ctest -L gpu --output-on-failure -j 2) \
    > "$OUT/ctest.log" 2>&1
  step "gpu tests rc=$? in $((SECONDS - t0)) s"
  grep -E "Test +#|tests passed|tests failed" "$OUT/ctest.log" | tee -a "$summary"
  grep -E "^\[  FAILED  \]" "$OUT/ctest.log" | sort -u | head -20 | tee -a "$summary"
fi

# topic NAME SCRIPT STEPS...: the script with its own OUT and the time left less a margin.
topic() {
  local name=$1 script=$2; shift 2
  local lim=$(( $(left) - 15 ))
  [ "$lim" -lt 40 ] && { step "$name: no time left"; return; }
  local t0=$SECONDS
  OUT=$ROOT_OUT/$name LIMIT_S=$lim timeout "$lim" bash "scripts/$script" "$@" \
    > "$ROOT_OUT/$name.log" 2>&1
  step "$name rc=$? in $((SECONDS - t0)) s (limit $lim s)"
  tail -n "${TAIL:-40}" "$ROOT_OUT/$name.log" >> "$summary"
}
for s in "${steps[@]}"; do
  case $s in
    execute) topic execute device_execute.sh bench cuf ;;
    compare) topic compare device_setpts.sh stages compare ;;
    mtip) topic mtip device_mtip.sh run ;;
    mtipdemo) topic mtip device_mtip.sh run demo ;;
    type3) topic type3 device_type3.sh bench ;;
    python) topic python device_python.sh ;;
    ewald) topic ewald device_ewald.sh bench ;;
    pswf) topic pswf device_pswf.sh bench calib ;;
  esac
done

step "total $((SECONDS - T_START)) s"
cp "$summary" "$ROOT_OUT/summary.txt"
(cd "$ROOT_OUT" && tar czf logs.tgz --exclude=logs.tgz --exclude=summary.txt . 2>/dev/null)
find "$ROOT_OUT" -mindepth 1 -maxdepth 1 ! -name logs.tgz ! -name summary.txt -exec rm -rf {} +
