#include "common/pswf.hpp"

#include <algorithm>
#include <cmath>

#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

namespace {

// The prolate operator on the normalised even Legendre polynomials Pbar_{2i}, i < n:
// diagonal d[i] and the coupling e[i] of degrees 2i and 2i + 2. From
//   -((1 - x^2) P_k')' = k (k + 1) P_k and
//   x^2 Pbar_k = a_k Pbar_{k-2} + b_k Pbar_k + a_{k+2} Pbar_{k+2},
//   b_k = (2k(k+1) - 1) / ((2k+3)(2k-1)),  a_{k+2} = (k+1)(k+2) / ((2k+3) sqrt((2k+1)(2k+5))).
void prolate_matrix(double c, int n, std::vector<double>& d, std::vector<double>& e) {
  d.resize(n);
  e.resize(n > 0 ? n - 1 : 0);
  const double c2 = c * c;
  for (int i = 0; i < n; ++i) {
    const double k = 2.0 * i;
    d[i] = k * (k + 1) + c2 * (2 * k * (k + 1) - 1) / ((2 * k + 3) * (2 * k - 1));
    if (i + 1 < n)
      e[i] = c2 * (k + 1) * (k + 2) / ((2 * k + 3) * std::sqrt((2 * k + 1) * (2 * k + 5)));
  }
}

// Number of eigenvalues below x (Sturm sequence of the LDL^T factorisation of A - x I).
int eigenvalues_below(const std::vector<double>& d, const std::vector<double>& e, double x) {
  int count = 0;
  double q = 1;
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double off = i > 0 ? e[i - 1] * e[i - 1] : 0.0;
    q = d[i] - x - (i > 0 ? off / q : 0.0);
    if (q == 0) q = -1e-300;  // x is an eigenvalue of the leading block: count it as below
    if (q < 0) ++count;
  }
  return count;
}

// Smallest eigenvalue by bisection between a Gershgorin bound and d[0] (a Rayleigh quotient).
double smallest_eigenvalue(const std::vector<double>& d, const std::vector<double>& e) {
  double lo = d[0], hi = d[0];
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double r = (i > 0 ? std::abs(e[i - 1]) : 0.0) + (i < e.size() ? std::abs(e[i]) : 0.0);
    lo = std::min(lo, d[i] - r);
  }
  for (int it = 0; it < 200 && hi - lo > 1e-15 * std::max(1.0, std::abs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (eigenvalues_below(d, e, mid) >= 1)
      hi = mid;
    else
      lo = mid;
  }
  return 0.5 * (lo + hi);
}

// Eigenvector for the smallest eigenvalue chi by inverse iteration with the shift
// mu = chi - delta: A - mu I is then positive definite, so the tridiagonal LDL^T solve needs no
// pivoting, and each step shrinks the other components by delta / (chi_2 - chi) (chi_2 - chi
// is at least 4 for every c), so three steps reach rounding.
std::vector<double> smallest_eigenvector(const std::vector<double>& d, const std::vector<double>& e,
                                         double chi) {
  const int n = static_cast<int>(d.size());
  const double mu = chi - 1e-9 * std::max(1.0, std::abs(chi));
  std::vector<double> piv(n), v(n, 1.0);
  for (int i = 0; i < n; ++i)
    piv[i] = d[i] - mu - (i > 0 ? e[i - 1] * e[i - 1] / piv[i - 1] : 0.0);
  for (int it = 0; it < 3; ++it) {
    // Forward: L y = v; diagonal: D z = y; backward: L^T x = z (L unit lower, l_i = e_i / piv_i).
    for (int i = 1; i < n; ++i) v[i] -= e[i - 1] / piv[i - 1] * v[i - 1];
    for (int i = 0; i < n; ++i) v[i] /= piv[i];
    for (int i = n - 2; i >= 0; --i) v[i] -= e[i] / piv[i] * v[i + 1];
    double norm = 0;
    for (double x : v) norm += x * x;
    norm = std::sqrt(norm);
    for (double& x : v) x /= norm;
  }
  return v;
}

}  // namespace

Pswf0 make_pswf0(double c) {
  if (!(c >= 0) || !std::isfinite(c))
    throw Error(ErrorCode::Internal, "PSWF shape parameter c = " + std::to_string(c));
  Pswf0 p;
  p.c = c;
  // Coefficients fall faster than exponentially past degree ~c; 2 (n - 1) = 2c + 60 leaves them
  // far below double rounding for every c a kernel uses (c < 40).
  const int n = 31 + static_cast<int>(std::ceil(c));
  std::vector<double> d, e;
  prolate_matrix(c, n, d, e);
  p.chi = smallest_eigenvalue(d, e);
  std::vector<double> b = smallest_eigenvector(d, e, p.chi);
  // Drop the tail that lies below rounding, then to plain Legendre: Pbar_k = sqrt(k + 1/2) P_k.
  double bmax = 0;
  for (double x : b) bmax = std::max(bmax, std::abs(x));
  int keep = n;
  while (keep > 1 && std::abs(b[keep - 1]) < 1e-20 * bmax) --keep;
  p.coef.resize(keep);
  for (int i = 0; i < keep; ++i) p.coef[i] = b[i] * std::sqrt(2.0 * i + 0.5);
  const double at0 = pswf0_value(p, 0.0);
  for (double& x : p.coef) x /= at0;
  return p;
}

