#!/usr/bin/env bash
# On the GPU machine (device tool), 1 GPU, one call of at most 8 minutes: the low-signal study of
# issue 17 at the image counts the GPUs are for. For photons/image x images (default
# 100 30 10 x 1e4 1e5) and the assignment modes hard (least squares, best match: the default
# before issue 17) and soft-poisson (EMC: Poisson likelihood, soft over the 32 best at
# temperature 2 -> 1), it simulates the data (M = 21, 24^2 pixels, the clustered molecule),
# reconstructs from random orientations (8 generations, 5000 references) and prints the table:
# median orientation error against the truth, half-set FSC (mean, resolution at 0.5), best
# generation, seconds per generation. Runs stop being started at DEADLINE (default 400 s after
# the study starts; the build comes first).
#   scripts/device_lowsignal.sh [all|build|study]...     (default: all)
# Knobs: PHOTONS, IMAGES, MODES, DEADLINE, and the rest of scripts/lowsignal.sh's.
# Soft-poisson matching runs its product on the host's 16 cores (the GPU matcher does least
# squares only); slicing and merging run on the GPU.
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
  BUILD_DIR="$bd" OUT="$OUT/lowsignal" PHOTONS="${PHOTONS:-100 30 10}" \
    IMAGES="${IMAGES:-10000 100000}" MODES="${MODES:-hard soft-poisson}" \
    DEADLINE="${DEADLINE:-400}" TIMEOUT="${TIMEOUT:-240}" NP=1 \
    bash "$(dirname "${BASH_SOURCE[0]}")/lowsignal.sh" > "$OUT/lowsignal.out" 2>&1
  summary+=("study rc=$?")
fi
printf '%s\n' "${summary[@]}"
echo "== low-signal table (GPU, $(head -1 "$OUT/gpu.txt"))"
cat "$OUT/lowsignal/table.md" 2>/dev/null
