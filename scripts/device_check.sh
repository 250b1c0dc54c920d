#!/usr/bin/env bash
# One call on the GPU machine (device tool) that checks a release: full build (CUDA + MPI +
# NCCL + HDF5), every GPU test (single-GPU engine, autotune, distributed with 2-4 ranks on the
# GPUs present), compute-sanitizer memcheck on small cases, the public suite P1-P8 with the
# automatic method (uniform with error check, clustered), and the M-TIP demo on the GPU.
# Logs under $OUT (at most 8 files); a summary is printed last.
#   scripts/device_check.sh [build] [test] [sanitize] [bench] [mtip]   (default: all)
set -u
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
BUILD=${BUILD:-build-gpu}
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build test sanitize bench mtip)
want() { for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 \
       PMIX_MCA_pcompress_base_silence_warning=1 NUFFTMP_AUTOTUNE_CACHE=$PWD/$BUILD/autotune.txt
summary=$OUT/summary.txt
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  # The device gets the working tree without .git: the caller passes the commit.
  echo "commit ${NUFFTMP_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)} $(date -u +%FT%TZ)"; } | tee "$summary"

if want build; then
  t0=$SECONDS
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      && cmake --build "$BUILD" -j "$(nproc)"; } > "$OUT/build.log" 2>&1
  echo "build rc=$? in $((SECONDS - t0)) s" | tee -a "$summary"
  grep -E "error|FAILED" "$OUT/build.log" | head -10
fi

if want test; then
  t0=$SECONDS
  (cd "$BUILD" && timeout 240 ctest -L gpu --output-on-failure -j 2) > "$OUT/ctest.log" 2>&1
  echo "gpu tests rc=$? in $((SECONDS - t0)) s" | tee -a "$summary"
  grep -E "Test +#|tests passed|tests failed" "$OUT/ctest.log" | tee -a "$summary"
fi

if want sanitize; then
  T="$BUILD/tests/core/cuda/test_cuda_accuracy"
  { timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 "$T" \
      --gtest_filter='*3d_type1_f_output*uniform*:*2d_type2_d_sm*clustered*'
    echo "memcheck accuracy rc=$?"
    timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 \
      "$BUILD/tests/core/cuda/test_cuda_autotune" --gtest_filter='*Batch*'
    echo "memcheck autotune rc=$?"; } > "$OUT/sanitizer.log" 2>&1
  grep -E "rc=|ERROR SUMMARY" "$OUT/sanitizer.log" | tee -a "$summary"
fi

if want bench; then
  B="$BUILD/apps/nufftmp-bench"
  : > "$OUT/bench.jsonl"
  run() {  # case dist args...
    local name=$1 dist=$2; shift 2
    local chk=""; [ "$dist" = uniform ] && chk="--check"
    local line
    line=$(timeout 60 "$B" --backend cuda --dist "$dist" --n_runs 10 --json $chk "$@" \
             2>>"$OUT/bench.err" | tail -1)
    echo "{\"case\":\"$name\",\"req_method\":\"auto\",\"res\":${line:-null}}" >> "$OUT/bench.jsonl"
  }
  for dist in uniform cluster; do
    run P1 $dist --prec f --type 1 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5
    run P2 $dist --prec f --type 2 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5
    run P3 $dist --prec f --type 1 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5
    run P4 $dist --prec f --type 2 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5
    run P5 $dist --prec d --type 1 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9
    run P6 $dist --prec d --type 2 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9
    run P7 $dist --prec f --type 1 --N1 10000000 --M 20000000 --tol 1e-5
    run P8 $dist --prec f --type 2 --N1 10000000 --M 20000000 --tol 1e-5
  done
  python3 scripts/device_gpu_table.py "$OUT/bench.jsonl" | tee "$OUT/bench_table.md"
fi

if want mtip; then
  t0=$SECONDS
  BUILD_DIR=$PWD/$BUILD MTIP_DEMO_DIR=/tmp/mtip_demo timeout 150 bash scripts/mtip_demo.sh \
    > "$OUT/mtip.log" 2>&1
  echo "mtip demo rc=$? in $((SECONDS - t0)) s" | tee -a "$summary"
  tail -15 "$OUT/mtip.log"
fi
