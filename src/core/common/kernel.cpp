#include "common/kernel.hpp"

#include <algorithm>
#include <cmath>

#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

int kernel_width_for(double tol, double upsampfac) {
  int w;
  if (upsampfac == 2.0) {
    w = static_cast<int>(std::ceil(std::log10(10.0 / tol)));
  } else {
    w = static_cast<int>(std::ceil(-std::log(tol) / (M_PI * std::sqrt(1.0 - 1.0 / upsampfac))));
  }
  return std::clamp(w, kMinWidth, kMaxWidth);
}

double kernel_beta_for(int w, double upsampfac) {
  double beta_over_w;
  if (upsampfac == 2.0) {
    // Tuned values for sigma = 2 (smallest widths lose accuracy with the generic 2.30).
    beta_over_w = (w == 2) ? 2.20 : (w == 3) ? 2.26 : (w == 4) ? 2.38 : 2.30;
  } else {
    beta_over_w = 0.97 * M_PI * (1.0 - 1.0 / (2.0 * upsampfac));
  }
  return beta_over_w * w;
}

double kernel_direct(double t, int w, double beta) {
  const double z = 2.0 * t / w;
  if (std::abs(z) > 1.0) return 0.0;
  return std::exp(beta * (std::sqrt(1.0 - z * z) - 1.0));
}

namespace {

// Chebyshev interpolation of phi on interval j at degree n, converted to monomials in s.
std::vector<double> fit_interval(int j, int w, double beta, int n) {
  const int np = n + 1;
  std::vector<double> fvals(np), cheb(np, 0.0);
  for (int i = 0; i < np; ++i) {
    const double s = std::cos(M_PI * (i + 0.5) / np);
    const double t = -0.5 * w + j + 0.5 * (s + 1.0);
    fvals[i] = kernel_direct(t, w, beta);
  }
  for (int m = 0; m < np; ++m) {
    double sum = 0;
    for (int i = 0; i < np; ++i) sum += fvals[i] * std::cos(M_PI * m * (i + 0.5) / np);
    cheb[m] = (m == 0 ? 1.0 : 2.0) * sum / np;
  }
  // Monomial coefficients via the recurrence T_{m+1} = 2 s T_m - T_{m-1}.
  std::vector<double> mono(np, 0.0), tm1(np, 0.0), tm(np, 0.0), tp(np, 0.0);
  tm1[0] = 1.0;  // T0
  if (np > 1) tm[1] = 1.0;  // T1
  for (int k = 0; k < np; ++k) mono[k] += cheb[0] * tm1[k];
  if (np > 1)
    for (int k = 0; k < np; ++k) mono[k] += cheb[1] * tm[k];
  for (int m = 2; m < np; ++m) {
    std::fill(tp.begin(), tp.end(), 0.0);
    for (int k = 0; k + 1 < np; ++k) tp[k + 1] += 2.0 * tm[k];
    for (int k = 0; k < np; ++k) tp[k] -= tm1[k];
    for (int k = 0; k < np; ++k) mono[k] += cheb[m] * tp[k];
    tm1.swap(tm);
    tm.swap(tp);
  }
  return mono;  // mono[k]: coefficient of s^k
}

double horner_fit_error(const KernelSpec& k) {
  double err = 0;
  std::vector<double> vals(k.w);
  for (int i = 0; i <= 200; ++i) {
    const double x1 = -0.5 * k.w + i / 200.0 * (1.0 - 1e-12);
    kernel_values_horner(k, x1, vals.data());
    for (int j = 0; j < k.w; ++j)
      err = std::max(err, std::abs(vals[j] - kernel_direct(x1 + j, k.w, k.beta)));
  }
  return err;
}

}  // namespace

KernelSpec make_kernel(double tol, double upsampfac) {
  KernelSpec k;
  k.upsampfac = upsampfac;
  k.w = kernel_width_for(tol, upsampfac);
  k.beta = kernel_beta_for(k.w, upsampfac);
  // Smallest degree whose fit error is well below the tolerance: the fit costs a fraction of
  // a millisecond and saves FMAs on every point of every execute.
  for (int n = std::max(3, k.w - 1); n <= kMaxHornerDegree; ++n) {
    k.degree = n;
    k.horner.assign(static_cast<size_t>(n + 1) * k.w, 0.0);
    for (int j = 0; j < k.w; ++j) {
      const auto mono = fit_interval(j, k.w, k.beta, n);
      for (int p = 0; p <= n; ++p) k.horner[static_cast<size_t>(p) * k.w + j] = mono[n - p];
    }
    if (horner_fit_error(k) < 0.1 * tol) break;
  }
  return k;
}

void kernel_values_horner(const KernelSpec& k, double x1, double* out) {
  const double s = 2.0 * (x1 + 0.5 * k.w) - 1.0;
  for (int j = 0; j < k.w; ++j) out[j] = k.horner[j];
  for (int p = 1; p <= k.degree; ++p)
    for (int j = 0; j < k.w; ++j) out[j] = out[j] * s + k.horner[static_cast<size_t>(p) * k.w + j];
}

}  // namespace nufftmp::detail
