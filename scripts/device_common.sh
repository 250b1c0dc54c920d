# shellcheck shell=bash
# Shared prologue of scripts/device_gpu.sh and scripts/device_dist.sh (sourced, not run; the
# caller's arguments are the steps): output and build folders, job count, step selection, and
# the MPI/NCCL environment of the GPU machines.
#   want STEP   true when STEP or "all" was asked (no arguments = all)
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
JOBS=${JOBS:-$(nproc)}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(all)
want() { for s in "${steps[@]}"; do [ "$s" = all ] || [ "$s" = "$1" ] && return 0; done; return 1; }
# NVLink multicast (NVLS) off: see ../shared/device.md.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 \
       PMIX_MCA_pcompress_base_silence_warning=1

# One-call device scripts (device_setpts.sh, device_execute.sh): a time budget from now
# (LIMIT_S, default $1 seconds), the summary file with its header (GPU, commit, date), and:
#   left              seconds of the budget that remain
#   step LINE...      the line to stdout and the summary
#   device_build      the single-GPU library (MPI and HDF5 off), the bench and every test
#   device_gpu_tests LIMIT [REGEX]   ctest -L gpu [-R REGEX] within LIMIT seconds
device_session() {
  LIMIT_S=${LIMIT_S:-$1}
  T_START=$SECONDS
  summary=$OUT/summary.txt
  { nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
      --format=csv,noheader 2>&1
    echo "commit ${NUFFTMP_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}" \
         "$(date -u +%FT%TZ)"; } > "$summary"
}
left() { echo $((LIMIT_S - (SECONDS - T_START))); }
step() { echo "$*" | tee -a "$summary"; }
device_build() {
  local t0=$SECONDS
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=OFF -DNUFFTMP_HDF5=OFF \
    && cmake --build "$BUILD" -j "$JOBS"; } > "$OUT/build.log" 2>&1
  step "build rc=$? in $((SECONDS - t0)) s"
  grep -E "error|FAILED" "$OUT/build.log" | head -10
}
device_gpu_tests() {
  local t0=$SECONDS lim=$1 regex=${2:-}
  (cd "$BUILD" && timeout "$lim" ctest -L gpu ${regex:+-R "$regex"} --output-on-failure -j 2) \
    > "$OUT/ctest.log" 2>&1
  step "gpu tests rc=$? in $((SECONDS - t0)) s (limit $lim s)"
  grep -E "Test +#|tests passed|tests failed" "$OUT/ctest.log" | tee -a "$summary"
}

# gpu_header: the GPU, the driver and the commit into $OUT/gpu.txt, and on stdout.
gpu_header() {
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$OUT/gpu.txt" 2>&1
  echo "commit ${NUFFTMP_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)} $(date -u +%FT%TZ)" \
    >> "$OUT/gpu.txt"
  cat "$OUT/gpu.txt"
}
