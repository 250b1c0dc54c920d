#!/usr/bin/env bash
# Installs what is missing, builds nufftmp into build/, and runs the whole test suite.
# Tests needing a GPU skip without one; MPI tests reserve their ranks (CTest PROCESSORS).
# The Python package is pip-installed into build/venv and its pytest tests run in the suite.
# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

nufftmp_install_deps
# The pytest tests of the Python package run inside ctest (tests/python/CMakeLists.txt).
pytest_python="$NUFFTMP_VENV/bin/python"
[ "${NUFFTMP_PYTHON:-1}" != "0" ] || pytest_python=""
NUFFTMP_CMAKE_ARGS="${NUFFTMP_CMAKE_ARGS:-} -DNUFFTMP_PYTEST_PYTHON=$pytest_python"
nufftmp_build
[ "${NUFFTMP_PYTHON:-1}" = "0" ] || nufftmp_python_install
log "running the test suite"
t0=$SECONDS
ctest --test-dir "$BUILD_DIR" --output-on-failure --parallel "$JOBS"
log "tests done in $((SECONDS - t0)) s"