namespace {

// (2k + 1) / (k + 1) and k / (k + 1), the Legendre recurrence's factors, without a division per
// step (the recurrence runs a few thousand times per plan).
constexpr int kMaxDegree = 512;
struct LegendreFactors {
  double a[kMaxDegree], b[kMaxDegree];
  LegendreFactors() {
    for (int k = 0; k < kMaxDegree; ++k) {
      a[k] = (2.0 * k + 1) / (k + 1);
      b[k] = double(k) / (k + 1);
    }
  }
};
const LegendreFactors& legendre_factors() {
  static const LegendreFactors f;
  return f;
}

}  // namespace

double legendre_even_series(const std::vector<double>& coef, double x) {
  // Legendre recurrence over all degrees; only the even ones carry coefficients.
  const LegendreFactors& lf = legendre_factors();
  double pm1 = 0, pk = 1, sum = coef[0];
  const int kmax = 2 * (static_cast<int>(coef.size()) - 1);
  if (kmax >= kMaxDegree) throw Error(ErrorCode::Internal, "PSWF series too long");
  for (int k = 0; k < kmax; ++k) {
    const double pk1 = lf.a[k] * x * pk - lf.b[k] * pm1;
    pm1 = pk;
    pk = pk1;
    if ((k + 1) % 2 == 0) sum += coef[(k + 1) / 2] * pk;
  }
  return sum;
}

std::vector<double> pswf0_chebyshev(const Pswf0& p) {
  const int n = 40 + static_cast<int>(std::ceil(p.c));
  std::vector<double> f(n), a(n, 0.0);
  for (int i = 0; i < n; ++i) {
    const double y = std::cos(M_PI * (i + 0.5) / n);
    f[i] = pswf0_value(p, std::sqrt(0.5 * (1.0 + y)));
  }
  // cos(pi j (i + 1/2) / n) = cos(pi m / (2n)) with m = j (2i + 1) mod 4n: one table.
  std::vector<double> cos_table(4 * n);
  for (int m = 0; m < 4 * n; ++m) cos_table[m] = std::cos(M_PI * m / (2.0 * n));
  double amax = 0;
  for (int j = 0; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += f[i] * cos_table[(j * (2 * i + 1)) % (4 * n)];
    a[j] = (j == 0 ? 1.0 : 2.0) * s / n;
    amax = std::max(amax, std::abs(a[j]));
  }
  // The coefficients of an entire function fall faster than exponentially: from the first one
  // below 1e-16 of the largest on, the rest is the interpolation's rounding noise (~1e-16 each).
  int keep = 1;
  while (keep < n && std::abs(a[keep]) >= 1e-16 * amax) ++keep;
  a.resize(keep);
  return a;
}

double chebyshev_series(const std::vector<double>& a, double y) {
  double b1 = 0, b2 = 0;
  for (int j = static_cast<int>(a.size()) - 1; j >= 1; --j) {
    const double b0 = a[j] + 2 * y * b1 - b2;
    b2 = b1;
    b1 = b0;
  }
  return a[0] + y * b1 - b2;
}

void pswf0_derivatives(const Pswf0& p, double x, double& u, double& du, double& d2u) {
  // The recurrence differentiated once and twice (valid at |x| = 1 too).
  double pm1 = 0, pk = 1, dpm1 = 0, dpk = 0, ddpm1 = 0, ddpk = 0;
  u = p.coef[0];
  du = d2u = 0;
  const int kmax = 2 * (static_cast<int>(p.coef.size()) - 1);
  for (int k = 0; k < kmax; ++k) {
    const double a = (2.0 * k + 1) / (k + 1), b = double(k) / (k + 1);
    const double pk1 = a * x * pk - b * pm1;
    const double dpk1 = a * (pk + x * dpk) - b * dpm1;
    const double ddpk1 = a * (2 * dpk + x * ddpk) - b * ddpm1;
    pm1 = pk, pk = pk1, dpm1 = dpk, dpk = dpk1, ddpm1 = ddpk, ddpk = ddpk1;
    if ((k + 1) % 2 == 0) {
      const double cj = p.coef[(k + 1) / 2];
      u += cj * pk;
      du += cj * dpk;
      d2u += cj * ddpk;
    }
  }
}

}  // namespace nufftmp::detail
