# shellcheck shell=bash
# The M-TIP scripts' shared set-up (sourced by mtip_demo.sh and lowsignal.sh, not run):
#   mtip_apps_env NP   SYNTH and MTIP (the apps under $BUILD_DIR/apps, which must be built),
#                      the MPI environment of a root run, and OMP_NUM_THREADS = the cores per
#                      rank (unless set).
mtip_apps_env() {
  local np=$1
  SYNTH="$BUILD_DIR/apps/nufftmp-synth"
  MTIP="$BUILD_DIR/apps/nufftmp-mtip"
  for exe in "$SYNTH" "$MTIP"; do
    [ -x "$exe" ] || { echo "error: $exe was not built (build nufftmp with HDF5 and MPI)" >&2; exit 1; }
  done
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 \
         PMIX_MCA_pcompress_base_silence_warning=1
  local ncores
  ncores="$(nproc 2>/dev/null || echo 2)"
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(( ncores / np > 0 ? ncores / np : 1 ))}"
}
