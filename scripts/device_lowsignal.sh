#!/usr/bin/env bash
# On the GPU machine (device tool), 1 GPU: the low-signal study of issue 17 at the image counts
# the GPUs are for (M = 21, 24^2 pixels, the clustered molecule; 8 generations from random
# orientations, 5000 references), through scripts/lowsignal.sh. Its table: median orientation
# error against the truth, density and intensity correlation against the truth, free
# correlation, half-set FSC, best generation, seconds per generation.
#   scripts/device_lowsignal.sh [all|build|study]...     (default: all)
# The default runs (RUNS, in this order: the most informative first, since DEADLINE may cut
# the last ones). Times estimated on the H200 from the logs of the 590ddb6 study (hard
# 0.5 / 0.8 s per generation at 1e4 / 1e5 images; soft-poisson matching 173 s in all at 1e5
# on one core, taken as ~12x faster on 16; synthesis of 1e5 images ~15 s, not measured),
# with synthesis, cumulative:
#   1e5 soft-poisson at 100 photons  ~35 s,  35  (cut at generation 6 before: density corr 0.97)
#   1e4 soft-poisson at 200, 100     ~13 s,  48  (CPU limit at 2000 images: 200 passes, 150 fails)
#   1e4 hard at 1000, 300            ~11 s,  59  (CPU limit at 2000 images: 2000; GPU: 100 fails)
#   1e5 hard at 300                  ~22 s,  81
#   1e5 soft-poisson at 30           ~35 s, 116  (1e4 at 30 failed before)
# Each data set's synthesis time is the last line of its synth_*.log.
# DEADLINE (default 150 s after the study starts: no run starts after it and the last is cut
# there; the build comes first), TIMEOUT (s per run, default 60). RUNS="images:photons:mode
# ..." replaces the list; PHOTONS, IMAGES, MODES (any of them set) run their product instead.
# MTIP_MPIRUN_ARGS defaults to "--bind-to none": Open MPI would bind the one rank to one core
# and the soft-poisson matcher's OpenMP threads (its product runs on the host: the GPU
# matcher does least squares only) would share it (11-37 s per generation at 1e5 images
# before). Slicing and merging run on the GPU.
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
gpu_header
summary=()
if want build; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      && cmake --build "$BUILD" -j "$JOBS" --target nufftmp-synth nufftmp-mtip; } \
    > "$OUT/build_lowsignal.log" 2>&1
  rc=$?
  summary+=("build rc=$rc in $(( $(date +%s) - start )) s")
  grep -E "error|FAILED" "$OUT/build_lowsignal.log" | head -20
  [ $rc -eq 0 ] || { printf '%s\n' "${summary[@]}"; exit 1; }
fi
if want study; then
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
  case $BUILD in /*) bd=$BUILD ;; *) bd=$PWD/$BUILD ;; esac
  if [ -z "${RUNS+x}" ] && [ -z "${PHOTONS:-}${IMAGES:-}${MODES:-}" ]; then
    RUNS="100000:100:soft-poisson 10000:200:soft-poisson 10000:100:soft-poisson"
    RUNS+=" 10000:1000:hard 10000:300:hard 100000:300:hard 100000:30:soft-poisson"
  fi
  BUILD_DIR="$bd" OUT="$OUT/lowsignal" RUNS="${RUNS:-}" PHOTONS="${PHOTONS:-100 30 10}" \
    IMAGES="${IMAGES:-10000 100000}" MODES="${MODES:-hard soft-poisson}" \
    DEADLINE="${DEADLINE:-150}" TIMEOUT="${TIMEOUT:-60}" NP=1 \
    MTIP_MPIRUN_ARGS="${MTIP_MPIRUN_ARGS---bind-to none}" \
    bash "$(dirname "${BASH_SOURCE[0]}")/lowsignal.sh" > "$OUT/lowsignal.out" 2>&1
  summary+=("study rc=$?")
fi
printf '%s\n' "${summary[@]}"
echo "== low-signal table (GPU, $(head -1 "$OUT/gpu.txt"))"
cat "$OUT/lowsignal/table.md" 2>/dev/null
