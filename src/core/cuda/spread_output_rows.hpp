// Output-driven spreading with register rows (double, 2D and 3D): see spread_output_rows.cu.
#pragma once

#include <cstddef>

#include "cuda/launch.hpp"

namespace nufftmp::detail {

constexpr int kRowsBinX = 4;     // bin width in x the row kernel is built for
constexpr int kRowsMaxLen = 20;  // longest register row (bin + halo) it keeps: w <= 16

// spread_output runs it for KernelVariant::Rows (heuristics.cpp: double, 2D/3D, 4-wide bins).
std::size_t spread_rows_shared_bytes(int dim, int w, const BinView& bins, int np);
void spread_rows(const SpreadLaunch<double>& a, const KernelCoeffs<double>& k);

}  // namespace nufftmp::detail
