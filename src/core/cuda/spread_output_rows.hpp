// Output-driven spreading with register rows (double, 2D and 3D): see spread_output_rows.cu.
#pragma once

#include <cstddef>

#include "cuda/launch.hpp"

namespace nufftmp::detail {

constexpr int kRowsBinX = 4;     // bin width in x the row kernel is built for
constexpr int kRowsMaxLen = 20;  // longest register row (bin + halo) it keeps: w <= 16

// spread_output runs it for KernelVariant::Rows (heuristics.cpp: double, 2D/3D, 4-wide bins).
inline std::size_t spread_rows_shared_bytes(int dim, int w, const BinView& bins, int np) {
  const int rx = make_tile(dim, w, bins).width[0];  // the row: bin plus halo
  return sm_tile_shared_bytes<double>(dim, w, bins) +
         std::size_t(np) * (std::size_t(rx + (dim - 1) * w) * sizeof(double) + 2 * sizeof(double) +
                            (dim - 1) * sizeof(int));
}
// spread_output's Rows variant, in 2D or 3D (spread_output_rows.cu).
template <int D>
void spread_rows_dim(const SpreadLaunch<double>& a, const KernelCoeffs<double>& k);

}  // namespace nufftmp::detail
