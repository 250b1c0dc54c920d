#!/usr/bin/env bash
# On the GPU machine (device tool), 1 GPU: M-TIP at the size of issue 5 (2000 images of
# 128 x 128, M = 81, 1e4 reference orientations), with orientation matching on cuBLAS and the
# merging CG's FFTs on cuFFT (src/mtip/gpu). Steps:
#   build     configure + build into $BUILD (default build-gpu), log $OUT/build.log
#   test      the M-TIP GPU tests (GPU matching and Toeplitz operator vs the host paths)
#   sanitize  compute-sanitizer memcheck/racecheck on small cases of those tests
#   run       simulate the data set, then reconstruct 2 generations on 1 rank (generation 2
#             matches 2000 images against 1e4 references): once with 20 CG steps (the command
#             of docs/performance.md section 4) and once with the default CG limits
# Logs go to $OUT (default ./device-out); the table of per-stage times is printed last.
#   scripts/device_mtip.sh [all|build|test|sanitize|run]...   (default: all)
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
echo "commit ${NUFFTMP_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)} $(date -u +%FT%TZ)" \
  >> "$OUT/gpu.txt"
cat "$OUT/gpu.txt"
summary=()

if want build; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      && cmake --build "$BUILD" -j "$JOBS" --target nufftmp-synth nufftmp-mtip \
           test_mtip_gpu_matching test_mtip_gpu_merging; } > "$OUT/build.log" 2>&1
  rc=$?
  summary+=("build rc=$rc in $(( $(date +%s) - start )) s")
  grep -E "error|FAILED" "$OUT/build.log" | head -20
  [ $rc -eq 0 ] || { printf '%s\n' "${summary[@]}"; exit 1; }
fi

if want test; then
  start=$(date +%s)
  (cd "$BUILD" && timeout 300 ctest -R 'test_mtip_gpu_' -V) \
    > "$OUT/ctest_mtip_gpu.log" 2>&1
  summary+=("mtip gpu tests rc=$? in $(( $(date +%s) - start )) s")
  grep -E "Test +#|tests passed|tests failed|best references equal|rel diff" \
    "$OUT/ctest_mtip_gpu.log" | sort -u | head -40
fi

if want sanitize; then
  T="$BUILD/tests/mtip"
  { timeout 180 compute-sanitizer --tool memcheck --error-exitcode 9 "$T/test_mtip_gpu_matching" \
      --gtest_filter='*SplitEqualsLocal:*EmptyAndClamped:*BadModel*'
    echo "memcheck matching rc=$?"
    timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 \
      "$T/test_mtip_gpu_matching" --gtest_filter='*EmptyAndClamped'
    echo "racecheck matching rc=$?"
    timeout 180 compute-sanitizer --tool memcheck --error-exitcode 9 "$T/test_mtip_gpu_merging" \
      --gtest_filter='*ToeplitzEqualsDirectSum:*DoubleMergerEqualsCpu'
    echo "memcheck merging rc=$?"; } > "$OUT/sanitizer.log" 2>&1
  while read -r line; do summary+=("$line"); done < <(grep -E "rc=|ERROR SUMMARY" "$OUT/sanitizer.log")
fi

if want run; then
  DATA=${MTIP_DATA:-/tmp/mtip_issue5}
  mkdir -p "$DATA"
  start=$(date +%s)
  timeout 120 "$BUILD/apps/nufftmp-synth" --output "$DATA/data.h5" --M 81 --n-images 2000 \
    --nx 128 --ny 128 --pixel-size 0.5e-3 --atoms 200 --fluence 100 --seed 3 --overwrite \
    > "$OUT/synth.log" 2>&1
  summary+=("synth rc=$? in $(( $(date +%s) - start )) s")
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
  mtip() {  # log-name extra-args...
    local log=$1; shift
    local t0; t0=$(date +%s)
    timeout 300 mpirun -np 1 "$BUILD/apps/nufftmp-mtip" --input "$DATA/data.h5" \
      --output "$DATA/$log.h5" --generations 2 --n-ref 10000 --phase-cycles 1 \
      --q-ramp 1 --match-iter 1 --overwrite "$@" \
      > "$OUT/$log.log" 2>&1
    summary+=("$log rc=$? in $(( $(date +%s) - t0 )) s")
  }
  # MTIP_RUNS picks the runs (both by default; "cg20" alone fits a short device call).
  for r in ${MTIP_RUNS:-cg20 cgdefault}; do
    case $r in
      cg20) mtip mtip_cg20 --cg-iter 20 ;;
      cgdefault) mtip mtip_cgdefault ;;
    esac
    tail -4 "$OUT/mtip_$r.log"
  done
fi

printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
if want run; then
  # Per-stage times of each generation from the progress lines of nufftmp-mtip.
  python3 - "$OUT/mtip_cg20.log" "$OUT/mtip_cgdefault.log" <<'PY' | tee -a "$OUT/summary.txt"
import re, sys
pat = re.compile(r"gen (\d+)/\d+: slicing ([\d.]+) s, matching ([\d.]+) s, merging ([\d.]+) s "
                 r"\(CG (\d+) it, res ([^)]+)\), phasing ([\d.]+) s")
print("| run | gen | slicing s | matching s | merging s | CG it | CG res | phasing s |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for path in sys.argv[1:]:
    name = path.rsplit("/", 1)[-1].removesuffix(".log")
    try:
        lines = open(path).read().splitlines()
    except OSError:
        print(f"| {name} | (no log) |"); continue
    found = False
    for l in lines:
        m = pat.search(l)
        if m:
            found = True
            g, sl, ma, me, it, res, ph = m.groups()
            print(f"| {name} | {g} | {sl} | {ma} | {me} | {it} | {res} | {ph} |")
    if not found:
        print(f"| {name} | (no progress lines; see {path}) |")
PY
fi
