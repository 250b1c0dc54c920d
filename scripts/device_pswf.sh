#!/usr/bin/env bash
# On the GPU machine (device tool), issue 11's kernel and accuracy part: build, the GPU tolerance
# sweep and accuracy tests, and the P1-P8 + sweep cases of ../shared/benchmarks.md with the
# default options (PSWF, upsampfac chosen; P1-P8 also with the ES kernel at the old default,
# sigma 2),
# then a few problems at sigma 1.25 / 1.5 / 2 that check the CUDA cost model's choice.
# About 7 minutes on one H200 (build ~1 min with 16 jobs). Logs under $OUT; summary last.
#   scripts/device_pswf.sh [all|build|test|bench|calib]...   (default: all)
set -u
# shellcheck source-path=SCRIPTDIR source=device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/device_common.sh"
echo "commit $(git rev-parse --short HEAD 2>/dev/null) $(date -u +%FT%TZ)" | tee "$OUT/pswf_info.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$OUT/pswf_info.txt" 2>&1

if want build; then
  start=$(date +%s)
  { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
      -DNUFFTMP_MPI=OFF -DNUFFTMP_HDF5=OFF \
    && cmake --build "$BUILD" -j "$JOBS" --target nufftmp nufftmp-bench test_cuda_tolerance_sweep \
         test_cuda_accuracy; } > "$OUT/pswf_build.log" 2>&1
  echo "build rc=$? in $(( $(date +%s) - start )) s"; grep -E "error|FAILED" "$OUT/pswf_build.log" | head -20
fi

if want test; then
  start=$(date +%s)
  (cd "$BUILD" && timeout 420 ctest -L gpu -R "test_cuda_(tolerance_sweep|accuracy)" --output-on-failure) \
    > "$OUT/pswf_ctest.log" 2>&1
  echo "gpu tests rc=$? in $(( $(date +%s) - start )) s"
  grep -E "tests passed|Failed|FAILED|\*\*\*" "$OUT/pswf_ctest.log" | head -30
  # The worst error / bound of the sweep (verbose rerun of the sweep only: ~10 s).
  NUFFTMP_TEST_VERBOSE=1 timeout 120 "$BUILD/tests/core/cuda/test_cuda_tolerance_sweep" \
    > "$OUT/pswf_sweep_verbose.log" 2>&1
  awk '/ err .* bound /{r=$3/$5*3; print r, $1, $3}' "$OUT/pswf_sweep_verbose.log" | sort -gr \
    | head -8 | awk '{printf "  err / max(tol, floor) %.2f  %s err %s\n", $1, $2, $3}'
fi

B="$BUILD/apps/nufftmp-bench"
run() {  # label file args...
  local label=$1 file=$2; shift 2
  local line
  line=$(timeout "${RUN_LIMIT:-40}" "$B" --backend cuda --n_runs "${NRUNS:-10}" --json "$@" \
           2>>"$OUT/pswf_bench.err" | grep '^{' | tail -1)
  echo "{\"case\":\"$label\",\"res\":${line:-null}}" >> "$file"
}

if want bench; then
  : > "$OUT/pswf_bench.jsonl"
  cases="P1,f,1,128,128,128,16777216,1e-5 P2,f,2,128,128,128,16777216,1e-5
P3,f,1,2048,2048,1,16777216,1e-5 P4,f,2,2048,2048,1,16777216,1e-5
P5,d,1,64,64,64,2097152,1e-9 P6,d,2,64,64,64,2097152,1e-9
P7,f,1,10000000,1,1,20000000,1e-5 P8,f,2,10000000,1,1,20000000,1e-5"
  for pt in "f 1e-3" "f 1e-6" "d 1e-6" "d 1e-12"; do set -- $pt
    for t in 1 2; do
      cases="$cases S2$t$1${2#1e},$1,$t,1024,1024,1,4194304,$2 S3$t$1${2#1e},$1,$t,96,96,96,7077888,$2"
    done
  done
  for c in $cases; do
    IFS=, read -r name p t n1 n2 n3 m tol <<<"$c"
    a="--prec $p --type $t --N1 $n1 --N2 $n2 --N3 $n3 --M $m --tol $tol --check"
    run "$name pswf auto" "$OUT/pswf_bench.jsonl" $a
    case $name in P*) run "$name es 2" "$OUT/pswf_bench.jsonl" $a --kernel es --upsampfac 2;; esac
  done
fi

if want calib; then
  # Does the CUDA model pick the fastest sigma? Dense (density 1) and sparse problems.
  : > "$OUT/pswf_calib.jsonl"
  for c in "3D-dense,f,1,128,128,128,16777216,1e-5" "3D-sparse,f,1,128,128,128,100000,1e-5" \
           "2D-dense,d,2,1024,1024,1,4194304,1e-9" "2D-sparse,d,2,1024,1024,1,40000,1e-9" \
           "1D-dense,f,1,10000000,1,1,20000000,1e-5" "1D-sparse,f,2,10000000,1,1,200000,1e-5" \
           "3D-mid,d,1,96,96,96,700000,1e-6"; do
    IFS=, read -r name p t n1 n2 n3 m tol <<<"$c"
    for s in 0 1.25 1.5 2; do
      run "$name $s" "$OUT/pswf_calib.jsonl" --prec $p --type $t --N1 $n1 --N2 $n2 --N3 $n3 --M $m \
        --tol $tol --upsampfac $s
    done
  done
fi

python3 - "$OUT" <<'PY'
import json, os, sys
out = sys.argv[1]
def table(name, header, cells):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return
    print("\n| " + " | ".join(header) + " |\n|" + " --- |" * len(header))
    for r in (json.loads(l) for l in open(path)):
        d = r["res"] or {}
        f = lambda k, fmt="%s": (fmt % d[k]) if k in d else ""
        print("| " + " | ".join([r["case"].split(" ", 1)[0], r["case"].split(" ", 1)[1]] + cells(d, f)) + " |")
table("pswf_bench.jsonl", ["case", "kernel, sigma asked", "w", "sigma", "exec ms (best)", "rel err", "tol"],
      lambda d, f: [f("w"), f("upsampfac"), f("exec_ms", "%.3f"), f("rel_err", "%.2e"), f("tol")])
table("pswf_calib.jsonl", ["problem", "sigma asked", "sigma", "w", "exec ms (best)"],
      lambda d, f: [f("upsampfac"), f("w"), f("exec_ms", "%.3f")])
PY
