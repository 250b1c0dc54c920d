#!/usr/bin/env bash
# On the 2-GPU machine (device tool, kind nvidia-h200-x2): build the distributed layer with
# CUDA + NCCL, run its tests (CPU MPI tests and the GPU tests: 2 ranks on 2 GPUs, 4 ranks on
# 2 GPUs), then the weak-scaling benchmark (1 and 2 ranks) and 4 ranks on 2 GPUs, and plot.
# Logs under $OUT (8 files: dist_build.log, dist_ctest.log, scaling.jsonl, scaling.log,
# dist_weak.txt, dist_4on2.txt, dist_scaling_{efficiency,split}.png); a summary is printed last.
#   scripts/device_dist.sh [all|build|test|bench]...   (default: all)
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
{ nvidia-smi -L; nvidia-smi topo -m; echo "commit $(git rev-parse --short HEAD 2>/dev/null)"; } \
  > "$OUT/dist_build.log" 2>&1
head -3 "$OUT/dist_build.log"

if want build; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=ON -DNUFFTMP_HDF5=OFF \
    && cmake --build "$BUILD" -j "$JOBS" --target nufftmp_dist nufftmp-bench test_dist_partition \
         test_dist_status_logic test_dist_comm test_dist_plan test_dist_errors test_dist_gpu; } \
    >> "$OUT/dist_build.log" 2>&1
  echo "build rc=$? in $(( $(date +%s) - start )) s"
  grep -E "NCCL|error|FAILED" "$OUT/dist_build.log" | head -20
fi

if want test; then
  start=$(date +%s)
  (cd "$BUILD" && timeout 400 ctest -R test_dist --output-on-failure) > "$OUT/dist_ctest.log" 2>&1
  echo "dist tests rc=$? in $(( $(date +%s) - start )) s"
  grep -E "tests passed|Failed|FAILED|\*\*\*|Skipped|rank .* -> node|comm " "$OUT/dist_ctest.log" | head -30
fi

if want bench; then
  B="$BUILD/apps/nufftmp-bench"
  # Weak scaling 1 -> 2 GPUs on the suite's distributed cases.
  OUT="$OUT" BENCH="$B" RANKS="1 2" NRUNS=${NRUNS:-10} BACKEND=cuda RUN_LIMIT=120 \
    scripts/weak_scaling.sh 2 > "$OUT/dist_weak.txt" 2>&1
  # 4 ranks on 2 GPUs (two ranks per GPU: MPI inside a GPU, NCCL between GPUs).
  for type in 1 2; do
    timeout 120 mpirun -np 4 --oversubscribe "$B" --scaling weak --backend cuda --prec f \
      --type $type --N1 81 --N2 81 --N3 81 --M 8000000 --tol 1e-5 --n_runs 10 --check \
      >> "$OUT/dist_4on2.txt" 2>&1
  done
  python3 scripts/plot_scaling.py "$OUT/scaling.jsonl" -o "$OUT/dist_scaling" >> "$OUT/dist_weak.txt" 2>&1
  echo "--- 4 ranks on 2 GPUs"; tail -24 "$OUT/dist_4on2.txt"
  echo "--- weak scaling 1 -> 2 GPUs"; tail -12 "$OUT/dist_weak.txt"
fi
