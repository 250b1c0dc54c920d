// Whether a plan's fine-grid FFT is cuFFT's whole transform or the pruned one (FineGridFft,
// fine_grid_fft.hpp), and the pruned transform's geometry: host logic only (unit-tested).
//
// A type 2 transform's input is zero outside the modes, and a type 1 transform's output is
// read only at the modes, so in 2D the pass along y needs only the x-columns that hold modes:
// ceil(N1/2) at x = 0 and as many ending at x = nf1 (fine_index_of_mode). The pass along x
// covers every row. On the H200 (scripts/fft_prune_probe.cu, PERFORMANCE.md "The pruned FFT")
// that took 4096^2 float from 0.213 ms to 0.147, 2048^2 float 0.049 -> 0.039, 2048^2 double
// 0.100 -> 0.070; in 3D cuFFT's strided rank-2 pass over the columns was slower than the whole
// transform (256^3 float 0.235 -> 0.424 ms), so 3D (and 1D) stay whole.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

namespace nufftmp::detail {

enum class FftPruning { Whole, Columns };

// Columns in each run of the pruned pass: ceil(N1 / 2).
inline std::int64_t pruned_column_run(std::int64_t N1) { return (N1 + 1) / 2; }

// Whether the pruned transform is possible: 2D, and the two runs of columns do not overlap.
inline bool fft_pruning_applies(int dim, const std::array<std::int64_t, 3>& nf,
                                const std::array<std::int64_t, 3>& N) {
  return dim == 2 && 2 * pruned_column_run(N[0]) <= nf[0];
}

// Grids below this many cells stay whole: the pruned transform is three cuFFT launches
// where the whole one is one or two, and on small grids the launches are the cost.
constexpr std::int64_t kPrunedFftMinCells = std::int64_t(1) << 20;

// The default: pruned where it applies on grids of kPrunedFftMinCells and more, and where the
// columns it skips are at least a fifth of the grid (sigma >= 1.25 gives at most 0.4 nf1 + 1
// columns of modes in each run).
inline FftPruning default_fft_pruning(int dim, const std::array<std::int64_t, 3>& nf,
                                      const std::array<std::int64_t, 3>& N) {
  if (!fft_pruning_applies(dim, nf, N)) return FftPruning::Whole;
  if (nf[0] * nf[1] < kPrunedFftMinCells) return FftPruning::Whole;
  if (5 * 2 * pruned_column_run(N[0]) > 4 * nf[0]) return FftPruning::Whole;
  return FftPruning::Columns;
}

// NUFFTMP_CUDA_FFT=whole|pruned (A/B runs and the tests): pruned wherever it applies, at any
// size; anything else keeps the default.
inline FftPruning fft_pruning_from_env(const char* v, int dim,
                                       const std::array<std::int64_t, 3>& nf,
                                       const std::array<std::int64_t, 3>& N) {
  if (v != nullptr && std::strcmp(v, "whole") == 0) return FftPruning::Whole;
  if (v != nullptr && std::strcmp(v, "pruned") == 0)
    return fft_pruning_applies(dim, nf, N) ? FftPruning::Columns : FftPruning::Whole;
  return default_fft_pruning(dim, nf, N);
}

// Type 2, pruned: the pass along x runs only over the bands of rows that the points' kernels
// touch (SortedPoints::row_bands, a bit per band, marked by set_points from the nonempty bins),
// and the zero-padding writes the other rows only where the column runs are. At most 64 bands
// of band_rows rows (the last one may be shorter). Points spread over every band leave the
// transform as it is; points in a few bands (a clustered set) leave only those rows.
constexpr int kMaxRowBands = 64;
inline std::int64_t row_band_rows(std::int64_t nf_y) {
  return (nf_y + kMaxRowBands - 1) / kMaxRowBands;
}
inline int row_band_count(std::int64_t nf_y) {
  const std::int64_t r = row_band_rows(nf_y);
  return static_cast<int>((nf_y + r - 1) / r);
}
// Every band of a grid of nf_y rows.
inline std::uint64_t all_row_bands(std::int64_t nf_y) {
  const int n = row_band_count(nf_y);
  return n >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << n) - 1;
}

}  // namespace nufftmp::detail
