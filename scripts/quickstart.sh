#!/usr/bin/env bash
# Installs what is missing, builds nufftmp into build/, and runs the main job.
# Idempotent: a second run only rebuilds what changed. Knobs: see scripts/common.sh.
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

# ============================================================================================
# THE MAIN JOB. For now: a demo of the library, a 3D type 1 and a 3D type 2 transform, each
# checked against the direct sum, on the GPU when one is visible (and the CUDA engine is built),
# else on the CPU engine.
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
    log "demo: 3D type $type, error against the direct sum"
    "$bench" --backend auto --type "$type" "${size[@]}" "${prec[@]}" --n_runs 5 --check
  done
}
# ============================================================================================

NUFFTMP_OPTIONAL_PKGS+=(python3-matplotlib)
nufftmp_install_deps
nufftmp_build
main_job
log "quickstart done"
