#include "common/kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/pswf.hpp"

namespace nufftmp::detail {

const char* kernel_name(Kernel kind) noexcept {
  switch (kind) {
    case Kernel::PSWF: return "pswf";
    case Kernel::ES: return "es";
  }
  return "unknown";
}

namespace {

// PSWF rule of FINUFFT 2.6: its error per width grows with the dimension, by about 1.4x per
// extra axis; the offset 1 balances the error over the sigma range.
double pswf_log_ratio(double tol, int dim) {
  const double tolfac = 0.18 * std::pow(1.4, dim - 1);
  return std::log(tolfac / tol);
}

}  // namespace

int kernel_width_needed(Kernel kind, double tol, double upsampfac, int dim) {
  const double rate = M_PI * std::sqrt(1.0 - 1.0 / upsampfac);  // digits of e per cell
  if (kind == Kernel::PSWF)
    return static_cast<int>(std::ceil(pswf_log_ratio(tol, dim) / rate + 1.0));
  if (upsampfac == 2.0) return static_cast<int>(std::ceil(std::log10(10.0 / tol)));
  return static_cast<int>(std::ceil(-std::log(tol) / rate));
}

double kernel_tolerance_at_width(Kernel kind, int w, double upsampfac, int dim) {
  const double rate = M_PI * std::sqrt(1.0 - 1.0 / upsampfac);
  if (kind == Kernel::PSWF) return 0.18 * std::pow(1.4, dim - 1) * std::exp(-(w - 1.0) * rate);
  if (upsampfac == 2.0) return std::pow(10.0, 1.0 - w);
  return std::exp(-w * rate);
}

int kernel_width_for(Kernel kind, double tol, double upsampfac, int dim, int max_width) {
  return std::clamp(kernel_width_needed(kind, tol, upsampfac, dim), kMinWidth, max_width);
}

double min_upsampfac_for_width(Kernel kind, double tol, int dim, double w) {
  // Invert x(sigma) = L / (pi sqrt(1 - 1/sigma)) + off <= w for sigma.
  const double L = kind == Kernel::PSWF ? pswf_log_ratio(tol, dim) : -std::log(tol);
  const double room = kind == Kernel::PSWF ? w - 1.0 : w;
  if (L <= 0) return 1.0;
  if (room <= 0) return std::numeric_limits<double>::infinity();
  const double r = L / (M_PI * room);  // sqrt(1 - 1/sigma) must reach r
  if (r >= 1) return std::numeric_limits<double>::infinity();
  return 1.0 / (1.0 - r * r);
}

double kernel_shape_for(Kernel kind, int w, double upsampfac) {
  // The band the kernel must hold, pi w (1 - 1/(2 sigma)) radians over its support: the
  // frequencies up to N/2 modes plus the aliasing margin of the fine grid.
  const double cutoff = M_PI * w * (1.0 - 1.0 / (2.0 * upsampfac));
  if (kind == Kernel::PSWF) return cutoff - 0.05;  // FINUFFT 2.6: a little more tail decay
  if (upsampfac == 2.0) {
    // Tuned values for sigma = 2 (smallest widths lose accuracy with the generic 2.30).
    const double beta_over_w = (w == 2) ? 2.20 : (w == 3) ? 2.26 : (w == 4) ? 2.38 : 2.30;
    return beta_over_w * w;
  }
  return 0.97 * cutoff;
}

double es_kernel(double t, int w, double beta) {
  const double z = 2.0 * t / w;
  if (std::abs(z) > 1.0) return 0.0;
  return std::exp(beta * (std::sqrt(1.0 - z * z) - 1.0));
}

double kernel_value(const KernelSpec& k, double t) {
  if (k.kind == Kernel::ES) return es_kernel(t, k.w, k.shape);
  const double z = 2.0 * t / k.w;
  if (std::abs(z) > 1.0) return 0.0;
  return chebyshev_series(k.chebyshev, 2.0 * z * z - 1.0);
}

namespace {

// Chebyshev interpolation of phi on interval j at degree n, converted to monomials in s.
// In long double: the monomial form of a degree-20 Chebyshev series sums terms up to ~1e2
// that cancel to coefficients of ~1, and in double that rounding alone left a fit error of
// 5e-15 at w 16 (degree 20, the cap, never reached the 1e-15 target): the partition sum of
// the Horner kernel then varied 8.6e-15 across a cell against the PSWF's own 2e-15, and 3D
// double type 2 at 1e-14 had 1.3x FINUFFT's error (docs/performance.md section 21). The
// kernel values themselves are accurate to ~1e-16 in double (Clenshaw, decaying series).
std::vector<double> fit_interval(const KernelSpec& k, int j, int n) {
  using L = long double;
  const int w = k.w;
  const int np = n + 1;
  const L pi = 3.141592653589793238462643383279502884L;
  std::vector<L> fvals(np), cheb(np, 0.0L);
  for (int i = 0; i < np; ++i) {
    const L s = std::cos(pi * (i + 0.5L) / np);
    const double t = -0.5 * w + j + 0.5 * static_cast<double>(s + 1.0L);
    fvals[i] = kernel_value(k, t);
  }
  for (int m = 0; m < np; ++m) {
    L sum = 0;
    for (int i = 0; i < np; ++i) sum += fvals[i] * std::cos(pi * m * (i + 0.5L) / np);
    cheb[m] = (m == 0 ? 1.0L : 2.0L) * sum / np;
  }
  // Monomial coefficients via the recurrence T_{m+1} = 2 s T_m - T_{m-1}.
  std::vector<L> mono(np, 0.0L), tm1(np, 0.0L), tm(np, 0.0L), tp(np, 0.0L);
  tm1[0] = 1.0L;  // T0
  if (np > 1) tm[1] = 1.0L;  // T1
  for (int k = 0; k < np; ++k) mono[k] += cheb[0] * tm1[k];
  if (np > 1)
    for (int k = 0; k < np; ++k) mono[k] += cheb[1] * tm[k];
  for (int m = 2; m < np; ++m) {
    std::fill(tp.begin(), tp.end(), 0.0L);
    for (int k = 0; k + 1 < np; ++k) tp[k + 1] += 2.0L * tm[k];
    for (int k = 0; k < np; ++k) tp[k] -= tm1[k];
    for (int k = 0; k < np; ++k) mono[k] += cheb[m] * tp[k];
    tm1.swap(tm);
    tm.swap(tp);
  }
  return std::vector<double>(mono.begin(), mono.end());  // mono[k]: coefficient of s^k
}

// The check points of the fit: 201 positions x1 in each cell, and the kernel's values there.
constexpr int kCheckPoints = 201;
double check_x1(int w, int i) { return -0.5 * w + i / double(kCheckPoints - 1) * (1.0 - 1e-12); }

double horner_fit_error(const KernelSpec& k, const std::vector<double>& exact) {
  double err = 0;
  std::vector<double> vals(k.w);
  for (int i = 0; i < kCheckPoints; ++i) {
    kernel_values_horner(k, check_x1(k.w, i), vals.data());
    for (int j = 0; j < k.w; ++j)
      err = std::max(err, std::abs(vals[j] - exact[static_cast<size_t>(i) * k.w + j]));
  }
  return err;
}

}  // namespace

KernelSpec kernel_of_width(Kernel kind, int w, double upsampfac) {
  // The upsampling-factor choice, the width choice and make_kernel ask for the same few kernels:
  // keep the last ones of this thread (building psi_0 is most of a plan's set-up time).
  struct Entry {
    Kernel kind;
    int w;
    double upsampfac;
    KernelSpec k;
  };
  thread_local std::vector<Entry> recent;
  for (const Entry& e : recent)
    if (e.kind == kind && e.w == w && e.upsampfac == upsampfac) return e.k;
  KernelSpec k;
  k.kind = kind;
  k.upsampfac = upsampfac;
  k.w = w;
  k.shape = kernel_shape_for(kind, w, upsampfac);
  if (kind == Kernel::PSWF) k.chebyshev = pswf0_chebyshev(make_pswf0(k.shape));
  if (recent.size() >= 16) recent.erase(recent.begin());
  recent.push_back({kind, w, upsampfac, k});
  return k;
}

KernelSpec make_kernel(Kernel kind, double tol, double upsampfac, int dim, int max_width) {
  KernelSpec k =
      kernel_of_width(kind, kernel_width_for(kind, tol, upsampfac, dim, max_width), upsampfac);
  std::vector<double> exact(static_cast<size_t>(kCheckPoints) * k.w);
  for (int i = 0; i < kCheckPoints; ++i)
    for (int j = 0; j < k.w; ++j)
      exact[static_cast<size_t>(i) * k.w + j] = kernel_value(k, check_x1(k.w, i) + j);
  // Smallest degree whose fit error is well below the tolerance: the fit costs a fraction of
  // a millisecond and saves FMAs on every point of every execute. At tol > 1e-3 (w <= 3) a fit
  // error of tol/10 still showed as 1-3% more error than FINUFFT's at the same kernel, and the
  // analytic PSWF gets tol/100 for one or two more degrees (the ES, with its square-root edge,
  // would need the maximum degree for it).
  // No target below 8 ulp of the kernel's peak (1): the check values come from kernel_value in
  // double and the Horner sums round too, so the measured error stops falling there (1.1-1.4e-15
  // at w 13-16 from degree w - 1 on, sigma 2). Below it, tol 1e-14 asked for 1e-15 and took the
  // degree cap, 20 at w 16, for no accuracy: 3D double at 1e-14 had the same error at degree 15.
  const double fit_target = std::max(
      (kind == Kernel::PSWF && tol > 1e-3) ? 0.01 * tol : 0.1 * tol,
      8.0 * std::numeric_limits<double>::epsilon());
  for (int n = std::max(3, k.w - 1); n <= kMaxHornerDegree; ++n) {
    k.degree = n;
    k.horner.assign(static_cast<size_t>(n + 1) * k.w, 0.0);
    for (int j = 0; j < k.w; ++j) {
      const auto mono = fit_interval(k, j, n);
      for (int p = 0; p <= n; ++p) k.horner[static_cast<size_t>(p) * k.w + j] = mono[n - p];
    }
    if (horner_fit_error(k, exact) < fit_target) break;
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
