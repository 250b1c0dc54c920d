#!/usr/bin/env bash
# Weak (or strong) scaling series of nufftmp-bench: the same case run with 1..P MPI ranks,
# one JSON line per rank count and scope (see apps/bench/run_distributed.cpp), for
# scripts/plot_scaling.py.
#
#   scripts/weak_scaling.sh P [bench flags...]
#
# With bench flags, runs that one case (named "custom"); without, the distributed suite of
# ../shared/benchmarks.md: P1 (3D type 1) and P2 (3D type 2), float, 128^3, 2^24 points per
# rank, and the M-TIP pair (3D type 1 and 2, 81^3, 3.3e7 points per rank).
# Environment:
#   SCALING=weak|strong   (default weak: --M is per rank; strong: --M is the total)
#   RANKS="1 2 4"         rank counts (default 1 2 ... P)
#   BENCH=path            nufftmp-bench (default build/apps/nufftmp-bench)
#   OUT=dir               where scaling.jsonl and the logs go (default ./scaling-out)
#   MPIRUN="mpirun"       launcher; MPIRUN_FLAGS extra flags (default --oversubscribe)
#   NRUNS=10              timed executes per run; BACKEND=auto|cpu|cuda (default auto)
#   RUN_LIMIT=300         seconds allowed per run
set -u
P=${1:?usage: $0 P [bench flags...]}
shift
SCALING=${SCALING:-weak}
BENCH=${BENCH:-build/apps/nufftmp-bench}
OUT=${OUT:-$PWD/scaling-out}
MPIRUN=${MPIRUN:-mpirun}
MPIRUN_FLAGS=${MPIRUN_FLAGS:---oversubscribe}
NRUNS=${NRUNS:-10}
BACKEND=${BACKEND:-auto}
RUN_LIMIT=${RUN_LIMIT:-300}
RANKS=${RANKS:-$(seq -s ' ' 1 "$P")}
mkdir -p "$OUT"
JSON="$OUT/scaling.jsonl"
LOG="$OUT/scaling.log"
: > "$JSON"
: > "$LOG"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} \
       OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1} \
       PMIX_MCA_pcompress_base_silence_warning=1 NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
[ -x "$BENCH" ] || { echo "error: $BENCH not found (build nufftmp-bench first, or set BENCH)" >&2; exit 2; }

run_case() {  # name flags...
  local name=$1; shift
  local n rc
  for n in $RANKS; do
    echo "== $name, $n ranks ($SCALING)" | tee -a "$LOG"
    # --json: the lines go to the series with the case's name added; errors go to the log.
    timeout "$RUN_LIMIT" $MPIRUN -np "$n" $MPIRUN_FLAGS "$BENCH" --scaling "$SCALING" \
        --backend "$BACKEND" --n_runs "$NRUNS" --json "$@" 2>>"$LOG" \
      | sed "s/^{/{\"case\":\"$name\",/" | tee -a "$JSON" | grep '"scope":"total"' >> "$LOG"
    rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || echo "   $name with $n ranks failed (rc $rc), see $LOG" | tee -a "$LOG"
  done
}

if [ $# -gt 0 ]; then
  run_case custom "$@"
else
  run_case P1 --prec f --type 1 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5
  run_case P2 --prec f --type 2 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5
  run_case MTIP1 --prec f --type 1 --N1 81 --N2 81 --N3 81 --M 33000000 --tol 1e-5
  run_case MTIP2 --prec f --type 2 --N1 81 --N2 81 --N3 81 --M 33000000 --tol 1e-5
fi

# Summary: case, ranks, execute time, compute/comm split, efficiency.
python3 - "$JSON" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if '"scope":"total"' in l]
print(f"{'case':8} {'mode':6} {'ranks':>5} {'exec ms':>10} {'compute':>10} {'comm':>10} {'pts/s':>11} {'eff':>6}")
for r in rows:
    eff = r.get("efficiency")
    print(f"{r['case']:8} {r['mode']:6} {r['ranks']:5d} {r['exec_ms']:10.3f} {r['compute_ms']:10.3f} "
          f"{r['comm_ms']:10.3f} {r['exec_pts_per_s']:11.4g} {eff if eff is not None else float('nan'):6.3f}")
PY
echo "series: $JSON"
