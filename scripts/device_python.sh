#!/usr/bin/env bash
# On the GPU machine (device tool, no network): the Python package built with the CUDA engine
# by `pip install --no-build-isolation` into a target folder, its tests with CuPy and PyTorch
# arrays (and the MPI ones under mpirun -np 2 when mpi4py is there), the per-call overhead,
# and one GPU case through Python next to the C++ nufftmp-bench. About 4 minutes with 16 cores.
# Logs go to $OUT (default ./device-out); the summary is printed last.
#   scripts/device_python.sh [all|build|test|overhead|case]...   (default: all)
# Knobs: PY (default python3), PY_CMAKE_ARGS (default: CUDA on, sm_90), CASE_ARGS (bench_python.py case arguments; default P1 below).
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
PY=${PY:-python3}
SITE=${SITE:-$PWD/build-py/site}
CASE=${CASE_ARGS:-"--prec f --type 1 --N 128 128 128 --M 16777216 --tol 1e-5 --n_runs 10"}
summary=$OUT/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
"$PY" -c "import sys, numpy; print('python', sys.version.split()[0], 'numpy', numpy.__version__)" \
  2>&1 | tee -a "$summary"
# The bindings compile against Python's headers (python3-dev): say where they are expected.
"$PY" -c "import os, sysconfig; p = sysconfig.get_paths()['include']; \
print('Python.h', 'found' if os.path.exists(os.path.join(p, 'Python.h')) else 'MISSING', 'in', p)" \
  2>&1 | tee -a "$summary"
for m in scikit_build_core nanobind cupy torch mpi4py pytest; do
  if v=$("$PY" -c "import $m; print(getattr($m, '__version__', '?'))" 2>/dev/null); then
    note "$m $v"
  else
    note "$m: not installed"
  fi
done

if want build; then
  start=$(date +%s)
  rm -rf "$SITE"
  CMAKE_ARGS=${PY_CMAKE_ARGS:-"-DNUFFTMP_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90"} \
    CMAKE_BUILD_PARALLEL_LEVEL=$JOBS \
    "$PY" -m pip install -v --no-deps --no-build-isolation --no-index --target "$SITE" . \
    > "$OUT/py_build.log" 2>&1
  note "pip install rc=$? in $(( $(date +%s) - start )) s"
  grep -E "error|Error" "$OUT/py_build.log" | grep -v "Werror" | head -10
  PYTHONPATH=$SITE "$PY" -c "import nufftmp; c = nufftmp._core; print('HAS_CUDA', c.HAS_CUDA, \
'HAS_DIST', c.HAS_DIST, 'HAS_MTIP', c.HAS_MTIP, 'GPUs', nufftmp.cuda_device_count())" \
    2>&1 | tee -a "$summary"
  # The shared libraries are found through RPATH $ORIGIN, without LD_LIBRARY_PATH.
  readelf -d "$SITE"/nufftmp/_core*.so | grep -E "RUNPATH|RPATH" | tee -a "$summary"
fi

if want test; then
  start=$(date +%s)
  PYTHONPATH=$SITE timeout 400 "$PY" -m pytest -q -p no:cacheprovider --color=no -rs \
    -m "not mpi" tests/python > "$OUT/pytest.log" 2>&1
  note "pytest (CPU + GPU: CuPy, PyTorch) rc=$? in $(( $(date +%s) - start )) s: $(tail -1 "$OUT/pytest.log")"
  grep -E "FAILED|Error" "$OUT/pytest.log" | head -20
  if "$PY" -c "import mpi4py" 2>/dev/null; then
    start=$(date +%s)
    PYTHONPATH=$SITE OMP_NUM_THREADS=1 timeout 300 mpirun -np 2 --oversubscribe -x PYTHONPATH \
      "$PY" -m pytest -q -p no:cacheprovider --color=no -m mpi tests/python \
      > "$OUT/pytest_mpi.log" 2>&1
    note "pytest mpi (2 ranks) rc=$? in $(( $(date +%s) - start )) s: $(grep -E "passed|failed" "$OUT/pytest_mpi.log" | tail -2 | tr '\n' ' ')"
  else
    note "pytest mpi: skipped (no mpi4py)"
  fi
fi

if want overhead; then
  PYTHONPATH=$SITE OMP_NUM_THREADS=1 timeout 300 "$PY" scripts/bench_python.py overhead --gpu \
    > "$OUT/overhead.txt" 2>&1
  note "overhead rc=$?"
  grep -A20 "^engine" "$OUT/overhead.txt" | tee -a "$summary"
fi

if want case; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=OFF -DNUFFTMP_HDF5=OFF -DNUFFTMP_TESTS=OFF \
    && cmake --build "$BUILD" -j "$JOBS" --target nufftmp-bench; } > "$OUT/bench_build.log" 2>&1
  note "nufftmp-bench build rc=$? in $(( $(date +%s) - start )) s"
  # shellcheck disable=SC2086  # CASE is a list of words
  PYTHONPATH=$SITE timeout 120 "$PY" scripts/bench_python.py case $CASE > "$OUT/case_python.json" 2>&1
  # The same case in the C++ bench (its uniform points, its --prec/--type/--N*/--M/--tol flags).
  # shellcheck disable=SC2086  # CASE is a list of words
  set -- $CASE
  args=()
  while [ $# -gt 0 ]; do
    case $1 in
      --N) shift; i=1; while [ $# -gt 0 ] && [[ $1 != --* ]]; do args+=("--N$i" "$1"); i=$((i + 1)); shift; done; continue ;;
      *) args+=("$1") ;;
    esac
    shift
  done
  timeout 120 "$BUILD/apps/nufftmp-bench" --backend cuda --dist uniform --json "${args[@]}" \
    > "$OUT/case_cpp.json" 2>>"$OUT/bench_build.log"
  "$PY" - "$OUT/case_python.json" "$OUT/case_cpp.json" <<'PYEOF' | tee -a "$summary"
import json, sys
def last_json(path):
    for line in reversed(open(path).read().splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    return {}
py, cpp = last_json(sys.argv[1]), last_json(sys.argv[2])
print("GPU case (execute, ms)      fastest  median   method")
for name, r in (("python + CuPy", py), ("C++ nufftmp-bench", cpp)):
    print(f"{name:26s} {r.get('exec_ms', float('nan')):8.3f} {r.get('exec_ms_median', float('nan')):8.3f}   {r.get('method', '?')}")
PYEOF
fi

echo; echo "==== summary ($(git rev-parse --short HEAD 2>/dev/null), $(date -u +%FT%TZ))"; cat "$summary"
