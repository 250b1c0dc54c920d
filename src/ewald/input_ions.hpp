// This rank's ions as the solver takes them: every position and charge checked (finite),
// positions wrapped into the box, and the local sums the solver reduces. Pure (no MPI).
#pragma once

#include <cstdint>
#include <vector>

#include "nufftmp/ewald.hpp"
#include "real_space_pairs.hpp"

namespace nufftmp::ewald::detail {

struct InputIons {
  std::vector<Ion> ions;
  double sum_q = 0, sum_q2 = 0, sum_abs_q = 0;
};

// Throws BadPoints (a non-finite position) or InvalidArgument (a non-finite charge, n < 0, a
// null array), naming the ion and `rank`.
InputIons input_ions(std::int64_t n, const double* x, const double* y, const double* z,
                     const double* q, const Box& box, int rank);

}  // namespace nufftmp::ewald::detail
