#!/usr/bin/env bash
# Installs what is missing, builds nufftmp into build/, and runs the main job.
# Idempotent: a second run only rebuilds what changed. Knobs: see scripts/common.sh.
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ============================================================================================
# THE MAIN JOB: the M-TIP reconstruction. Simulate a small single-particle diffraction data set
# and reconstruct the 3D density from it with `mpirun -np 2` (GPUs when visible and the CUDA
# engine is built, else the CPU engine), printing per-generation progress, the final
# correlation with the ground truth and the path of the PNG of central slices. Before it, one
# 3D type 1 and one type 2 transform are checked against the direct sum.
# ============================================================================================
main_job() {
  local bench="$BUILD_DIR/apps/nufftmp-bench"
  [ -x "$bench" ] || die "$bench was not built"
  # --backend auto takes the CUDA engine when it is built and a device is visible.
  local size=(--N1 32 --N2 32 --N3 32) prec=(--prec d --tol 1e-9)
  if have_gpu; then
    size=(--N1 128 --N2 128 --N3 128)
    prec=(--prec f --tol 1e-5)
  fi
  local type
  for type in 1 2; do
    log "NUFFT check: 3D type $type, error against the direct sum"
    "$bench" --backend auto --type "$type" "${size[@]}" "${prec[@]}" --n_runs 3 --check
  done
  if [ -x "$BUILD_DIR/apps/nufftmp-mtip" ]; then
    log "M-TIP: simulate and reconstruct (scripts/mtip_demo.sh)"
    BUILD_DIR="$BUILD_DIR" bash "$NUFFTMP_ROOT/scripts/mtip_demo.sh"
  else
    log "M-TIP apps not built (needs MPI and HDF5): skipping the reconstruction"
  fi
}
# ============================================================================================

nufftmp_install_deps
nufftmp_build
main_job
log "quickstart done"
