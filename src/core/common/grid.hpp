// Fine-grid sizes, mode indexing and the deconvolution factors (the kernel's Fourier
// transform), shared by both engines.
#pragma once

#include <cmath>
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

// a b rounded once, never fused with a following addition (fold_rescale_exact's two-sum needs
// p_hi as a rounded product: nvcc and GCC contract a b + c into an FMA by default).
NUFFTMP_HD double mul_rounded(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return std::fma(a, b, 0.0);
#endif
}

// fold_rescale for double coordinates, to within about half an ulp of the exact folded g
// (fold_rescale above: up to 0.8 ulp of nf, and for negative x biased by 2 pi's representation
// error). At the double floor the fold's error is the largest one a type 2 has: a point at
// g + dg puts a phase error 2 pi k dg / nf on mode k, which for 3D double at 1e-14 (w 16) is
// most of the relative error (docs/performance.md section 22). x nf / (2 pi) is formed as a
// double-double (p_hi + p_lo, the FMA's exact product error and the low word of 1 / (2 pi)),
// the period is removed from p_hi exactly (two-sum with the integer m nf), and the low parts
// are added once at the end. About 15 double operations against 6: used for double
// coordinates only (float coordinates carry 1e-7 of their own).
NUFFTMP_HD double fold_rescale_exact(double x, std::int64_t nf) {
  constexpr double inv_hi = 0.15915494309189535;     // 0x1.45f306dc9c883p-3
  constexpr double inv_lo = -9.839338337591243e-18;  // 1 / (2 pi) - inv_hi
  const double n = static_cast<double>(nf);
  const double c_hi = mul_rounded(n, inv_hi);
  const double c_lo = fma(n, inv_hi, -c_hi) + n * inv_lo;  // nf / (2 pi) = c_hi + c_lo
  const double p_hi = mul_rounded(x, c_hi);
  const double p_lo = fma(x, c_hi, -p_hi) + x * c_lo;  // x nf / (2 pi) = p_hi + p_lo
  // |x| <= 3 pi: p in [-1.5 nf, 1.5 nf]; m nf brings p_hi into [0, nf).
  double m = 0.0;
  if (p_hi < 0.0) m += n;
  if (p_hi < -n) m += n;
  if (p_hi >= n) m -= n;
  const double s = p_hi + m;  // two-sum: s + e = p_hi + m exactly
  const double b = s - p_hi;
  const double e = (p_hi - (s - b)) + (m - b);
  double g = s + (e + p_lo);
  // p_hi rounded onto a period's end (n, or 0 from below) with p_lo < 0: g just below n.
  if (g < 0.0) g += n;
  // Rounding may land exactly on nf (a point just below a period's end): wrap it to 0.
  if (g >= n) g -= n;
  return g;
}

}  // namespace nufftmp::detail
