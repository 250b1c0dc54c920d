#!/usr/bin/env bash
# Q4 (and P4) knob sweep on the GPU machine: execute best/median and set_points ms per
# environment setting, two passes (docs/performance.md section 18). Run with the device tool:
#   bash scripts/device_q4_knobs.sh      ($OUT/sweep.txt)
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ! { cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
         -DNUFFTMP_MPI=OFF -DNUFFTMP_HDF5=OFF \
       && cmake --build build-gpu -j 16 --target nufftmp-bench; } > "$OUT/build.log" 2>&1; then
  tail -20 "$OUT/build.log"; exit 1
fi
B=build-gpu/apps/nufftmp-bench
A=(--prec f --type 2 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5 --backend cuda --json --n_runs 10)
for pass in 1 2; do
for e in "X=1" "NUFFTMP_CUDA_MAXSUB=8192" "NUFFTMP_CUDA_MAXSUB=6144" "NUFFTMP_CUDA_MAXSUB=2048" "NUFFTMP_CUDA_BINSIZE=16,16" "NUFFTMP_CUDA_BINSIZE=8,8" "NUFFTMP_CUDA_BINSIZE=64,16" "NUFFTMP_CUDA_BINSIZE=16,64" "NUFFTMP_CUDA_THREADS=128"; do
  for d in cluster uniform; do
    [ "$pass" = 2 ] && [ "$d" = uniform ] && continue
    # shellcheck disable=SC2086  # $e is one VAR=VALUE word
    j=$(env $e timeout 60 "$B" "${A[@]}" --dist "$d" 2>/dev/null | grep '^{' | tail -1)
    python3 -c "import json,sys; d=json.loads(sys.argv[1]); print('%s %-28s %-8s exec %.4f med %.4f setpts %.4f method %s'%(sys.argv[3],sys.argv[2],sys.argv[4],d['exec_ms'],d['exec_ms_median'],d['setpts_ms'],d['method']))" "$j" "$e" "$pass" "$d" 2>&1 | tee -a "$OUT/sweep.txt"
  done
done
done
