// The FFT of a plan's fine grids (nvec of them back to back, in place): cuFFT's whole
// dim-dimensional transform, or in 2D the pruned one of fft_pruning.hpp: pass A along y over
// the two runs of x-columns that hold modes (stride nf1, distance 1, once per grid and run),
// pass B along x over every row of every grid (contiguous). Type 2 runs A then B (the skipped
// columns are zero and stay zero), type 1 B then A (the skipped columns are never read).
// Both passes share one work area (the caller's, CufftWork::External, or cuFFT's own).
#pragma once

#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>

#include "cuda/cufft_plan.hpp"
#include "cuda/fft_pruning.hpp"

namespace nufftmp::detail {

template <typename T>
class FineGridFft {
 public:
  FineGridFft() = default;
  // nf: fine grid, N: modes (x fastest), nvec >= 1 grids, type 1 or 2.
  FineGridFft(int dim, const std::array<std::int64_t, 3>& nf,
              const std::array<std::int64_t, 3>& N, int nvec, int type, FftPruning pruning,
              int device, cudaStream_t stream, CufftWork work = CufftWork::Own);

  // In place on `data` (nvec grids). isign = +1 -> exponent +i. Type 2, pruned: the pass
  // along x only over the bands of rows set in `bands` (fft_pruning.hpp; all by default):
  // the other rows are left as the pass along y wrote them, for no one reads them.
  void execute(void* data, int isign, std::uint64_t bands = ~std::uint64_t(0)) const;
  // Runs each of its cuFFT plans once on `data` (cuFFT loads a plan's kernels at its first
  // execution: the plan does it, not the first execute).
  void warm_up(void* data, int isign) const;
  // The bands of rows that execute(data, isign, bands) transforms along x: `bands`, or every
  // band (the whole transform, or more bands than the band launches pay for).
  std::uint64_t bands_transformed(std::uint64_t bands) const noexcept;
  // Rows per band when the pass along x runs by bands (type 2, pruned), else 0.
  std::int64_t band_rows() const noexcept { return band_rows_; }
  bool valid() const noexcept { return whole_.valid() || rows_.valid(); }
  FftPruning pruning() const noexcept { return pruning_; }
  std::size_t work_bytes() const noexcept;
  // CufftWork::External: `area` (>= work_bytes()) for every pass.
  void set_work_area(void* area);

 private:
  void columns(void* data, int isign) const;
  FftPruning pruning_ = FftPruning::Whole;
  int type_ = 1;
  int nvec_ = 1;
  std::int64_t cells_ = 0;      // one grid
  std::int64_t second_run_ = 0;  // first x-column of the second run
  std::int64_t nf0_ = 1, band_rows_ = 0;
  int bands_ = 0;                 // row bands (type 2, pruned)
  std::uint64_t all_bands_ = 0;
  // rows_: every row of every grid; band_ / band_tail_: one band of band_rows_ rows, and the
  // shorter last band (type 2, pruned).
  CufftPlan<T> whole_, cols_, rows_, band_, band_tail_;
};

}  // namespace nufftmp::detail
