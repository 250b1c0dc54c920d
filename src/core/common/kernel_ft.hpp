// The spreading kernel's Fourier transform, phihat(xi) = int phi(t) exp(i xi t) dt (t in
// fine-grid cells, xi in radians per cell). phi is even, so phihat(xi) = 2 int_0^{w/2} phi(t)
// cos(xi t) dt, which one Gauss-Legendre rule on [0, w/2] computes for every xi the engines ask
// for: the deconvolution factors of types 1/2 (xi = 2 pi k / nf) and, for type 3, arbitrary
// frequencies. One home for that rule: the host series below, the CUDA engine's device
// evaluation and type 3 all read the same nodes and weights.
#pragma once

#include <cstdint>
#include <vector>

#include "common/kernel.hpp"

namespace nufftmp::detail {

// phihat(xi) = sum_q weight[q] cos(xi node[q]); weight includes phi(node) and the factor 2.
struct KernelFtQuadrature {
  std::vector<double> node;
  std::vector<double> weight;
};

// The rule for kernel k: exact to double rounding for |xi| <= pi (every frequency a fine grid
// holds).
KernelFtQuadrature kernel_ft_quadrature(const KernelSpec& k);

// phihat at one angular frequency xi (radians per fine-grid cell).
double kernel_ft(const KernelFtQuadrature& q, double xi);

// phihat(2 pi k / nf) for 0 <= k < count without a sum over the nodes per k: the quadrature sum
// is replaced, block by block of consecutive k, by its Taylor polynomial about the block's
// centre. |d^n/dxi^n cos(xi t)| <= t^n bounds the remainder by sum_q |weight[q]|
// (h max_q node[q])^(degree+1) / (degree+1)! for a block of half-width h (radians); the degree
// and the block length are chosen so that this is below 2^-54 |phihat(0)|, so the values equal
// kernel_ft's to rounding (a few ulps of phihat(0)), at about degree + 1 multiply-adds per k
// (vectorised) instead of 2-5 per node.
class KernelFourierSeries {
 public:
  KernelFourierSeries(const KernelFtQuadrature& q, std::int64_t nf, std::int64_t count);
  // out[i] = phihat(2 pi (k0 + i) / nf) for 0 <= k0 <= k0 + i < k1 <= count. Safe to call from
  // several threads at once.
  void evaluate(std::int64_t k0, std::int64_t k1, double* out) const;
  int degree() const { return degree_; }
  std::int64_t block_length() const { return len_; }
  std::size_t bytes() const { return coef_.capacity() * sizeof(double); }

 private:
  std::int64_t count_ = 0, len_ = 1;
  int degree_ = 0;
  double inv_half_ = 0;       // 1 / ((len - 1) / 2): k - centre -> v in [-1, 1]
  std::vector<double> coef_;  // per block, degree + 1 coefficients in v, highest power first
};

// phihat[|k|] for k = 0 .. N/2 on a fine grid of nf cells: phihat(2 pi k / nf), the
// deconvolution factors of a type 1/2 axis with N modes (KernelFourierSeries, OpenMP).
std::vector<double> kernel_fourier_series(std::int64_t N, std::int64_t nf, const KernelSpec& k);

// Gauss-Legendre nodes and weights on [-1, 1].
void gauss_legendre(int n, std::vector<double>& nodes, std::vector<double>& weights);

}  // namespace nufftmp::detail
