# shellcheck shell=bash
# The benchmark cases of ../shared/anchors/compare.sh, once for the device scripts (sourced):
#   case_flags NAME   nufftmp-bench / cuperftest flags of case NAME
#   case_cells NAME   CLUSTER_CELLS of the case: 8 for Qn (Pn with clustered points), else 0
#   case_dist NAME    --dist value of the case: uniform or cluster
# P1-P8: the public suite; Sdt<p>-<e>: the sweep, d = dimension, t = type, p = f|d, tol 1e-<e>.
declare -A NUFFTMP_CASES=(
  [P1]="--prec f --type 1 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5"
  [P2]="--prec f --type 2 --N1 128 --N2 128 --N3 128 --M 16777216 --tol 1e-5"
  [P3]="--prec f --type 1 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5"
  [P4]="--prec f --type 2 --N1 2048 --N2 2048 --M 16777216 --tol 1e-5"
  [P5]="--prec d --type 1 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9"
  [P6]="--prec d --type 2 --N1 64 --N2 64 --N3 64 --M 2097152 --tol 1e-9"
  [P7]="--prec f --type 1 --N1 10000000 --M 20000000 --tol 1e-5"
  [P8]="--prec f --type 2 --N1 10000000 --M 20000000 --tol 1e-5"
)
for t in 1 2; do
  for p in f d; do
    for e in 3 6 9 12; do
      NUFFTMP_CASES[S2$t$p-$e]="--prec $p --type $t --N1 1024 --N2 1024 --M 4194304 --tol 1e-$e"
      NUFFTMP_CASES[S3$t$p-$e]="--prec $p --type $t --N1 96 --N2 96 --N3 96 --M 7077888 --tol 1e-$e"
    done
  done
done
unset t p e
case_flags() {
  local name=$1
  [[ $name == Q* ]] && name=P${name#Q}
  echo "${NUFFTMP_CASES[$name]}"
}
case_cells() { [[ $1 == Q* ]] && echo 8 || echo 0; }
case_dist() { [[ $1 == Q* ]] && echo cluster || echo uniform; }
