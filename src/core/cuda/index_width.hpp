// Which integer width set_points' bin sort uses for its ranks, bin offsets, subproblem offsets
// and the sort permutation. Pure host logic (no CUDA): unit-tested on any machine.
//
// 32 bits halve the memory traffic of the rank and permutation arrays (written scattered, read
// by every execute) and suffice whenever every value stays below 2^31: ranks and offsets are
// <= M, subproblem offsets <= M / maxsub + min(nbins, M). Larger problems (M >= 2^31 points fit
// an H200 in float) take the 64-bit path. NUFFTMP_CUDA_INDEX64=1 forces 64 bits so tests can
// run that path on small problems.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace nufftmp::detail {

constexpr std::int64_t kIndex32Limit = (std::int64_t(1) << 31) - 1;

// maxsub = 0: no subproblems.
inline bool sort_needs_index64(std::int64_t M, std::int64_t nbins, int maxsub, bool force) {
  if (force) return true;
  if (M > kIndex32Limit || nbins >= kIndex32Limit) return true;
  if (maxsub > 0 && M / maxsub + std::min(nbins, M) + 1 > kIndex32Limit) return true;
  return false;
}

// NUFFTMP_CUDA_INDEX64 set to anything but "" or "0".
inline bool index64_forced_by_env() {
  const char* v = std::getenv("NUFFTMP_CUDA_INDEX64");
  return v != nullptr && *v != '\0' && !(v[0] == '0' && v[1] == '\0');
}

// Upper bound on the number of subproblems of M sorted points in nbins bins, each bin cut into
// pieces of at most maxsub points: sum_b ceil(n_b / maxsub) <= M / maxsub + (non-empty bins).
// set_points sizes the subproblem list with it, so it needs no host round trip to learn the
// exact count before filling the list.
inline std::int64_t subproblem_capacity(std::int64_t M, std::int64_t nbins, int maxsub) {
  if (maxsub <= 0) return 0;
  return M / maxsub + std::min(nbins, M) + 1;
}

}  // namespace nufftmp::detail
