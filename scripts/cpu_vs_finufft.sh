#!/usr/bin/env bash
# The CPU engine against FINUFFT 2.6's perftest (../shared/anchors/finufft-perftest.xz) on this
# machine: plan, set_points and execute of both, case by case, best of REPS interleaved runs
# (the machine is shared: the best run is the least disturbed one; the load is printed).
#
#   scripts/cpu_vs_finufft.sh [build dir] [finufft-perftest]
#   environment: REPS=3 (interleaved runs), NRUNS=10 (set_points + execute per run),
#   THREADS=0 (both codes' OpenMP threads, 0: all), CASES=... (one case a line, as below),
#   BASELINE=<another build dir> (e.g. of main: run interleaved with the two others, its set_points
#   and execute printed as "before", its ratios to FINUFFT and its set_points + execute in the
#   last columns)
# setpts+exec: nufftmp's best set_points + the execute right after it (what new points cost);
#   FINUFFT's min setpts + min execute.
#
# nufftmp: scripts/cpu_setpts_timing.cpp (built here against <build>/src/core/libnufftmp):
#   setpts = best repeated set_points on one plan, setpts1 = the first on a fresh plan,
#   plan1 = first plan of its shape in the process, plan = a later plan of that shape.
# FINUFFT: perftest --n_runs NRUNS (one plan, setpts + execute ten times): its min setpts and
#   execute (each after a setpts; it keeps no folded coordinates between executes); mean
#   setpts includes the first call. nufftmp exec2: an execute right after another on the same
#   points (the fold cache); the exec ratio is of exec (the first after set_points). Its
#   upsampfac is 2 unless FINUFFT_SIGMA says otherwise (0: its automatic choice); nufftmp's is
#   its default, the cost model's sigma in [1.25, 2] (2 for the 3D and 2D double rows below,
#   ~1.26 for 2D float, ~1.31 for 1D double), unless UPSAMPFAC=<sigma> fixes it (the driver
#   reads it from the environment). It has no clustered points, and
#   it refuses (and its perftest crashes on) float tolerances near its rounding floor, e.g.
#   1e-5 in 1D and 2D at upsampfac 2: those rows show "-".
# Ratios: nufftmp's time over FINUFFT's (below 1: nufftmp is faster); plan per mode: the
# steady plan's ns per Fourier mode.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
FINUFFT=${2:-/tmp/finufft-perftest}
REPS=${REPS:-3}
SIGMA=${FINUFFT_SIGMA:-2}
NRUNS=${NRUNS:-10}
THREADS=${THREADS:-0}
# prec type dim N M tol dist
CASES=${CASES:-"f 1 3 64 1e6 1e-5 uniform
f 2 3 64 1e6 1e-5 uniform
d 1 3 64 1e6 1e-9 uniform
d 2 3 64 1e6 1e-9 uniform
f 1 2 512 1e6 1e-4 uniform
f 2 2 512 1e6 1e-4 uniform
d 1 2 512 1e6 1e-9 uniform
d 2 2 512 1e6 1e-9 uniform
d 1 1 262144 1e6 1e-9 uniform
d 2 1 262144 1e6 1e-9 uniform
d 1 1 1e7 1e6 1e-9 uniform
f 1 3 64 1e6 1e-5 cluster
d 1 2 512 1e6 1e-9 cluster"}

if [[ ! -x $FINUFFT ]]; then
  xz -dc ../shared/anchors/finufft-perftest.xz > "$FINUFFT" && chmod +x "$FINUFFT"
fi
driver() {  # the timing driver linked against build dir $1
  local dir
  dir=$(cd "$1" && pwd)
  g++ -O2 -std=c++17 -Iinclude scripts/cpu_setpts_timing.cpp -o "$dir/cpu_setpts_timing" \
      -L"$dir/src/core" -lnufftmp -Wl,-rpath,"$dir/src/core"
  echo "$dir/cpu_setpts_timing"
}
DRIVER=$(driver "$BUILD")
BASE_DRIVER=${BASELINE:+$(driver "$BASELINE")}

best() { sort -g | head -1; }
field() { sed -n "s/.*\"$1\":\([-0-9.e+]*\).*/\1/p"; }

echo "# $(date -u +%Y-%m-%dT%H:%MZ) commit $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty)," \
     "$(nproc) cores, threads ${THREADS/#0/all}, REPS=$REPS NRUNS=$NRUNS, load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| case | nufftmp plan1 / plan ms | plan ns/mode | nufftmp setpts1 / setpts ms | FINUFFT makeplan ms | FINUFFT setpts min (mean) ms | setpts ratio | nufftmp exec / exec2 ms | FINUFFT exec ms | exec ratio | setpts+exec ms: nufftmp / FINUFFT |${BASELINE:+ before: setpts / exec / exec2 ms | before: setpts / exec ratio | before: setpts+exec ms |}"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |${BASELINE:+ --- | --- | --- |}"
while read -r prec type dim N M tol dist; do
  [[ -z $prec ]] && continue
  out=$(mktemp -d)
  run_driver() {  # driver $1, output file $2
    if [[ $THREADS -gt 0 ]]; then
      OMP_NUM_THREADS=$THREADS "$1" "$prec" "$type" "$dim" "$N" "$M" "$tol" "$dist" "$NRUNS" >> "$2"
    else
      "$1" "$prec" "$type" "$dim" "$N" "$M" "$tol" "$dist" "$NRUNS" >> "$2"
    fi
  }
  for ((r = 0; r < REPS; ++r)); do
    [[ -n $BASE_DRIVER ]] && run_driver "$BASE_DRIVER" "$out/before"
    run_driver "$DRIVER" "$out/nufftmp"
    if [[ $dist == uniform ]]; then
      args=(--prec "$prec" --type "$type" --N1 "$N" --M "$M" --tol "$tol" --n_runs "$NRUNS" --upsampfact "$SIGMA")
      [[ $THREADS -gt 0 ]] && args+=(--threads "$THREADS")
      [[ $dim -ge 2 ]] && args+=(--N2 "$N")
      [[ $dim -ge 3 ]] && args+=(--N3 "$N")
      # through sh, so that a crash of perftest is reported on sh's silenced stderr
      sh -c '"$0" "$@" 2> /dev/null; exit $?' "$FINUFFT" "${args[@]}" >> "$out/finufft" 2> /dev/null || true
    fi
  done
  n() { field "$1" < "$out/nufftmp" | best; }
  b() { field "$1" < "$out/before" | best; }
  fin() {  # column $2 of FINUFFT's row $1, best over the runs
    [[ -s $out/finufft ]] && grep "^$1," "$out/finufft" | cut -d, -f"$2" | best || echo "-"
  }
  ratio() { [[ $2 == - || -z $2 ]] && echo "-" || awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
  fset=$(fin setpts 5) fexe=$(fin execute 5)
  extra=""
  [[ -n $BASE_DRIVER ]] && extra=" $(b setpts_ms) / $(b exec_ms) / $(b exec2_ms) | $(ratio "$(b setpts_ms)" "$fset") / $(ratio "$(b exec_ms)" "$fexe") | $(b setpts_exec_ms) |"
  # FINUFFT's sum: its min set_points + its min execute (the perftest prints no per-run pairs)
  fsum=$([[ $fset == - ]] && echo - || awk -v a="$fset" -v b="$fexe" 'BEGIN { printf "%.2f", a + b }')
  printf "| %s %sD t%s N=%s M=%s tol=%s %s | %.2f / %.2f | %.2f | %.2f / %.2f | %s | %s (%s) | %s | %.2f / %.2f | %s | %s | %.2f / %s |%s\n" \
    "$prec" "$dim" "$type" "$N" "$M" "$tol" "$dist" "$(n plan_first_ms)" "$(n plan_steady_ms)" \
    "$(awk -v p="$(n plan_steady_ms)" -v m="$(field modes < "$out/nufftmp" | head -1)" 'BEGIN { print 1e6 * p / m }')" \
    "$(n setpts_first_ms)" "$(n setpts_ms)" "$(fin makeplan 5)" "$fset" "$(fin setpts 4)" \
    "$(ratio "$(n setpts_ms)" "$fset")" "$(n exec_ms)" "$(n exec2_ms)" "$fexe" "$(ratio "$(n exec_ms)" "$fexe")" "$(n setpts_exec_ms)" "$fsum" "$extra"
  rm -rf "$out"
done <<< "$CASES"
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
