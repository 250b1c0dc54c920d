#include "cell_grid.hpp"

#include <algorithm>
#include <cmath>

namespace nufftmp::ewald::detail {

CellGrid make_cell_grid(const double L[3], double rcut, std::int64_t max_cells, int reach) {
  CellGrid g;
  g.reach = reach;
  for (int d = 0; d < 3; ++d) {
    g.L[d] = L[d];
    const double n = std::floor(L[d] * reach / rcut);
    g.n[d] = static_cast<int>(std::clamp(n, 1.0, double(1 << 20)));
  }
  max_cells = std::max<std::int64_t>(max_cells, 1);
  while (g.count() > max_cells) {
    int big = 0;
    for (int d = 1; d < 3; ++d)
      if (g.n[d] > g.n[big]) big = d;
    g.n[big] = std::max(1, g.n[big] * 4 / 5);
  }
  for (int d = 0; d < 3; ++d) g.h[d] = L[d] / g.n[d];
  return g;
}

}  // namespace nufftmp::ewald::detail
