#!/usr/bin/env bash
# The CPU engine against FINUFFT 2.6's perftest (../shared/anchors/finufft-perftest.xz) on this
# machine: plan, set_points and execute of both, case by case, best of REPS interleaved runs
# (the machine is shared: the best run is the least disturbed one; the load is printed).
#
#   scripts/cpu_vs_finufft.sh [build dir] [finufft-perftest]      (REPS=3 CASES=... to change)
#
# nufftmp: scripts/cpu_setpts_timing.cpp (built here against <build>/src/core/libnufftmp):
#   setpts = best repeated set_points on one plan, setpts1 = the first on a fresh plan,
#   plan1 = first plan of its shape in the process, plan = a later plan of that shape.
# FINUFFT: perftest --n_runs 10 (one plan, setpts + execute ten times): its min setpts and
#   execute; mean setpts includes the first call. Its upsampfac is 2 (as nufftmp's) unless
#   FINUFFT_SIGMA says otherwise (0: its automatic choice). It has no clustered points.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
FINUFFT=${2:-/tmp/finufft-perftest}
REPS=${REPS:-3}
SIGMA=${FINUFFT_SIGMA:-2}
# prec type dim N M tol dist
CASES=${CASES:-"f 1 3 64 1e6 1e-4 uniform
f 2 3 64 1e6 1e-4 uniform
d 1 3 64 1e6 1e-9 uniform
f 1 3 64 1e7 1e-4 uniform
f 1 2 256 1e6 1e-4 uniform
f 2 2 256 1e6 1e-4 uniform
d 1 2 256 1e6 1e-9 uniform
f 1 2 256 1e7 1e-4 uniform
d 1 1 1e6 1e6 1e-9 uniform
f 1 1 1e7 1e6 1e-4 uniform
f 1 3 64 1e6 1e-4 cluster
d 1 2 256 1e6 1e-9 cluster"}

if [[ ! -x $FINUFFT ]]; then
  xz -dc ../shared/anchors/finufft-perftest.xz > "$FINUFFT" && chmod +x "$FINUFFT"
fi
DRIVER=$BUILD/cpu_setpts_timing
g++ -O2 -std=c++17 -Iinclude scripts/cpu_setpts_timing.cpp -o "$DRIVER" \
    -L"$BUILD/src/core" -lnufftmp -Wl,-rpath,"$PWD/$BUILD/src/core"

best() { sort -g | head -1; }
field() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p"; }

echo "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty)," \
     "$(nproc) cores, load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| case | nufftmp plan1 / plan ms | nufftmp setpts1 / setpts ms | FINUFFT makeplan ms | FINUFFT setpts min (mean) ms | nufftmp exec ms | FINUFFT exec ms |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
while read -r prec type dim N M tol dist; do
  [[ -z $prec ]] && continue
  out=$(mktemp -d)
  for ((r = 0; r < REPS; ++r)); do
    "$DRIVER" "$prec" "$type" "$dim" "$N" "$M" "$tol" "$dist" 10 >> "$out/nufftmp"
    if [[ $dist == uniform ]]; then
      args=(--prec "$prec" --type "$type" --N1 "$N" --M "$M" --tol "$tol" --n_runs 10 --upsampfact "$SIGMA")
      [[ $dim -ge 2 ]] && args+=(--N2 "$N")
      [[ $dim -ge 3 ]] && args+=(--N3 "$N")
      "$FINUFFT" "${args[@]}" 2> /dev/null >> "$out/finufft" || true
    fi
  done
  n() { field "$1" < "$out/nufftmp" | best; }
  fin() {  # column $2 of FINUFFT's row $1, best over the runs
    [[ -s $out/finufft ]] && grep "^$1," "$out/finufft" | cut -d, -f"$2" | best || echo "-"
  }
  printf "| %s %sD t%s N=%s M=%s tol=%s %s | %.2f / %.2f | %.2f / %.2f | %s | %s (%s) | %.2f | %s |\n" \
    "$prec" "$dim" "$type" "$N" "$M" "$tol" "$dist" "$(n plan_first_ms)" "$(n plan_steady_ms)" \
    "$(n setpts_first_ms)" "$(n setpts_ms)" "$(fin makeplan 5)" "$(fin setpts 5)" "$(fin setpts 4)" \
    "$(n exec_ms)" "$(fin execute 5)"
  rm -rf "$out"
done <<< "$CASES"
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
