#!/usr/bin/env bash
# How far down in photons per image M-TIP still recovers orientations (issue 17): for each
# photons/image x images x assignment mode, simulate a data set (nufftmp-synth, the clustered
# molecule), reconstruct it from random orientations and print one table row: the final median
# orientation error against the truth (after the frame), the truth-free measures - the free
# correlation (with the ceiling a perfect model reaches at this noise) and the half-set FSC
# (mean over shells, resolution at 0.5) - the best generation, and the wall time per generation.
#
#   scripts/lowsignal.sh                                    CPU sizes of docs/performance.md
#   BUILD_DIR=build-gpu PHOTONS="100 30 10" IMAGES="10000 100000" scripts/lowsignal.sh
#
# Knobs (environment): BUILD_DIR (default <repo>/build), OUT (default $BUILD_DIR/lowsignal),
# PHOTONS (mean photons per image, list), IMAGES (list), MODES (list of: hard = least squares,
# best match (today's default); hard-poisson = Poisson likelihood, best match; soft-ls = least
# squares with Poisson weights, soft over the top SOFT_K; soft-poisson = EMC: Poisson likelihood, soft over the top SOFT_K at temperature
# TEMP), SIZE ("M side distance atoms sigma"), NREF, GENS, NP (ranks), SOFT_K, TEMP ("a,b"),
# EXTRA (more nufftmp-mtip flags), TIMEOUT (s per run), DEADLINE (s: start no run after it,
# and cut the last one there; default none), CPU=1 (force the CPU engine), SEED (data, 5).
# Each run's log is $OUT/<photons>_<images>_<mode>.log; the table is $OUT/table.md too.
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
  echo "| photons/image | images | mode | median orientation error (deg) | free corr (ceiling) | half-set FSC mean | FSC 0.5 at (A) | best gen | s/generation |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} > "$table"
cat "$table"
for n in $IMAGES; do
  for p in $PHOTONS; do
    data="$OUT/data_${p}_${n}.h5"
    fluence=$(awk -v p="$p" -v n="$npix" 'BEGIN { printf "%.6g", p / n }')
    if [ ! -f "$data" ]; then
      "$SYNTH" --output "$data" --M "$M" --n-images "$n" --nx "$SIDE" --ny "$SIDE" \
        --distance "$DIST" --atoms "$ATOMS" --sigma "$SIGMA" --fluence "$fluence" --seed "$SEED" \
        "${engine[@]}" > "$OUT/synth_${p}_${n}.log" 2>&1 || { echo "synth failed: $data"; continue; }
    fi
    for mode in $MODES; do
      case $mode in
        hard) flags=() ;;
        hard-poisson) flags=(--likelihood poisson) ;;
        soft-ls) flags=(--poisson-weights --soft-k "$SOFT_K" --soft-temp "$TEMP") ;;
        soft-poisson) flags=(--likelihood poisson --soft-k "$SOFT_K" --soft-temp "$TEMP") ;;
        *) echo "unknown mode $mode"; continue ;;
      esac
      log="$OUT/${p}_${n}_${mode}.log"
      limit=$TIMEOUT
      if [ "$DEADLINE" -gt 0 ]; then
        left=$(( DEADLINE - ($(date +%s) - began) ))
        if [ $left -le 10 ]; then echo "| $p | $n | $mode | not run (deadline) | | | | | |" | tee -a "$table"; continue; fi
        [ $left -lt "$limit" ] && limit=$left
      fi
      t0=$(date +%s.%N)
      # shellcheck disable=SC2086
      timeout "$limit" mpirun -np "$NP" --oversubscribe "$MTIP" --input "$data" \
        --output "$OUT/r_${p}_${n}_${mode}.h5" --generations "$GENS" --n-ref "$NREF" --overwrite \
        "${engine[@]}" "${flags[@]}" $EXTRA > "$log" 2>&1
      rc=$?
      t1=$(date +%s.%N)
      per=$(awk -v a="$t0" -v b="$t1" -v g="$GENS" 'BEGIN { printf "%.1f", (b - a) / g }')
      last=$(grep -E "^gen $GENS/$GENS" "$log" | tail -1)
      err=$(sed -n 's/.*orientation error \([0-9.]*\) deg.*/\1/p' <<< "$last")
      fsc=$(sed -n 's/.*half-set FSC \([-0-9.]*\) (0.5 at \([^ ]*\) A.*/\1 \2/p' <<< "$last")
      free=$(sed -n 's/.*free corr \([-0-9.]*\) (+-[0-9.]*, ceiling \([-0-9.]*\)).*/\1 (\2)/p' <<< "$last")
      best=$(sed -n 's/.*best generation \([0-9]*\).*/\1/p' "$log" | tail -1)
      [ $rc -eq 0 ] || err="failed rc=$rc"
      row="| $p | $n | $mode | ${err:--} | ${free:--} | ${fsc% *} | ${fsc#* } | ${best:--} | $per |"
      echo "$row" | tee -a "$table"
    done
  done
done
