// Fine-grid sizes, mode indexing and the deconvolution factors (the kernel's Fourier
// transform), shared by both engines.
#pragma once

#include <cstdint>
#include <vector>

#include "common/host_device.hpp"
#include "common/kernel.hpp"

namespace nufftmp::detail {

// Smallest even n >= n_min of the form 2^a 3^b 5^c (FFT-friendly).
std::int64_t next_smooth_even(std::int64_t n_min);
// Smallest n >= n_min whose prime factors are all <= 7: the radices FFTW and cuFFT have fast
// kernels for. For the plain FFTs of src/mtip (the merge's Toeplitz lattice), where any size
// >= n_min works: 2/3/5 alone would round 81 up to 90, and a prime such as 41 or 2 x 41 costs
// 4-6x per point in FFTW (measured: 82^3 0.27 s, 84^3 0.07 s).
std::int64_t next_fft_friendly(std::int64_t n_min);
// Fine grid size for N modes: max(sigma N, 2w) rounded up to next_smooth_even.
std::int64_t fine_grid_size(std::int64_t N, double upsampfac, int w);

// Signed mode of output index i (0 <= i < N) under modeord (0: increasing, 1: FFT order).
NUFFTMP_HD std::int64_t mode_of_output_index(std::int64_t i, std::int64_t N, int modeord) {
  if (modeord == 0) return i - N / 2;
  return (i <= (N - 1) / 2) ? i : i - N;
}
// Fine-grid index holding mode k (periodic wrap).
NUFFTMP_HD std::int64_t fine_index_of_mode(std::int64_t k, std::int64_t nf) {
  return k >= 0 ? k : k + nf;
}
// The inverses, for engines that index by arithmetic instead of tables. N modes are
// k = -floor(N/2) .. ceil(N/2) - 1 in either modeord; nf >= N.
constexpr std::int64_t kNoMode = -(std::int64_t(1) << 62);
// Mode held by fine-grid index l (0 <= l < nf), or kNoMode where l is zero padding.
NUFFTMP_HD std::int64_t mode_of_fine_index(std::int64_t l, std::int64_t N, std::int64_t nf) {
  if (l <= N - 1 - N / 2) return l;
  if (l >= nf - N / 2) return l - nf;
  return kNoMode;
}
// Output index of mode k under modeord.
NUFFTMP_HD std::int64_t output_index_of_mode(std::int64_t k, std::int64_t N, int modeord) {
  if (modeord == 0) return k + N / 2;
  return k >= 0 ? k : k + N;
}

// Folds x in [-3pi, 3pi) into [0, 2pi) and scales to fine-grid units [0, nf).
template <typename T>
NUFFTMP_HD T fold_rescale(T x, std::int64_t nf) {
  constexpr T two_pi = T(6.283185307179586476925286766559);
  constexpr T inv_two_pi = T(0.159154943091895335768883763372514);
  if (x < T(0)) x += two_pi;
  if (x < T(0)) x += two_pi;
  if (x >= two_pi) x -= two_pi;
  if (x >= two_pi) x -= two_pi;
  T g = x * (inv_two_pi * T(nf));
  // Rounding may land exactly on nf; wrap it to 0.
  if (g >= T(nf)) g -= T(nf);
  return g;
}

}  // namespace nufftmp::detail
