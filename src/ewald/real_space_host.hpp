// The real-space part on the host (OpenMP): a counting sort of the ions into the cell grid,
// then sum_neighbours (real_space_pairs.hpp) at every owned ion.
#pragma once

#include <cstdint>
#include <vector>

#include "cell_grid.hpp"
#include "real_space_pairs.hpp"

namespace nufftmp::ewald::detail {

struct RealSpaceResult {
  // Per owned ion (the first n_owned ions given), in their order: potential and force (the
  // charge of the target included).
  std::vector<double> phi, fx, fy, fz;
  std::int64_t too_close = -1;  // an owned ion with a neighbour closer than rmin, or -1
};

// ions[0, n_all): owned ions first, then the halo (sources only), wrapped into the box.
RealSpaceResult real_space_host(const Ion* ions, std::int64_t n_all, std::int64_t n_owned,
                                const CellGrid& g, const PairParams& p, bool forces);

}  // namespace nufftmp::ewald::detail
