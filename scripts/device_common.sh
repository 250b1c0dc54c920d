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
