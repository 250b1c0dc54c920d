// Options::spread_interp_only against a direct evaluation of the kernel sums: for type 1
// f[g] = sum_j c_j prod_d phi(g_d - u_jd), for type 2 c_j = sum_g f[g] prod_d phi(g_d - u_jd),
// with u_jd = x_jd N_d / 2pi folded into [0, N_d) and the cell distance taken periodically;
// phi is the plan's kernel evaluated directly (exp and sqrt). Engine-agnostic (host API).
#pragma once

#include <cmath>
#include <complex>
#include <vector>

#include "common/kernel.hpp"
#include "common/reference_check.hpp"

namespace nufftmp::test {

// Kernel weights of point (u in cells) at every cell of an axis of n cells (periodic).
inline std::vector<double> axis_weights(double u, std::int64_t n, int w, double beta) {
  std::vector<double> k(static_cast<size_t>(n), 0.0);
  for (std::int64_t g = 0; g < n; ++g) {
    double d = static_cast<double>(g) - u;
    d -= static_cast<double>(n) * std::round(d / static_cast<double>(n));
    k[g] = detail::kernel_direct(d, w, beta);
  }
  return k;
}

// The relative l2 error of a spread_interp_only plan (ntransf 1) on pts against the direct sums.
template <typename T>
double spread_only_error(Plan<T>& plan, const Points<T>& pts, std::mt19937_64& rng) {
  const auto N = plan.modes();
  const std::int64_t M = pts.M, nmodes = plan.num_modes();
  const int dim = plan.dim(), w = plan.kernel_width();
  const double beta = plan.kernel_beta();
  plan.set_points_host(M, pts.x(), pts.y(), pts.z());
  std::vector<std::complex<T>> c, f;
  if (plan.type() == 1) {
    c = random_complex<T>(M, rng);
    f.assign(static_cast<size_t>(nmodes), std::complex<T>(7, 7));
  } else {
    f = random_complex<T>(nmodes, rng);
    c.assign(static_cast<size_t>(M), std::complex<T>(7, 7));
  }
  plan.execute_host(c.data(), f.data());
  std::vector<std::complex<double>> exact(plan.type() == 1 ? nmodes : M, 0.0);
  for (std::int64_t j = 0; j < M; ++j) {
    std::vector<double> k[3];
    for (int d = 0; d < 3; ++d) {
      if (d >= dim) {
        k[d] = {1.0};
        continue;
      }
      double x = static_cast<double>(pts.xyz[d][j]);
      x -= 2 * kPi * std::floor(x / (2 * kPi));
      k[d] = axis_weights(x * static_cast<double>(N[d]) / (2 * kPi), N[d], w, beta);
    }
    for (std::int64_t g2 = 0; g2 < N[2]; ++g2)
      for (std::int64_t g1 = 0; g1 < N[1]; ++g1)
        for (std::int64_t g0 = 0; g0 < N[0]; ++g0) {
          const double kk = k[0][g0] * k[1][g1] * k[2][g2];
          if (kk == 0) continue;
          const std::int64_t g = g0 + N[0] * (g1 + N[1] * g2);
          if (plan.type() == 1)
            exact[g] += kk * std::complex<double>(c[j]);
          else
            exact[j] += kk * std::complex<double>(f[g]);
        }
  }
  return plan.type() == 1 ? rel_l2(f.data(), exact.data(), nmodes)
                          : rel_l2(c.data(), exact.data(), M);
}

}  // namespace nufftmp::test
