#!/usr/bin/env bash
# Cases under the CUDA engine's environment knobs on the GPU machine: execute best/median,
# set_points, first and steady plan ms per setting and distribution. The default is the Q4 sweep (Q4 = P4 with
# clustered points, and P4; docs/performance.md section 18, "Q4's knobs"), Q4 twice. Run with
# the device tool:
#   bash scripts/device_q4_knobs.sh      (lines in $OUT/sweep.txt)
#   KNOB_CASES="P4 S22d-6" KNOBS="default NUFFTMP_CUDA_REFINE=0" PASSES=1 \
#     bash scripts/device_q4_knobs.sh    (other cases and knobs; "default" is no knob, a knob
#                                          of several settings joins them with '+')
#   NO_BUILD=1 BUILD=build-gpu ...       (after device_all.sh build: its build)
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
# shellcheck source-path=SCRIPTDIR source=device_cases.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_cases.sh"
device_session 300
[ "${NO_BUILD:-0}" = 1 ] || device_build  # NO_BUILD=1: $BUILD is built already
B="$BUILD/apps/nufftmp-bench"
[ -x "$B" ] || { echo "no $B (build it, or leave NO_BUILD unset)" >&2; exit 1; }
read -r -a cases <<< "${KNOB_CASES:-P4}"
read -r -a knobs <<< "${KNOBS:-default NUFFTMP_CUDA_MAXSUB=8192 NUFFTMP_CUDA_MAXSUB=6144 \
NUFFTMP_CUDA_MAXSUB=2048 NUFFTMP_CUDA_BINSIZE=16,16 NUFFTMP_CUDA_BINSIZE=8,8 \
NUFFTMP_CUDA_BINSIZE=64,16 NUFFTMP_CUDA_BINSIZE=16,64 NUFFTMP_CUDA_THREADS=128}"
for c in "${cases[@]}"; do
  read -r -a A <<< "$(case_flags "$c")"
  for pass in $(seq 1 "${PASSES:-2}"); do
    for e in "${knobs[@]}"; do
      env_set=()
      [ "$e" = default ] || IFS=+ read -r -a env_set <<< "$e"
      for d in cluster uniform; do
        [ "$pass" -ge 2 ] && [ "$d" = uniform ] && continue
        j=$(env ${env_set[@]+"${env_set[@]}"} timeout 60 "$B" "${A[@]}" --backend cuda --json \
            --n_runs 10 --dist "$d" 2>/dev/null | grep '^{' | tail -1)
        python3 -c "import json,sys; d=json.loads(sys.argv[1]); print('%s %s %-40s %-8s exec %.4f med %.4f setpts %.4f method %s plan %.3f steady %.3f'%(sys.argv[5],sys.argv[3],sys.argv[2],sys.argv[4],d['exec_ms'],d['exec_ms_median'],d['setpts_ms'],d['method'],d['plan_ms'],d['plan_steady_ms']))" \
          "$j" "$e" "$pass" "$d" "$c" 2>&1 | tee -a "$OUT/sweep.txt"
      done
    done
  done
done
