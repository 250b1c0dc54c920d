// Pure logic of src/core/common (and the CPU engine's inline kernel evaluation): kernel widths,
// fine grid sizes, the Horner fit against direct evaluation, the deconvolution factors against
// brute-force quadrature, mode ordering and folding.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "common/checks.hpp"
#include "common/cufft_sizes.hpp"
#include "common/grid.hpp"
#include "common/kernel.hpp"
#include "common/kernel_ft.hpp"
#include "common/plan_config.hpp"
#include "cpu/kernel_eval.hpp"
#include "cpu/width_dispatch.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::detail {
namespace {

const double kTols[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8,
                        1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14};

const Kernel kKinds[] = {Kernel::PSWF, Kernel::ES};

TEST(KernelWidth, InRangeAndMonotone) {
  for (Kernel kind : kKinds)
    for (int dim : {1, 2, 3})
      for (double sigma : {2.0, 1.6, 1.25}) {
        int prev = 0;
        for (double tol : kTols) {
          const int w = kernel_width_for(kind, tol, sigma, dim, kMaxWidth);
          EXPECT_GE(w, kMinWidth);
          EXPECT_LE(w, kMaxWidth);
          EXPECT_GE(w, prev) << "tol " << tol << " sigma " << sigma;
          prev = w;
          EXPECT_LE(kernel_width_for(kind, tol, sigma, dim, kMaxWidthFloat), kMaxWidthFloat);
          // Tighter upsampling needs at least as wide a kernel.
          EXPECT_GE(kernel_width_for(kind, tol, 1.25, dim, kMaxWidth), w);
        }
      }
  // The ES rule of FINUFFT <= 2.4 (no dependence on the dimension).
  EXPECT_EQ(kernel_width_for(Kernel::ES, 1e-6, 2.0, 1, kMaxWidth), 7);
  EXPECT_EQ(kernel_width_for(Kernel::ES, 1e-6, 2.0, 3, kMaxWidth), 7);
  EXPECT_EQ(kernel_width_for(Kernel::ES, 1e-6, 1.25, 2, kMaxWidth), 10);
}

TEST(KernelWidth, PswfRuleMatchesFinufft) {
  // Widths FINUFFT 2.5.1 (PyPI, kerformula 8 "PSWF (beta shift)") printed with debug = 1 for
  // these (dim, tol, sigma), 2026-12-01; its rule: ceil(log(tolfac/tol) / (pi sqrt(1 - 1/sigma))
  // + 1), tolfac = 0.18 * 1.4^(dim - 1).
  struct Row { int dim; double tol, sigma; int w; };
  const Row rows[] = {{1, 1e-3, 1.25, 5},  {1, 1e-6, 1.25, 10}, {3, 1e-2, 1.25, 4},
                      {3, 1e-3, 1.25, 6},  {3, 1e-4, 1.25, 7},  {3, 1e-6, 1.25, 11},
                      {3, 1e-6, 2.0, 7},   {3, 1e-9, 2.0, 10},  {3, 1e-12, 2.0, 13}};
  for (const Row& r : rows)
    EXPECT_EQ(kernel_width_for(Kernel::PSWF, r.tol, r.sigma, r.dim, kMaxWidth), r.w)
        << "dim " << r.dim << " tol " << r.tol << " sigma " << r.sigma;
  // Its shape: c = pi w (1 - 1/(2 sigma)) - 0.05 (FINUFFT printed beta = 9.37 for w = 5 at 1.25).
  EXPECT_NEAR(kernel_shape_for(Kernel::PSWF, 5, 1.25), 9.37, 0.005);
  EXPECT_NEAR(kernel_shape_for(Kernel::PSWF, 10, 1.25), 18.8, 0.05);
}

TEST(KernelWidth, MinUpsampfacInvertsTheRule) {
  for (Kernel kind : kKinds)
    for (int dim : {1, 3})
      for (double tol : {1e-2, 1e-5, 1e-9, 1e-13})
        for (int w = 2; w <= kMaxWidth; ++w) {
          const double s = min_upsampfac_for_width(kind, tol, dim, w);
          if (!(s <= 2.0) || s < 1.01) continue;  // unreachable, or any sigma does
          // Just above s the rule gives w; clearly below it, more. (ES: the sigma != 2 branch.)
          EXPECT_LE(kernel_width_needed(kind, tol, s * (1 + 1e-9), dim), w) << w;
          EXPECT_GT(kernel_width_needed(kind, tol, s * (1 - 1e-6), dim), w) << w;
        }
}

TEST(FineGrid, NextSmoothEvenIsTheSmallest) {
  auto smooth = [](std::int64_t n) {
    while (n % 2 == 0) n /= 2;
    while (n % 3 == 0) n /= 3;
    while (n % 5 == 0) n /= 5;
    return n == 1;
  };
  for (std::int64_t n = 1; n <= 2000; ++n) {
    const std::int64_t m = next_smooth_even(n);
    ASSERT_GE(m, n);
    ASSERT_EQ(m % 2, 0) << n;
    ASSERT_TRUE(smooth(m)) << n;
    for (std::int64_t k = std::max<std::int64_t>(n, 2); k < m; ++k)
      ASSERT_FALSE(k % 2 == 0 && smooth(k)) << "n " << n << ": " << k << " < " << m;
  }
}

// Large sizes (1D plans of millions of modes) against the plain search, at random points and
// right at and next to smooth numbers.
TEST(FineGrid, NextSmoothMatchesTheSearchAtLargeSizes) {
  auto search = [](std::int64_t n, bool even, bool with7) {
    for (std::int64_t k = std::max<std::int64_t>(n, even ? 2 : 1);; ++k) {
      if (even && k % 2) continue;
      std::int64_t m = k;
      for (std::int64_t p : {2, 3, 5, 7}) {
        if (p == 7 && !with7) break;
        while (m % p == 0) m /= p;
      }
      if (m == 1) return k;
    }
  };
  std::uint64_t s = 12345;
  std::vector<std::int64_t> ns = {20000000, 20000001, 19999999, 13107200, 13107201,
                                  12500000, 2 * 3 * 5 * 7 * 11 * 13 * 17, 1 << 24, (1 << 24) + 1};
  for (int i = 0; i < 40; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    ns.push_back(static_cast<std::int64_t>(s >> 40) + 1000000);  // 1e6 .. 1.8e7
  }
  for (std::int64_t n : ns) {
    EXPECT_EQ(next_smooth_even(n), search(n, true, false)) << n;
    EXPECT_EQ(next_fft_friendly(n), search(n, false, true)) << n;
  }
}

TEST(FineGrid, NextFftFriendlyIsTheSmallest7Smooth) {
  auto smooth = [](std::int64_t n) {
    for (std::int64_t p : {2, 3, 5, 7})
      while (n % p == 0) n /= p;
    return n == 1;
  };
  for (std::int64_t n = 1; n <= 2000; ++n) {
    const std::int64_t m = next_fft_friendly(n);
    ASSERT_GE(m, n);
    ASSERT_TRUE(smooth(m)) << n;
    for (std::int64_t k = n; k < m; ++k) ASSERT_FALSE(smooth(k)) << "n " << n << ": " << k;
  }
  EXPECT_EQ(next_fft_friendly(81), 81);  // the Toeplitz lattice of M = 41 (2M - 1)
  EXPECT_EQ(next_fft_friendly(65), 70);  // M = 33
}

TEST(FineGrid, CoversUpsampledModesAndTwoWidths) {
  for (std::int64_t N : {1, 2, 7, 64, 100, 1001, 123456})
    for (double sigma : {2.0, 1.25, 1.6})
      for (int w : {2, 7, 16}) {
        const std::int64_t nf = fine_grid_size(N, sigma, w);
        EXPECT_GE(nf, static_cast<std::int64_t>(std::ceil(sigma * N)));
        EXPECT_GE(nf, 2 * w);
        EXPECT_EQ(nf % 2, 0);
      }
}

class HornerFit : public ::testing::TestWithParam<std::tuple<Kernel, double, double>> {};

TEST_P(HornerFit, MatchesDirectEvaluation) {
  const auto [kind, tol, sigma] = GetParam();
  const KernelSpec k = make_kernel(kind, tol, sigma, 3, kMaxWidth);
  std::vector<double> vals(k.w);
  double err = 0;
  for (int i = 0; i < 1000; ++i) {
    const double x1 = -0.5 * k.w + (i + 0.5) / 1000.0;
    kernel_values_horner(k, x1, vals.data());
    for (int j = 0; j < k.w; ++j)
      err = std::max(err, std::abs(vals[j] - kernel_value(k, x1 + j)));
  }
  // Monomial Horner form in double bottoms out near 2e-14 (reached at tol 1e-14 only).
  EXPECT_LE(err, std::max(0.2 * tol, 2e-14)) << "w " << k.w << " degree " << k.degree;
  // The CPU engine's inline evaluation (both methods) agrees with the reference one.
  cpu::KernelEvaluator<double> horner(k, KernelEval::Horner), direct(k, KernelEval::Direct);
  cpu::with_width(k.w, [&](auto width) {
    constexpr int W = decltype(width)::value;
    double a[W], b[W];
    for (int i = 0; i < 97; ++i) {
      const double x1 = -0.5 * W + i / 97.0;
      cpu::generic::kernel_values<W>(horner, x1, a);
      cpu::generic::kernel_values<W>(direct, x1, b);
      kernel_values_horner(k, x1, vals.data());
      for (int j = 0; j < W; ++j) {
        EXPECT_NEAR(a[j], vals[j], 1e-14);
        EXPECT_NEAR(b[j], kernel_value(k, x1 + j), 1e-14);
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(KindTolSigma, HornerFit,
                         ::testing::Combine(::testing::ValuesIn(kKinds), ::testing::ValuesIn(kTols),
                                            ::testing::Values(2.0, 1.25)));

TEST(KernelEval, FirstCellIsCeilOfLeftEdge) {
  for (int w : {2, 3, 7, 16})
    for (double g : {0.0, 0.25, 0.5, 1.0, 1.5, 3.999, 7.0, 100.5, 1e6 + 0.3})
      EXPECT_EQ(cpu::generic::first_cell(g, w), static_cast<std::int64_t>(std::ceil(g - 0.5 * w)))
          << "g " << g << " w " << w;
}

TEST(Deconvolution, PhihatMatchesBruteQuadrature) {
  for (Kernel kind : kKinds)
  for (double tol : {1e-3, 1e-9})
    for (double sigma : {2.0, 1.25}) {
      const KernelSpec k = make_kernel(kind, tol, sigma, 2, kMaxWidth);
      const std::int64_t N = 50, nf = fine_grid_size(N, sigma, k.w);
      const auto phihat = kernel_fourier_series(N, nf, k);
      ASSERT_EQ(phihat.size(), static_cast<size_t>(N / 2 + 1));
      // Midpoint rule on a fine mesh over the support [-w/2, w/2].
      const int n = 200000;
      const double h = k.w / static_cast<double>(n);
      for (std::int64_t kk : {0, 1, 7, 24, 25}) {
        double s = 0;
        for (int i = 0; i < n; ++i) {
          const double t = -0.5 * k.w + (i + 0.5) * h;
          s += kernel_value(k, t) * std::cos(2 * M_PI * kk * t / nf);
        }
        s *= h;
        EXPECT_NEAR(phihat[kk], s, 1e-7 * phihat[0]) << "k " << kk << " tol " << tol;
      }
    }
}

TEST(Deconvolution, KernelFtAtAnyFrequencyMatchesTheSeries) {
  const KernelSpec k = make_kernel(Kernel::PSWF, 1e-9, 2.0, 1, kMaxWidth);
  const std::int64_t N = 1000, nf = fine_grid_size(N, 2.0, k.w);
  const auto series = kernel_fourier_series(N, nf, k);
  const KernelFtQuadrature q = kernel_ft_quadrature(k);
  for (std::int64_t kk : {0, 1, 3, 250, 499, 500})
    EXPECT_NEAR(kernel_ft(q, 2 * M_PI * kk / nf), series[kk], 1e-13 * series[0]) << "k " << kk;
  // Even in xi, and continuous between the grid's frequencies.
  EXPECT_DOUBLE_EQ(kernel_ft(q, -0.3), kernel_ft(q, 0.3));
  const double mid = kernel_ft(q, 2 * M_PI * 10.5 / nf);
  EXPECT_LT(mid, series[10]);
  EXPECT_GT(mid, series[11]);
}

TEST(Deconvolution, SeriesEqualsTheQuadratureToRounding) {
  // Small grids (high degree, short blocks) to the largest 1D grids (low degree, long blocks),
  // every width: the piecewise Taylor evaluation equals the quadrature sum at every k to a few
  // ulps of phihat(0), and a range gives the same values as the whole.
  for (Kernel kind : {Kernel::PSWF, Kernel::ES})
  for (double tol : {1e-2, 1e-5, 1e-9, 1e-14})
    for (double sigma : {2.0, 1.25})
      for (std::int64_t N : {1, 2, 9, 64, 1000, 123456, 20000000}) {
        const KernelSpec k = make_kernel(kind, tol, sigma, 1, kMaxWidth);
        const std::int64_t nf = fine_grid_size(N, sigma, k.w), count = N / 2 + 1;
        const KernelFtQuadrature q = kernel_ft_quadrature(k);
        const KernelFourierSeries series(q, nf, count);
        const auto idx = [&] {
          std::vector<std::int64_t> v;
          const std::int64_t step = std::max<std::int64_t>(1, count / 3000);
          for (std::int64_t kk = 0; kk < count; kk += step) v.push_back(kk);
          for (std::int64_t kk = std::max<std::int64_t>(0, count - 40); kk < count; ++kk) v.push_back(kk);
          for (std::int64_t b = series.block_length(); b < count && v.size() < 9000; b += series.block_length())
            for (std::int64_t kk : {b - 1, b}) v.push_back(kk);  // both sides of block edges
          return v;
        }();
        const double phi0 = kernel_ft(q, 0.0);
        double worst = 0;
        for (std::int64_t kk : idx) {
          double got;
          series.evaluate(kk, kk + 1, &got);
          worst = std::max(worst, std::abs(got - kernel_ft(q, 2 * M_PI * kk / nf)));
        }
        EXPECT_LE(worst, 2e-15 * phi0) << "tol " << tol << " sigma " << sigma << " N " << N
                                       << " degree " << series.degree();
        if (count <= 200000) {
          std::vector<double> all(count), part(count);
          series.evaluate(0, count, all.data());
          const std::int64_t cut = count / 3;
          series.evaluate(0, cut, part.data());
          series.evaluate(cut, count, part.data() + cut);
          EXPECT_EQ(all, part);
          const auto vec = kernel_fourier_series(N, nf, k);
          ASSERT_EQ(vec.size(), static_cast<size_t>(count));
          EXPECT_EQ(vec, all);
        }
      }
}

TEST(Deconvolution, GaussLegendreIsExactForPolynomials) {
  for (int n : {1, 2, 5, 16, 40}) {
    std::vector<double> x, w;
    gauss_legendre(n, x, w);
    for (int p = 0; p < 2 * n; ++p) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += w[i] * std::pow(x[i], p);
      const double exact = p % 2 ? 0.0 : 2.0 / (p + 1);
      EXPECT_NEAR(s, exact, 1e-13) << "n " << n << " p " << p;
    }
  }
}

TEST(Modes, BothOrdersCoverTheModeBox) {
  for (std::int64_t N : {1, 2, 5, 8, 33}) {
    for (int modeord : {0, 1}) {
      std::set<std::int64_t> seen;
      for (std::int64_t i = 0; i < N; ++i) seen.insert(mode_of_output_index(i, N, modeord));
      EXPECT_EQ(static_cast<std::int64_t>(seen.size()), N);
      EXPECT_EQ(*seen.begin(), -(N / 2));
      EXPECT_EQ(*seen.rbegin(), (N - 1) / 2);
    }
    EXPECT_EQ(mode_of_output_index(0, N, 0), -(N / 2));  // CMCL: increasing
    EXPECT_EQ(mode_of_output_index(0, N, 1), 0);         // FFT order: zero first
    for (std::int64_t k = -(N / 2); k <= (N - 1) / 2; ++k) {
      const std::int64_t nf = 2 * N + 4;
      const std::int64_t l = fine_index_of_mode(k, nf);
      EXPECT_GE(l, 0);
      EXPECT_LT(l, nf);
      EXPECT_EQ((l - k) % nf, 0);
    }
  }
}

TEST(Folding, MapsLegalRangeIntoTheGrid) {
  const std::int64_t nf = 96;
  const double pi = M_PI;
  const double xs[] = {-3 * pi, std::nextafter(3 * pi, 0.0), -pi, pi, 0.0, 2 * pi,
                       std::nextafter(2 * pi, 0.0), -1e-300, 1.234, -2.5 * pi};
  for (double x : xs) {
    const double g = fold_rescale(x, nf);
    EXPECT_GE(g, 0.0) << x;
    EXPECT_LT(g, static_cast<double>(nf)) << x;
    // Same point modulo the period.
    const double expect = std::fmod(std::fmod(x, 2 * pi) + 2 * pi, 2 * pi) * nf / (2 * pi);
    const double diff = std::remainder(g - expect, static_cast<double>(nf));
    EXPECT_NEAR(diff, 0.0, 1e-9) << x;
  }
  for (float x : {-9.42f, 9.42f, -3.14159f, 3.1415925f, 0.0f}) {
    const float g = fold_rescale(x, nf);
    EXPECT_GE(g, 0.0f);
    EXPECT_LT(g, static_cast<float>(nf));
  }
}

// The double fold (the CUDA engine's locate of double coordinates): within half an ulp of g
// (plus the long double reference's own error), in the whole legal range, on grids of the
// floor pair (40, 48, 60) and large ones. The single-precision-style fold above errs by up to
// 0.8 ulp of nf and is biased for negative x; this one must not be.
TEST(Folding, ExactFoldIsWithinHalfAnUlp) {
  const long double inv_two_pi = 1.0L / (2.0L * acosl(-1.0L));
  std::mt19937_64 rng(3);
  const double lim = fold_limit<double>();
  std::uniform_real_distribution<double> any(-lim, lim);
  for (std::int64_t nf : {std::int64_t(40), std::int64_t(48), std::int64_t(60), std::int64_t(96),
                          std::int64_t(192), std::int64_t(1000000), std::int64_t(1) << 30}) {
    std::vector<double> xs = {0.0, -0.0, lim, -lim, M_PI, -M_PI, 2 * M_PI, -2 * M_PI,
                              std::nextafter(2 * M_PI, 0.0), std::nextafter(-2 * M_PI, 0.0),
                              1e-300, -1e-300, 1e-12, -1e-12};
    for (int i = 0; i < 100000; ++i) xs.push_back(any(rng));
    const long double n = static_cast<long double>(nf);
    const long double slack = n * std::ldexp(1.0L, -60);  // the reference's error
    for (double x : xs) {
      const double g = fold_rescale_exact(x, nf);
      ASSERT_GE(g, 0.0) << "x " << x << " nf " << nf;
      ASSERT_LT(g, static_cast<double>(nf)) << "x " << x << " nf " << nf;
      long double t = static_cast<long double>(x) * inv_two_pi;
      t -= floorl(t);
      const long double ref = t * n;
      long double d = static_cast<long double>(g) - ref;
      if (d > n / 2) d -= n;  // the same point across the period's end
      if (d < -n / 2) d += n;
      const long double half_ulp =
          0.5L * (std::nextafter(static_cast<double>(ref), 2.0 * static_cast<double>(ref) + 1.0) -
                  static_cast<double>(ref));
      ASSERT_LE(fabsl(d), half_ulp + slack) << "x " << x << " nf " << nf;
    }
  }
}

// cuFFT's 1D size: from the table, an even 5-smooth size at most 10% above the smallest grid,
// never below it; outside the table the smallest grid itself.
TEST(FineGrid, Cufft1dSizeStaysWithinItsSlack) {
  for (bool single : {true, false}) {
    EXPECT_EQ(cufft_1d_size(1000, single), 1000);
    EXPECT_EQ(cufft_1d_size(std::int64_t(1) << 27, single), std::int64_t(1) << 27);
    EXPECT_EQ(cufft_1d_size(20000001, single), 20000001);  // not a 5-smooth size: left alone
    int moved = 0;
    for (std::int64_t n = 1000000; n <= 45000000; n = next_smooth_even(n + 1)) {
      const std::int64_t m = cufft_1d_size(n, single);
      ASSERT_GE(m, n);
      ASSERT_LE(static_cast<double>(m), kCufftSizeSlack * static_cast<double>(n)) << n;
      ASSERT_EQ(next_smooth_even(m), m) << n;  // even and 5-smooth
      moved += m != n;
    }
    EXPECT_GT(moved, 0);
  }
  // The case that asked for it (1D 1e7 modes at sigma 2): 2e7 = 2^8 5^7 took 0.41 ms in float
  // where 2.048e7 took 0.31.
  EXPECT_GT(cufft_1d_size(20000000, true), 20000000);
}

// Only a CUDA plan's 1D grid follows cuFFT's table; the CPU engine's and 2D/3D grids keep the
// smallest size.
TEST(PlanConfig, CudaOneDimensionalGridTakesCufftsSize) {
  Options cpu, cuda;
  cpu.backend = Backend::Cpu;
  cuda.backend = Backend::Cuda;
  cpu.upsampfac = cuda.upsampfac = 2.0;
  const auto c = make_plan_config<float>(1, {10000000}, 1, 1, 1e-5, cpu);
  const auto g = make_plan_config<float>(1, {10000000}, 1, 1, 1e-5, cuda);
  EXPECT_EQ(c.nf[0], fine_grid_size(10000000, 2.0, c.kernel.w));
  EXPECT_EQ(g.nf[0], cufft_1d_size(c.nf[0], true));
  EXPECT_GT(g.nf[0], c.nf[0]);
  const auto g2 = make_plan_config<float>(2, {3000, 3000}, 1, 1, 1e-5, cuda);
  EXPECT_EQ(g2.nf[0], fine_grid_size(3000, 2.0, g2.kernel.w));
}

TEST(PlanConfig, ToleranceBelowPrecisionIsClampedWithWarning) {
  const auto cf = make_plan_config<float>(1, {16}, 1, 1, 1e-9, Options());
  EXPECT_DOUBLE_EQ(cf.tol, precision_floor<float>());
  EXPECT_FALSE(cf.warning.empty());
  Options o;
  o.upsampfac = 2.0;
  const auto cd = make_plan_config<double>(1, {16}, 1, 1, 1e-9, o);
  EXPECT_DOUBLE_EQ(cd.tol, 1e-9);
  EXPECT_TRUE(cd.warning.empty());
  EXPECT_EQ(cd.kernel.kind, Kernel::PSWF);
  EXPECT_EQ(cd.kernel.w, kernel_width_for(Kernel::PSWF, 1e-9, 2.0, 1, kMaxWidth));
  EXPECT_EQ(cd.nf[0], fine_grid_size(16, 2.0, cd.kernel.w));
  EXPECT_EQ(cd.nf[1], 1);
}

TEST(PlanConfig, KernelOptionAndDimensionSetTheWidth) {
  Options o;
  o.upsampfac = 1.25;
  o.kernel = Kernel::ES;
  const auto es = make_plan_config<double>(2, {16, 16, 16}, 1, 1, 1e-6, o);
  EXPECT_EQ(es.kernel.kind, Kernel::ES);
  EXPECT_EQ(es.kernel.w, kernel_width_for(Kernel::ES, 1e-6, 1.25, 3, kMaxWidth));
  EXPECT_DOUBLE_EQ(es.kernel.shape, kernel_shape_for(Kernel::ES, es.kernel.w, 1.25));
  o.kernel = Kernel::PSWF;
  const auto p1 = make_plan_config<double>(2, {16}, 1, 1, 1e-6, o);
  const auto p3 = make_plan_config<double>(2, {16, 16, 16}, 1, 1, 1e-6, o);
  EXPECT_EQ(p1.kernel.w, 10);  // FINUFFT 2.5.1's widths (see PswfRuleMatchesFinufft)
  EXPECT_EQ(p3.kernel.w, 11);
  // Float 3D at sigma 1.25 cannot reach 1e-6: the plan stops at width 8 (wider is less
  // accurate there, common/rounding_floor.hpp), warns, and reports what it reaches.
  const auto pf = make_plan_config<float>(1, {16, 16, 16}, 1, 1, 1e-6, o);
  EXPECT_EQ(pf.kernel.w, 8);
  EXPECT_FALSE(pf.warning.empty());
  EXPECT_GT(pf.tol, 1e-5);
  EXPECT_LT(pf.tol, 2e-4);
  // At sigma 2 it can: no warning, the tolerance kept.
  o.upsampfac = 2.0;
  const auto pf2 = make_plan_config<float>(1, {16, 16, 16}, 1, 1, 1e-6, o);
  EXPECT_EQ(pf2.kernel.w, 7);
  EXPECT_TRUE(pf2.warning.empty());
  EXPECT_DOUBLE_EQ(pf2.tol, 1e-6);
}

}  // namespace
}  // namespace nufftmp::detail
