#!/usr/bin/env bash
# M-TIP demo: simulate a small single-particle data set (nufftmp-synth) and reconstruct it with
# `mpirun -np 2 nufftmp-mtip` (GPUs when present and built, else the CPU engine), printing the
# per-generation progress, the final correlation with the ground truth and the PNG path.
#
#   scripts/mtip_demo.sh                 the whole loop from random orientations: matching,
#                                        merging, phasing (about 1.5 minutes on 2 CPU cores)
#   MTIP_DEMO_MODE=known scripts/mtip_demo.sh
#                                        known orientations: merging + phasing only (seconds)
# Knobs: BUILD_DIR (default <repo>/build), MTIP_DEMO_DIR (default $BUILD_DIR/mtip_demo),
#        MTIP_NP (ranks, default 2), MTIP_GENERATIONS, MTIP_DEMO_SEED (the simulated data
#        set's seed, default 11), MTIP_ARGS (extra nufftmp-mtip flags), NUFFTMP_PYTHON (the
#        interpreter of the plot; default: $BUILD_DIR/venv with numpy, h5py and matplotlib,
#        made on first use).
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ROOT="$NUFFTMP_ROOT"
OUT="${MTIP_DEMO_DIR:-$BUILD_DIR/mtip_demo}"
NP="${MTIP_NP:-2}"
MODE="${MTIP_DEMO_MODE:-full}"
# shellcheck source-path=SCRIPTDIR source=mtip_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/mtip_env.sh"
mtip_apps_env "$NP"  # each rank gets its share of the cores
mkdir -p "$OUT"

gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then gpu=1; fi
if [ "$gpu" = 1 ]; then
  # Sizes for a GPU: more images, a larger lattice and detector.
  size=(--M 41 --n-images 2000 --nx 48 --ny 48 --pixel-size 1.333e-3 --atoms 120)
  # The reference spacing must resolve the speckles at the detector's edge (about 2 / M rad):
  # (41 / 33)^3 times the CPU size's 20000.
  nref=40000
else
  size=(--M 33 --n-images 400 --nx 32 --ny 32 --atoms 60)
  nref=20000
fi

echo "==> simulating: ${size[*]} (engine: $([ "$gpu" = 1 ] && echo GPU || echo CPU))"
# --overwrite: the demo replaces its own files of an earlier run.
"$SYNTH" --output "$OUT/data.h5" "${size[@]}" --fluence 100 --seed "${MTIP_DEMO_SEED:-11}" \
  --overwrite

if [ "$MODE" = full ]; then
  gens="${MTIP_GENERATIONS:-10}"
  mode_args=(--n-ref "$nref")
  echo "==> reconstructing from random orientations: $gens generations, $nref reference orientations, $NP ranks"
else
  gens="${MTIP_GENERATIONS:-3}"
  mode_args=(--known-orientations)
  echo "==> reconstructing with known orientations: $gens generations, $NP ranks"
fi
# shellcheck disable=SC2086  # MTIP_ARGS is a list of words on purpose
mpirun -np "$NP" --oversubscribe "$MTIP" --input "$OUT/data.h5" --output "$OUT/result.h5" \
  --generations "$gens" --overwrite "${mode_args[@]}" ${MTIP_ARGS:-} | tee "$OUT/mtip.log"

# The plot needs numpy, h5py and matplotlib in the interpreter that runs it: the shared venv
# has them (scripts/common.sh), whatever python3 is on PATH.
png="$OUT/result.png"
py="${NUFFTMP_PYTHON:-}"
if [ -z "$py" ]; then py="$(nufftmp_python_venv numpy h5py matplotlib)" || py=""; fi
rm -f "$png"
if [ -n "$py" ] && "$py" "$ROOT/scripts/plot_mtip.py" "$OUT/result.h5" -o "$png" >/dev/null &&
   [ -s "$png" ]; then
  echo "==> PNG of central slices: $png"
else
  echo "==> no PNG: plot_mtip.py needs a Python with numpy, h5py and matplotlib" \
       "(${py:-none found}; set NUFFTMP_PYTHON); results in $OUT/result.h5"
fi
