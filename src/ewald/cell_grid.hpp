// The cell list's geometry: the periodic box cut into n[0] x n[1] x n[2] cells of edge
// h >= rcut / reach, so that every ion within rcut of a target (any periodic image) lies in
// the (2 reach + 1)^3 cells around the target's cell, each taken with its own image shift.
// Cells are numbered x fastest; ions must be wrapped into [0, L) before cell_coord.
// Shared by the host and the CUDA real-space code (host_device.hpp).
#pragma once

#include <cstdint>

#include "host_device.hpp"

namespace nufftmp::ewald::detail {

struct CellGrid {
  int n[3] = {1, 1, 1};
  double h[3] = {1, 1, 1};
  double L[3] = {1, 1, 1};
  int reach = 1;
  EWALD_HD std::int64_t count() const { return std::int64_t(n[0]) * n[1] * n[2]; }
};

// Cells per rcut: 2 cuts the candidates examined (with the per-target culling of
// real_space_pairs.hpp) to about half of what cells of edge rcut (reach 1) give.
constexpr int kCellReach = 2;

// n[d] = floor(L[d] * reach / rcut), reduced (larger cells) until the grid has at most
// max_cells cells, which bounds the memory of sparse systems. Host only.
CellGrid make_cell_grid(const double L[3], double rcut, std::int64_t max_cells,
                        int reach = kCellReach);

EWALD_HD inline int cell_coord(double x, int d, const CellGrid& g) {
  const int c = static_cast<int>(x / g.h[d]);
  return c < 0 ? 0 : (c >= g.n[d] ? g.n[d] - 1 : c);
}

EWALD_HD inline std::int64_t cell_index(int cx, int cy, int cz, const CellGrid& g) {
  return (std::int64_t(cz) * g.n[1] + cy) * g.n[0] + cx;
}

}  // namespace nufftmp::ewald::detail
