#!/usr/bin/env bash
# Installs what is missing, builds nufftmp into build/, and runs the whole test suite.
# Tests needing a GPU skip without one; MPI tests reserve their ranks (CTest PROCESSORS).
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

nufftmp_install_deps
nufftmp_build
log "running the test suite"
t0=$SECONDS
ctest --test-dir "$BUILD_DIR" --output-on-failure --parallel "$JOBS"
log "tests done in $((SECONDS - t0)) s"
