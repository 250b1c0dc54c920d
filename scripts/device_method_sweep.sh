#!/usr/bin/env bash
# Issue 11's "the automatic method and bins stay the best choice with no flags": on the GPU
# machine, every case of compare.sh run with no flags (auto) and with each method, kernel
# variant and bin size a user could ask for, the fastest execute of each; the table says per
# case auto's time, the fastest candidate's and their ratio (a candidate counts only where its
# error is within 1.5x auto's: a faster kernel that misses the tolerance is no choice).
#   BENCH=build-gpu/apps/nufftmp-bench OUT=dir [CASES="P1 Q4 ..."] [NRUNS=5] [LIMIT_S=s] \
#     bash scripts/device_method_sweep.sh
# Writes $OUT/method_sweep.jsonl (one bench JSON line per run, with case and label) and prints
# the table (scripts/method_sweep_table.py). Stops starting runs when LIMIT_S (default 240) is
# spent; the table then covers the cases that ran.
set -u
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source-path=SCRIPTDIR source=device_cases.sh
source "$here/device_cases.sh"
B=${BENCH:-build-gpu/apps/nufftmp-bench}
OUT=${OUT:-$PWD/device-out}
NRUNS=${NRUNS:-5}
LIMIT_S=${LIMIT_S:-240}
mkdir -p "$OUT"
log=$OUT/method_sweep.jsonl
: > "$log"
all="P1 P2 P3 P4 P5 P6 P7 P8 Q1 Q2 Q3 Q4 Q5 Q6 Q7 Q8"
for p in f-3 f-6 d-6 d-12; do
  for t in 1 2; do all="$all S2$t${p%-*}-${p#*-} S3$t${p%-*}-${p#*-}"; done
done
t_start=$SECONDS

# Candidates of a case: "label method [ENV=VALUE...]".
candidates() {
  local name=$1 f dim type prec
  f=$(case_flags "$name")
  type=$(sed -E 's/.*--type ([12]).*/\1/' <<<"$f")
  prec=$(sed -E 's/.*--prec ([fd]).*/\1/' <<<"$f")
  dim=1
  [[ $f == *--N2* ]] && dim=2
  [[ $f == *--N3* ]] && dim=3
  echo "auto auto"
  echo "gm gm"
  echo "gm-sort gm-sort"
  if [ "$type" = 1 ]; then
    echo "sm sm"
    echo "output/tile output NUFFTMP_CUDA_VARIANT=tile"
    [ "$prec" = d ] && echo "output/fixed output NUFFTMP_CUDA_VARIANT=fixed"
    [ "$prec" = d ] && [ "$dim" -ge 2 ] && echo "output/rows output NUFFTMP_CUDA_VARIANT=rows"
    [ "$dim" -le 2 ] && echo "output/sweep output NUFFTMP_CUDA_VARIANT=sweep"
  else
    echo "sm/thread sm NUFFTMP_CUDA_VARIANT=thread"
    echo "sm/group sm NUFFTMP_CUDA_VARIANT=group"
    echo "sm/dealt sm NUFFTMP_CUDA_VARIANT=dealt"
    [ "$dim" -le 2 ] && echo "sm/sweep sm NUFFTMP_CUDA_VARIANT=sweep"
  fi
  # Bins other than the defaults, for the automatic method and variant.
  case $dim in
    1) for b in 512 2048 4096; do echo "auto/bins$b auto NUFFTMP_CUDA_BINSIZE=$b"; done ;;
    2) for b in 16,16 32,32 64,32 64,64; do echo "auto/bins$b auto NUFFTMP_CUDA_BINSIZE=$b"; done ;;
    3) for b in 4,4,8 8,8,8 8,8,4 16,8,8; do echo "auto/bins$b auto NUFFTMP_CUDA_BINSIZE=$b"; done ;;
  esac
}

for name in ${CASES:-$all}; do
  while read -r label meth envs; do
    [ $((SECONDS - t_start)) -ge "$LIMIT_S" ] && { echo "time limit: stopped at $name $label"; break 2; }
    args=()
    [ "$meth" != auto ] && args=(--method "$meth")
    # shellcheck disable=SC2046,SC2086  # case flags and env assignments are word lists
    line=$(env $envs timeout 60 "$B" $(case_flags "$name") --dist "$(case_dist "$name")" \
             --backend cuda --check --json --n_runs "$NRUNS" --plan_runs 1 "${args[@]}" 2>/dev/null |
           grep '^{' | tail -1)
    [ -z "$line" ] && line='{}'
    printf '{"case":"%s","label":"%s","res":%s}\n' "$name" "$label" "$line" >> "$log"
  done < <(candidates "$name")
done
python3 "$here/method_sweep_table.py" "$log"
