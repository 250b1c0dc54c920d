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

namespace {

// Degrees up to 12 keep the block's h * max node below 0.32, where the Horner terms sum to
// at most 1.4 |phihat(0)| (so its rounding stays at a few ulps of phihat(0)); higher degrees
// would only help grids of a few hundred cells, which cost microseconds anyway.
constexpr int kMaxSeriesDegree = 12;
// The Taylor remainder allowed per value, relative to sum_q |weight[q]|.
constexpr double kSeriesRemainder = 0x1p-54;

struct SeriesLayout {
  int degree = kMaxSeriesDegree;
  std::int64_t len = 1;
};

// The degree and block length of least modelled cost for count values omega apart: per value,
// degree + 1 multiply-adds (about two to a vector instruction); per block, (degree + 1)
// multiply-adds and a cos/sin pair (~40 operations) per node. For each degree P, the longest
// block whose half-width h satisfies F (h tmax)^(P+1) / (P+1)! <= ratio F.
SeriesLayout choose_layout(std::int64_t count, double omega, double tmax, double ratio, int nq) {
  SeriesLayout best;
  double best_cost = HUGE_VAL, factorial = 1;
  for (int p = 1; p <= kMaxSeriesDegree; ++p) {
    factorial *= p + 1;  // (p + 1)!
    const double h = std::pow(ratio * factorial, 1.0 / (p + 1)) / tmax;
    // hs = (len - 1) / 2 cells of k with hs * omega <= h.
    const double len_max = std::min(static_cast<double>(count), std::floor(2.0 * h / omega) + 1);
    const std::int64_t len = std::max<std::int64_t>(1, static_cast<std::int64_t>(len_max));
    const double blocks = std::ceil(static_cast<double>(count) / static_cast<double>(len));
    const double cost = 0.5 * count * (p + 1) + blocks * nq * (p + 1 + 40.0);
    if (cost < best_cost) {
      best_cost = cost;
      best = {p, len};
    }
  }
  return best;
}

}  // namespace

KernelFourierSeries::KernelFourierSeries(const KernelFtQuadrature& q, std::int64_t nf,
                                         std::int64_t count)
    : count_(count) {
  if (count <= 0) return;
  const int nq = static_cast<int>(q.node.size());
  const double omega = 2.0 * M_PI / static_cast<double>(nf);
  double sum = 0, sum_abs = 0, tmax = 0;
  for (int i = 0; i < nq; ++i) {
    sum += q.weight[i];
    sum_abs += std::abs(q.weight[i]);
    tmax = std::max(tmax, std::abs(q.node[i]));
  }
  // Relative to |phihat(0)| = |sum|; F = sum_abs multiplies the remainder bound.
  const double ratio = sum_abs > 0 ? kSeriesRemainder * std::abs(sum) / sum_abs : 1.0;
  const SeriesLayout layout =
      choose_layout(count, omega, std::max(tmax, 1e-300), std::max(ratio, 1e-300), nq);
  const int P = layout.degree;
  degree_ = P;
  len_ = layout.len;
  const double half = 0.5 * static_cast<double>(len_ - 1);
  inv_half_ = len_ > 1 ? 1.0 / half : 0.0;
  const std::int64_t nblocks = (count + len_ - 1) / len_;
  coef_.assign(static_cast<size_t>(nblocks * (P + 1)), 0.0);
  const double h = omega * half;
  // b_n = sum_q weight[q] (h t_q)^n / n! * d^n/dx^n cos(x) at x = xc t_q, highest power first.
#pragma omp parallel for schedule(static) if (nblocks * nq > 20000)
  for (std::int64_t b = 0; b < nblocks; ++b) {
    double* c = coef_.data() + b * (P + 1);
    const double xc = omega * (static_cast<double>(b * len_) + half);
    for (int i = 0; i < nq; ++i) {
      const double t = q.node[i], cs = std::cos(xc * t), sn = std::sin(xc * t);
      const double deriv[4] = {cs, -sn, -cs, sn};
      double term = q.weight[i];
      for (int n = 0; n <= P; ++n) {
        c[P - n] += term * deriv[n % 4];
        term *= h * t / (n + 1);
      }
    }
  }
}

namespace {

// out[l] = the degree-P polynomial c (highest power first) at v = (first + l) * scale, for
// l < n. P is a template parameter so that the Horner steps unroll and the loop over l
// vectorises; l is 32-bit because vector int64 -> double conversions need AVX-512.
template <int P>
void horner_run(const double* c, double first, double scale, std::int32_t n, double* out) {
  for (std::int32_t l = 0; l < n; ++l) {
    const double v = (first + static_cast<double>(l)) * scale;
    double acc = c[0];
    for (int q = 1; q <= P; ++q) acc = acc * v + c[q];
    out[l] = acc;
  }
}

template <int P>
void horner_dispatch(int degree, const double* c, double first, double scale, std::int32_t n,
                     double* out) {
  if constexpr (P > kMaxSeriesDegree) {
    (void)degree, (void)c, (void)first, (void)scale, (void)n, (void)out;
  } else if (degree == P) {
    horner_run<P>(c, first, scale, n, out);
  } else {
    horner_dispatch<P + 1>(degree, c, first, scale, n, out);
  }
}

}  // namespace

void KernelFourierSeries::evaluate(std::int64_t k0, std::int64_t k1, double* out) const {
  constexpr std::int64_t kRun = std::int64_t(1) << 30;  // 32-bit offsets within a run
  for (std::int64_t k = k0; k < k1;) {
    const std::int64_t b = k / len_;
    const std::int64_t end = std::min({k1, (b + 1) * len_, k + kRun});
    const double centre = static_cast<double>(b * len_) + 0.5 * static_cast<double>(len_ - 1);
    horner_dispatch<1>(degree_, coef_.data() + b * (degree_ + 1),
                       static_cast<double>(k) - centre, inv_half_,
                       static_cast<std::int32_t>(end - k), out + (k - k0));
    k = end;
  }
}

std::vector<double> kernel_fourier_series(std::int64_t N, std::int64_t nf, const KernelSpec& k) {
  const std::int64_t nk = N / 2 + 1;
  const KernelFourierSeries series(kernel_ft_quadrature(k), nf, nk);
  std::vector<double> phihat(static_cast<size_t>(nk));
  constexpr std::int64_t kChunk = 1 << 14;
  const std::int64_t nchunks = (nk + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (nchunks > 1)
  for (std::int64_t ch = 0; ch < nchunks; ++ch)
    series.evaluate(ch * kChunk, std::min(nk, (ch + 1) * kChunk), phihat.data() + ch * kChunk);
  return phihat;
}

}  // namespace nufftmp::detail
