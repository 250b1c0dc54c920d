#!/usr/bin/env bash
# How far down in photons per image M-TIP still recovers orientations (issue 17): for each
# photons/image x images x assignment mode, simulate a data set (nufftmp-synth, the clustered
# molecule), reconstruct it from random orientations and print one table row: the final median
# orientation error against the truth (after the frame), the density and intensity
# correlations against the truth (in that frame: the reconstruction's quality, which can be
# high while many images sit at near-symmetry mates of their orientations, counted as
# errors: docs/performance.md section 4), the truth-free measures - the free
# correlation (with the ceiling a perfect model reaches at this noise) and the half-set FSC
# (mean over shells, resolution at 0.5) - the best generation, and the wall time per generation.
#
#   scripts/lowsignal.sh                                    CPU sizes of docs/performance.md
#   BUILD_DIR=build-gpu PHOTONS="100 30 10" IMAGES="10000 100000" scripts/lowsignal.sh
#
# Knobs (environment): BUILD_DIR (default <repo>/build), OUT (default $BUILD_DIR/lowsignal),
# PHOTONS (mean photons per image, list), IMAGES (list), MODES (list of: hard = least squares,
# best match (today's default); hard-poisson = Poisson likelihood, best match; soft-ls = least
# squares with Poisson weights, soft over the top SOFT_K; soft-poisson = EMC: Poisson
# likelihood, soft over the top SOFT_K at temperature TEMP), RUNS (instead of the product
# IMAGES x PHOTONS x MODES: "images:photons:mode ..." in the order to run), SIZE ("M side
# distance atoms sigma"), NREF, GENS, NP (ranks), SOFT_K, TEMP ("a,b"),
# EXTRA (more nufftmp-mtip flags), TIMEOUT (s per run), DEADLINE (s: start no run after it,
# and cut the last one there; default none), CPU=1 (force the CPU engine), SEED (data, 5),
# MTIP_MPIRUN_ARGS (mpirun's own flags, e.g. "--bind-to none": Open MPI binds a lone rank to
# one core, where all its OpenMP threads then share it).
# Each run's log is $OUT/<photons>_<images>_<mode>.log; the table is $OUT/table.md too. A run
# cut by its time limit reports the last generation it finished ("gen 6/8, timeout").
set -u
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$ROOT/build}"
OUT="${OUT:-$BUILD_DIR/lowsignal}"
PHOTONS="${PHOTONS:-3000 1000 300 100}"
IMAGES="${IMAGES:-2000}"
MODES="${MODES:-hard soft-poisson}"
read -r M SIDE DIST ATOMS SIGMA <<< "${SIZE:-21 24 0.045 30 0.6}"
NREF="${NREF:-5000}"
GENS="${GENS:-8}"
NP="${NP:-1}"
SOFT_K="${SOFT_K:-32}"
TEMP="${TEMP:-2,1}"
EXTRA="${EXTRA:-}"
TIMEOUT="${TIMEOUT:-1800}"
DEADLINE="${DEADLINE:-0}"
SEED="${SEED:-5}"
read -r -a mpirun_args <<< "${MTIP_MPIRUN_ARGS:-}"
began=$(date +%s)
# shellcheck source-path=SCRIPTDIR source=mtip_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/mtip_env.sh"
mtip_apps_env "$NP"
mkdir -p "$OUT"
engine=()
[ "${CPU:-0}" = 1 ] && engine=(--cpu)
npix=$(( SIDE * SIDE ))

