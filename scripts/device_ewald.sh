#!/usr/bin/env bash
# On the GPU machine (device tool; kind nvidia-h200-x2 gives the 2-GPU rows, nvidia-h200 runs
# the same with the 2 ranks sharing its GPU): build the Ewald library, app and tests with CUDA,
# run the Ewald tests (CPU ones, the app's smoke tests and the gpu label), compute-sanitizer
# memcheck on the GPU test's small cases, then time energy + forces of random neutral systems
# (density 1, +1/-1) on one GPU and on 2 ranks, with the CPU engine as the reference, and
# print one table last. Estimated 5 minutes in all (not yet run).
# Logs under $OUT: ewald_build.log, ewald_ctest.log, ewald_sanitizer.log, ewald_bench.jsonl,
# ewald_bench.log, ewald_gpu.txt (at most 8 files come back).
#   scripts/device_ewald.sh [all|build|test|sanitize|bench]...   (default: all)
# Knobs (environment):
#   ACC      requested accuracy of the timed runs (default 1e-6)
#   SIZES    ion counts on one GPU (default "1e6 1e7 1e8")
#   SIZES2   ion counts on 2 ranks (default "2e7 2e8": the same ions per rank as 1e7, 1e8)
#   CPU_N    ion count of the CPU-engine reference run (default 1e6; all cores)
#   STEPS    evaluations per run; the fastest after the first is reported (default 2)
#   EXTRA    extra nufftmp-ewald flags for every timed run (e.g. "--upsampfac 1.25")
#   MORE=1   two more rows: the host real-space path at the smallest size, and upsampfac 1.25
#            at the largest (about 60 s more)
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
ACC=${ACC:-1e-6}
SIZES=${SIZES:-1e6 1e7 1e8}
SIZES2=${SIZES2:-2e7 2e8}
CPU_N=${CPU_N:-1e6}
STEPS=${STEPS:-2}
MORE=${MORE:-0}
EXTRA=${EXTRA:-}
NGPU=$(nvidia-smi -L 2>/dev/null | wc -l)
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  echo "commit $(git rev-parse --short HEAD 2>/dev/null) $(date -u +%FT%TZ), $NGPU GPU(s), $(nproc) cores"; } \
  > "$OUT/ewald_gpu.txt" 2>&1
cat "$OUT/ewald_gpu.txt"

if want build; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=ON -DNUFFTMP_HDF5=ON \
    && cmake --build "$BUILD" -j "$JOBS" --target nufftmp-ewald test_ewald_logic \
         test_ewald_madelung test_ewald_direct test_ewald_errors test_ewald_io test_ewald_gpu; } \
    > "$OUT/ewald_build.log" 2>&1
  echo "build rc=$? in $(( $(date +%s) - start )) s"
  grep -E "error|FAILED" "$OUT/ewald_build.log" | head -20
fi

if want test; then
  start=$(date +%s)
  (cd "$BUILD" && timeout 240 ctest -R ewald --output-on-failure -j 4) > "$OUT/ewald_ctest.log" 2>&1
  echo "ewald tests rc=$? in $(( $(date +%s) - start )) s"
  grep -E "tests passed|Failed|FAILED|\*\*\*|Skipped|gpu .*M =|gpu acc|gpu vs cpu" \
    "$OUT/ewald_ctest.log" | head -30
fi

if want sanitize; then
  # memcheck of the new kernels (cell list, pair sums, mode array, assembly) on small systems.
  start=$(date +%s)
  timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 "$BUILD/tests/ewald/test_ewald_gpu" \
    --gtest_filter='EwaldGpu.MatchesDirectEwald:EwaldGpu.CloseIonsFoundOnTheDevice' \
    > "$OUT/ewald_sanitizer.log" 2>&1
  echo "memcheck rc=$? in $(( $(date +%s) - start )) s: $(grep -E "ERROR SUMMARY" "$OUT/ewald_sanitizer.log" | tail -1)"
fi

if want bench; then
  A="$BUILD/apps/nufftmp-ewald"
  : > "$OUT/ewald_bench.jsonl"
  : > "$OUT/ewald_bench.log"
  # label ranks limit args...: one JSON line per run, with the peak memory of GPU 0 sampled
  # every 0.2 s while it runs.
  bench() {
    local label=$1 ranks=$2 limit=$3; shift 3
    local mem="$OUT/.mem" line peak
    : > "$mem"
    ( while true; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 \
        >> "$mem" 2>/dev/null; sleep 0.2; done ) &
    local sampler=$!
    echo "== $label: mpirun -np $ranks $A $* $EXTRA" >> "$OUT/ewald_bench.log"
    line=$(timeout "$limit" mpirun -np "$ranks" --oversubscribe "$A" "$@" $EXTRA --json \
             2>>"$OUT/ewald_bench.log" | tail -1)
    kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null
    peak=$(sort -n "$mem" | tail -1)
    echo "$line" >> "$OUT/ewald_bench.log"
    echo "{\"label\":\"$label\",\"gpu0_peak_mib\":${peak:-null},\"res\":${line:-null}}" \
      >> "$OUT/ewald_bench.jsonl"
  }
  for n in $SIZES; do
    ref=""; [ "$n" = 1e6 ] && ref="--reference"
    bench "1 GPU" 1 150 --random "$n" --accuracy "$ACC" --steps "$STEPS" $ref
  done
  for n in $SIZES2; do
    bench "2 ranks" 2 150 --random "$n" --accuracy "$ACC" --steps "$STEPS"
  done
  # The same accuracy on the CPU engine (all cores of the host).
  OMP_NUM_THREADS=$(nproc) bench "CPU engine" 1 120 --cpu --random "$CPU_N" --accuracy "$ACC" \
    --steps 2
  if [ "$MORE" = 1 ]; then
    bench "1 GPU, host real space" 1 120 --random "${SIZES%% *}" --accuracy "$ACC" --steps 2 \
      --host-real-space
    # More modes for the same grid memory at the largest size (wider kernel, smaller rcut).
    bench "1 GPU, upsampfac 1.25" 1 150 --random "${SIZES##* }" --accuracy "$ACC" \
      --steps "$STEPS" --upsampfac 1.25
  fi
  rm -f "$OUT/.mem"
  python3 - "$OUT/ewald_bench.jsonl" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
print("| run | N | ranks | rcut | modes | tol | real ms | nufft ms | modes ms | comm ms | transfer ms | step ms | ns/ion | first ms | GPU0 MiB | err pot | err force |")
print("| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    d = r["res"]
    if d is None:
        print(f"| {r['label']} | (failed or timed out: see ewald_bench.log) |"); continue
    m = "x".join(str(v) for v in d["modes"])
    e = lambda k: f"{d[k]:.1e}" if k in d else "-"
    print(f"| {r['label']} | {d['n']:.0e} | {d['ranks']} | {d['rcut']:.2f} | {m} | {d['nufft_tol']:.1e} | "
          f"{d['real_ms']:.1f} | {d['nufft_ms']:.1f} | {d['modes_ms']:.1f} | {d['comm_ms']:.1f} | "
          f"{d['transfer_ms']:.1f} | {d['total_ms']:.1f} | {d['ns_per_ion']:.1f} | {d['first_ms']:.0f} | "
          f"{r['gpu0_peak_mib']} | {e('err_potential')} | {e('err_force')} |")
EOF
fi
