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

// phihat[|k|] for k = 0 .. N/2 on a fine grid of nf cells: phihat(2 pi k / nf), the
// deconvolution factors of a type 1/2 axis with N modes.
std::vector<double> kernel_fourier_series(std::int64_t N, std::int64_t nf, const KernelSpec& k);

// Gauss-Legendre nodes and weights on [-1, 1].
void gauss_legendre(int n, std::vector<double>& nodes, std::vector<double>& weights);

}  // namespace nufftmp::detail
