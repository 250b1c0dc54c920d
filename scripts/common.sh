# shellcheck shell=bash
# Shared set-up of scripts/quickstart.sh and scripts/test.sh (sourced, not run).
#   nufftmp_install_deps   apt-get install of whatever is missing (idempotent)
#   nufftmp_build          configure + build into $BUILD_DIR (default build/)
#   nufftmp_python_venv    a Python with the given pip packages: $BUILD_DIR/venv, shared
#   nufftmp_python_install the Python package into that venv (pip install .)
# Environment knobs:
#   BUILD_DIR                  build directory (default <repo>/build)
#   JOBS                       parallel build jobs (default: nproc)
#   CMAKE_CUDA_ARCHITECTURES   GPU architectures when nvcc is found (default 90)
#   NUFFTMP_CUDA               AUTO|ON|OFF override (default: ON when nvcc is found, else OFF)
#   NUFFTMP_CMAKE_ARGS         extra arguments for the cmake configure step
#   NUFFTMP_SKIP_DEPS=1        do not look at packages at all
#   NUFFTMP_OPTIONAL=0         do not install optional packages
#   NUFFTMP_PYTHON=0           test.sh: no Python package and no pytest tests
#   NUFFTMP_PYTHON_CUDA        CUDA engine in that package: AUTO|ON|OFF (default OFF: CI has
#                              no GPU; scripts/device_python.sh builds it with CUDA)
#   CI=true                    never prompt (sudo -n)
#   NUFFTMP_VENV               the virtual environment (default $BUILD_DIR/venv)

set -euo pipefail

NUFFTMP_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$NUFFTMP_ROOT/build}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
NUFFTMP_VENV="${NUFFTMP_VENV:-$BUILD_DIR/venv}"

# What the build needs. Tools count as present when the command is found (they may come from
# elsewhere than Debian packages, e.g. cmake from pip); libraries when their package is installed.
NUFFTMP_REQUIRED_TOOLS=(cmake:cmake g++:g++ make:make pkg-config:pkg-config python3:python3
                        mpiexec:openmpi-bin)
NUFFTMP_REQUIRED_PKGS=(libfftw3-dev libopenmpi-dev libhdf5-dev libgtest-dev)
# Optional: their absence is not an error. quickstart.sh adds python3-matplotlib (plots).
NUFFTMP_OPTIONAL_PKGS=(ninja-build ccache)

log() { printf '\n==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly when root, through sudo otherwise (never prompting on CI or
# without a terminal).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    if [ "${CI:-}" = "true" ] || [ ! -t 0 ]; then sudo -n "$@"; else sudo "$@"; fi
  else
    die "need root to run '$*' (no sudo found); install the packages listed in README.md by hand"
  fi
}

pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

apt_updated=0
apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

nufftmp_install_deps() {
  if [ "${NUFFTMP_SKIP_DEPS:-0}" = "1" ]; then return 0; fi
  if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    log "not a Debian/Ubuntu system: install cmake (>= 3.25), a C++17 compiler, pkg-config, FFTW3, OpenMPI, HDF5 and GoogleTest yourself"
    return 0
  fi
  local missing=() optional=() p
  for p in "${NUFFTMP_REQUIRED_TOOLS[@]}"; do
    command -v "${p%%:*}" >/dev/null 2>&1 || missing+=("${p#*:}")
  done
  for p in "${NUFFTMP_REQUIRED_PKGS[@]}"; do pkg_installed "$p" || missing+=("$p"); done
  for p in "${NUFFTMP_OPTIONAL_PKGS[@]}"; do pkg_installed "$p" || optional+=("$p"); done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "installing missing packages: ${missing[*]}"
    # An offline machine cannot install: say so and let the configure step name what fails.
    apt_install "${missing[@]}" || log "WARNING: could not install ${missing[*]}; the build may fail"
  else
    log "required packages present"
  fi
  if [ "${#optional[@]}" -gt 0 ] && [ "${NUFFTMP_OPTIONAL:-1}" = "1" ]; then
    log "installing optional packages: ${optional[*]} (failure is not fatal)"
    apt_install "${optional[@]}" || log "optional packages not installed; continuing"
  fi
  local v
  v="$(cmake --version 2>/dev/null | head -1 | grep -oE '[0-9]+\.[0-9]+' | head -1 || true)"
  if [ -n "$v" ] && [ "$(printf '%s\n3.25\n' "$v" | sort -V | head -1)" != "3.25" ]; then
    die "cmake $v is too old (need >= 3.25); e.g. 'python3 -m pip install cmake'"
  fi
}

