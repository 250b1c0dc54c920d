// Between the FFT and the mode array: pick the modes out of the fine grid (in the user's
// modeord) and divide by the kernel's Fourier coefficients, in one pass (type 1), or the
// reverse, writing the zero-padded fine grid (type 2).
#pragma once

#include <array>
#include <complex>
#include <cstdint>
#include <vector>

#include "common/plan_config.hpp"

namespace nufftmp::detail::cpu {

template <typename T>
struct Deconvolver {
  int dim = 1;
  std::array<std::int64_t, 3> N{1, 1, 1}, nf{1, 1, 1};
  std::int64_t row = 1, pad = 0;  // grid layout: x-row stride and ghost cells (GridShape)
  // Per axis and output index i: fine-grid index of its mode and 1 / phihat(|k|).
  std::array<std::vector<std::int64_t>, 3> fine;
  std::array<std::vector<T>, 3> inv;

  Deconvolver() = default;
  Deconvolver(const PlanConfig& cfg, std::int64_t row, std::int64_t pad);

  // f (nvec mode arrays) from the transformed fine grids.
  void grid_to_modes(const std::complex<T>* grid, std::complex<T>* f, int nvec,
                     int nthreads) const;
  // Fine grids (zeroed, ghosts included, then the deconvolved modes placed) from f.
  void modes_to_grid(const std::complex<T>* f, std::complex<T>* grid, int nvec,
                     int nthreads) const;
};

}  // namespace nufftmp::detail::cpu