table="$OUT/table.md"
{
  echo "| photons/image | images | mode | median orientation error (deg) | density corr | intensity corr (anisotropic) | free corr (ceiling) | half-set FSC mean | FSC 0.5 at (A) | best gen | s/generation |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} > "$table"
cat "$table"
# Seconds until DEADLINE (TIMEOUT when there is none), and the row of a run it left out.
time_left() {
  if [ "$DEADLINE" -gt 0 ]; then echo $(( DEADLINE - ($(date +%s) - began) )); else echo "$TIMEOUT"; fi
}
not_run() { echo "| $p | $n | $mode | not run (deadline) | | | | | | | |" | tee -a "$table"; }
runs=()
if [ -n "${RUNS:-}" ]; then
  read -r -a runs <<< "$RUNS"
else
  for n in $IMAGES; do
    for p in $PHOTONS; do
      for mode in $MODES; do runs+=("$n:$p:$mode"); done
    done
  done
fi
for run in "${runs[@]}"; do
  IFS=: read -r n p mode <<< "$run"
  case $mode in
    hard) flags=() ;;
    hard-poisson) flags=(--likelihood poisson) ;;
    soft-ls) flags=(--poisson-weights --soft-k "$SOFT_K" --soft-temp "$TEMP") ;;
    soft-poisson) flags=(--likelihood poisson --soft-k "$SOFT_K" --soft-temp "$TEMP") ;;
    *) echo "unknown mode $mode (in $run)"; continue ;;
  esac
  [ "$(time_left)" -le 10 ] && { not_run; continue; }
  data="$OUT/data_${p}_${n}.h5"
  fluence=$(awk -v p="$p" -v n="$npix" 'BEGIN { printf "%.6g", p / n }')
  if [ ! -f "$data" ]; then
    s0=$(date +%s.%N)
    "$SYNTH" --output "$data" --M "$M" --n-images "$n" --nx "$SIDE" --ny "$SIDE" \
      --distance "$DIST" --atoms "$ATOMS" --sigma "$SIGMA" --fluence "$fluence" --seed "$SEED" \
      "${engine[@]}" > "$OUT/synth_${p}_${n}.log" 2>&1 || { echo "synth failed: $data"; continue; }
    awk -v a="$s0" -v b="$(date +%s.%N)" 'BEGIN { printf "wall %.1f s\n", b - a }' \
      >> "$OUT/synth_${p}_${n}.log"
  fi
  log="$OUT/${p}_${n}_${mode}.log"
  left=$(time_left)
  [ "$left" -le 10 ] && { not_run; continue; }
  limit=$(( left < TIMEOUT ? left : TIMEOUT ))
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  timeout "$limit" mpirun -np "$NP" --oversubscribe "${mpirun_args[@]}" "$MTIP" --input "$data" \
    --output "$OUT/r_${p}_${n}_${mode}.h5" --generations "$GENS" --n-ref "$NREF" --overwrite \
    "${engine[@]}" "${flags[@]}" $EXTRA > "$log" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  # The last generation finished (all of them unless the run was cut).
  last=$(grep -E "^gen [0-9]+/$GENS:" "$log" | tail -1)
  done_gens=$(sed -n 's/^gen \([0-9]*\)\/.*/\1/p' <<< "$last")
  per=$(awk -v a="$t0" -v b="$t1" -v g="${done_gens:-0}" \
    'BEGIN { if (g > 0) printf "%.1f", (b - a) / g; else printf "-" }')
  err=$(sed -n 's/.*orientation error \([0-9.]*\) deg.*/\1/p' <<< "$last")
  dens=$(sed -n 's/.*, corr \([-0-9.]*\), intensity corr.*/\1/p' <<< "$last")
  inten=$(sed -n 's/.*intensity corr \([-0-9.]*\) (anisotropic \([-0-9.]*\)).*/\1 (\2)/p' <<< "$last")
  fsc=$(sed -n 's/.*half-set FSC \([-0-9.]*\) (0.5 at \([^ ]*\) A.*/\1 \2/p' <<< "$last")
  free=$(sed -n 's/.*free corr \([-0-9.]*\) (+-[0-9.]*, ceiling \([-0-9.]*\)).*/\1 (\2)/p' <<< "$last")
  best=$(sed -n 's/.*best generation \([0-9]*\).*/\1/p' "$log" | tail -1)
  # A cut run has no summary line: the last generation its free correlation marked best.
  [ -n "$best" ] || best=$(grep -E "^gen [0-9]+/$GENS:.*ceiling [-0-9.]*\) best" "$log" |
    tail -1 | sed -n 's/^gen \([0-9]*\)\/.*/\1/p')
  if [ $rc -ne 0 ]; then
    why="rc=$rc"
    [ $rc -eq 124 ] && why=timeout
    err="${err:+$err }(gen ${done_gens:-0}/$GENS, $why)"
  fi
  row="| $p | $n | $mode | ${err:--} | ${dens:--} | ${inten:--} | ${free:--} | ${fsc% *} | ${fsc#* } | ${best:--} | $per |"
  echo "$row" | tee -a "$table"
done
