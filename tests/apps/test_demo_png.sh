#!/usr/bin/env bash
# The quickstart's plot step (scripts/mtip_demo.sh, known orientations, one generation): it
# must print where the PNG is, and the PNG must be there, whatever python3 is on PATH (the plot
# runs in the shared venv of scripts/common.sh, made with pip on first use).
#   test_demo_png.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rm -rf "$work"
out=$(BUILD_DIR="$build" MTIP_DEMO_DIR="$work" MTIP_DEMO_MODE=known MTIP_GENERATIONS=1 \
      MTIP_NP=2 bash "$root/scripts/mtip_demo.sh" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
png=$(sed -n 's/^==> PNG of central slices: //p' <<<"$out")
[ -n "$png" ] || { echo "FAIL: the demo did not say where the PNG is"; exit 1; }
[ -s "$png" ] || { echo "FAIL: $png is missing or empty"; exit 1; }
head -c 8 "$png" | od -An -c | grep -q 'P   N   G' || { echo "FAIL: $png is not a PNG"; exit 1; }
echo "PNG ok: $png"
rm -rf "$work"
