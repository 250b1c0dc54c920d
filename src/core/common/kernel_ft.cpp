#include "common/kernel_ft.hpp"

#include <algorithm>
#include <cmath>

namespace nufftmp::detail {

void gauss_legendre(int n, std::vector<double>& nodes, std::vector<double>& weights) {
  nodes.resize(n);
  weights.resize(n);
  for (int i = 0; i < n; ++i) {
    // Newton on P_n from the Chebyshev-like initial guess.
    double x = std::cos(M_PI * (i + 0.75) / (n + 0.5));
    double dp = 1;
    for (int it = 0; it < 100; ++it) {
      double p0 = 1, p1 = x;
      for (int k = 2; k <= n; ++k) {
        const double p2 = ((2.0 * k - 1) * x * p1 - (k - 1.0) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      if (n == 1) { p1 = x; p0 = 1; }
      dp = n * (x * p1 - p0) / (x * x - 1.0);
      const double dx = p1 / dp;
      x -= dx;
      if (std::abs(dx) < 1e-16) break;
    }
    nodes[i] = x;
    weights[i] = 2.0 / ((1.0 - x * x) * dp * dp);
  }
}

KernelFtQuadrature kernel_ft_quadrature(const KernelSpec& k) {
  // The integrand is smooth on [0, w/2] with a few oscillations at most (|xi| <= pi over a
  // half-width of at most 8 cells). 3w + 16 nodes reach double precision for both kernels up
  // to w = 16: 2w + 16 left relative errors of 1e-14 in phihat at w = 15, 16 (PSWF, sigma 2),
  // which the deconvolution of three axes turned into a 1.2e-14 error floor in 3D (FINUFFT
  // 4e-15); with 3w + 16 phihat is good to 3e-15 and the floor matches FINUFFT's.
  const int nq = 3 * k.w + 16;
  std::vector<double> z, wq;
  gauss_legendre(nq, z, wq);
  const double half = 0.5 * k.w;
  KernelFtQuadrature q;
  q.node.resize(nq);
  q.weight.resize(nq);
  for (int i = 0; i < nq; ++i) {
    q.node[i] = half * 0.5 * (z[i] + 1.0);  // [0, w/2]
    q.weight[i] = 2.0 * half * 0.5 * wq[i] * kernel_value(k, q.node[i]);  // even: x2
  }
  return q;
}

double kernel_ft(const KernelFtQuadrature& q, double xi) {
  double sum = 0;
  for (std::size_t i = 0; i < q.node.size(); ++i) sum += q.weight[i] * std::cos(xi * q.node[i]);
  return sum;
}

std::vector<double> kernel_fourier_series(std::int64_t N, std::int64_t nf, const KernelSpec& k) {
  const KernelFtQuadrature quad = kernel_ft_quadrature(k);
  const int nq = static_cast<int>(quad.node.size());
  const std::vector<double>& t = quad.node;
  const std::vector<double>& f = quad.weight;
  // N/2 + 1 frequencies x nq nodes: for N = 1e7 direct cos() calls would cost seconds of plan
  // time. Within a block of frequencies the phase advances by multiplying with exp(i omega_1 t_q);
  // each block restarts from exact values so rounding cannot accumulate past kBlock steps.
  constexpr std::int64_t kBlock = 256;
  const std::int64_t nk = N / 2 + 1;
  std::vector<double> phihat(static_cast<size_t>(nk));
  const double omega1 = 2.0 * M_PI / static_cast<double>(nf);
#pragma omp parallel for schedule(static) if (nk > 4 * kBlock)
  for (std::int64_t k0 = 0; k0 < nk; k0 += kBlock) {
    std::vector<double> c(nq), sn(nq), c1(nq), s1(nq);
    for (int q = 0; q < nq; ++q) {
      c[q] = std::cos(omega1 * static_cast<double>(k0) * t[q]);
      sn[q] = std::sin(omega1 * static_cast<double>(k0) * t[q]);
      c1[q] = std::cos(omega1 * t[q]);
      s1[q] = std::sin(omega1 * t[q]);
    }
    const std::int64_t k1 = std::min(nk, k0 + kBlock);
    for (std::int64_t kk = k0; kk < k1; ++kk) {
      double sum = 0;
      for (int q = 0; q < nq; ++q) {
        sum += f[q] * c[q];
        const double cn = c[q] * c1[q] - sn[q] * s1[q];
        sn[q] = sn[q] * c1[q] + c[q] * s1[q];
        c[q] = cn;
      }
      phihat[static_cast<size_t>(kk)] = sum;
    }
  }
  return phihat;
}

}  // namespace nufftmp::detail