# nvcc on PATH or in the usual CUDA location; prints its path.
find_nvcc() {
  if command -v nvcc >/dev/null 2>&1; then command -v nvcc
  elif [ -x /usr/local/cuda/bin/nvcc ]; then echo /usr/local/cuda/bin/nvcc
  else return 1
  fi
}

# True when a GPU is visible to this process.
have_gpu() {
  command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU'
}

nufftmp_configure() {
  local args=(-S "$NUFFTMP_ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release)
  # A build directory keeps its generator; pick one only for a fresh directory.
  if [ ! -f "$BUILD_DIR/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
    args+=(-G Ninja)
  fi
  local nvcc cuda="${NUFFTMP_CUDA:-}"
  if nvcc="$(find_nvcc)"; then
    cuda="${cuda:-ON}"
    if [ "$cuda" != "OFF" ]; then
      args+=(-DCMAKE_CUDA_COMPILER="$nvcc"
             -DCMAKE_CUDA_ARCHITECTURES="${CMAKE_CUDA_ARCHITECTURES:-90}")
    fi
  else
    cuda="${cuda:-OFF}"
  fi
  args+=(-DNUFFTMP_CUDA="$cuda")
  if command -v ccache >/dev/null 2>&1; then
    args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
           -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  log "configuring (CUDA engine: $cuda) in $BUILD_DIR"
  # shellcheck disable=SC2086  # NUFFTMP_CMAKE_ARGS is a list of words on purpose
  cmake "${args[@]}" ${NUFFTMP_CMAKE_ARGS:-}
}

nufftmp_build() {
  command -v cmake >/dev/null 2>&1 || die "cmake not found"
  nufftmp_configure
  log "building with $JOBS jobs"
  local t0=$SECONDS
  cmake --build "$BUILD_DIR" --parallel "$JOBS"
  log "build done in $((SECONDS - t0)) s"
}

# nufftmp_python_venv PKG[:MODULE]...  prints the interpreter of a virtual environment
# ($NUFFTMP_VENV, default $BUILD_DIR/venv: created on first use, then reused by every script)
# in which each MODULE imports (default: PKG), pip-installing the PKGs that do not. Whatever
# python3 is first on PATH (pyenv, conda, the system's): packages installed with apt serve only
# /usr/bin/python3, this serves the one that runs the scripts. Progress goes to stderr; the
# status is non-zero when the environment cannot be made (no venv module, pip offline).
nufftmp_python_venv() {
  local venv="$NUFFTMP_VENV"
  local py="$venv/bin/python" missing=() spec
  if [ ! -x "$py" ]; then
    log "creating the Python environment $venv" >&2
    if ! python3 -m venv "$venv" >&2; then
      # Debian's own python3 keeps venv (ensurepip) in a package of its own.
      rm -rf "$venv"
      if [ "${NUFFTMP_SKIP_DEPS:-0}" != "1" ] && command -v apt-get >/dev/null 2>&1 &&
         [ "$(command -v python3)" = /usr/bin/python3 ]; then
        apt_install python3-venv >&2 && python3 -m venv "$venv" >&2
      fi
      [ -x "$py" ] || { log "cannot create $venv with python3 -m venv" >&2; return 1; }
    fi
  fi
  for spec in "$@"; do
    "$py" -c "import ${spec#*:}" 2>/dev/null || missing+=("${spec%%:*}")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    log "pip install into $venv: ${missing[*]}" >&2
    "$py" -m pip install --quiet --disable-pip-version-check "${missing[@]}" >&2 || {
      log "pip could not install ${missing[*]} into $venv" >&2
      return 1
    }
  fi
  printf '%s\n' "$py"
}

# The Python package (pyproject.toml: scikit-build-core over our CMake, nanobind bindings) in
# the shared venv, with what its build and tests need from PyPI, then `pip install .`. Its build
# folder (build/python-<tag>) is kept, so a second call recompiles only what changed; ccache is
# used when present.
nufftmp_python_install() {
  local py
  py="$(nufftmp_python_venv scikit-build-core:scikit_build_core nanobind numpy pytest mpi4py)" \
    || die "could not prepare the Python venv for the package's build and tests"
  log "installing the Python package into ${py%/bin/python} (pip install .)"
  local t0=$SECONDS
  local cmake_args="-DNUFFTMP_CUDA=${NUFFTMP_PYTHON_CUDA:-OFF}"
  if command -v ccache >/dev/null 2>&1; then
    cmake_args+=" -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
    cmake_args+=" -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
  fi
  (cd "$NUFFTMP_ROOT" && CMAKE_ARGS="$cmake_args ${CMAKE_ARGS:-}" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" \
     "$py" -m pip install -q --disable-pip-version-check --no-build-isolation .) \
    || die "pip install . failed"
  log "Python package installed in $((SECONDS - t0)) s"
}
