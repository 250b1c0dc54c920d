// Pure logic of src/core/common (and the CPU engine's inline kernel evaluation): kernel widths,
// fine grid sizes, the Horner fit against direct evaluation, the deconvolution factors against
// brute-force quadrature, mode ordering and folding.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

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

TEST(KernelWidth, InRangeAndMonotone) {
  for (double sigma : {2.0, 1.25}) {
    int prev = 0;
    for (double tol : kTols) {
      const int w = kernel_width_for(tol, sigma);
      EXPECT_GE(w, kMinWidth);
      EXPECT_LE(w, kMaxWidth);
      EXPECT_GE(w, prev) << "tol " << tol << " sigma " << sigma;
      prev = w;
    }
  }
  // Tighter upsampling needs at least as wide a kernel.
  for (double tol : kTols) EXPECT_GE(kernel_width_for(tol, 1.25), kernel_width_for(tol, 2.0));
  EXPECT_EQ(kernel_width_for(1e-6, 2.0), 7);
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

class HornerFit : public ::testing::TestWithParam<std::tuple<double, double>> {};

TEST_P(HornerFit, MatchesDirectEvaluation) {
  const auto [tol, sigma] = GetParam();
  const KernelSpec k = make_kernel(tol, sigma);
  std::vector<double> vals(k.w);
  double err = 0;
  for (int i = 0; i < 1000; ++i) {
    const double x1 = -0.5 * k.w + (i + 0.5) / 1000.0;
    kernel_values_horner(k, x1, vals.data());
    for (int j = 0; j < k.w; ++j)
      err = std::max(err, std::abs(vals[j] - kernel_direct(x1 + j, k.w, k.beta)));
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
        EXPECT_NEAR(b[j], kernel_direct(x1 + j, W, k.beta), 1e-14);
      }
    }
  });
}

INSTANTIATE_TEST_SUITE_P(TolSigma, HornerFit,
                         ::testing::Combine(::testing::ValuesIn(kTols),
                                            ::testing::Values(2.0, 1.25)));

TEST(KernelEval, FirstCellIsCeilOfLeftEdge) {
  for (int w : {2, 3, 7, 16})
    for (double g : {0.0, 0.25, 0.5, 1.0, 1.5, 3.999, 7.0, 100.5, 1e6 + 0.3})
      EXPECT_EQ(cpu::generic::first_cell(g, w), static_cast<std::int64_t>(std::ceil(g - 0.5 * w)))
          << "g " << g << " w " << w;
}

TEST(Deconvolution, PhihatMatchesBruteQuadrature) {
  for (double tol : {1e-3, 1e-9})
    for (double sigma : {2.0, 1.25}) {
      const KernelSpec k = make_kernel(tol, sigma);
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
          s += kernel_direct(t, k.w, k.beta) * std::cos(2 * M_PI * kk * t / nf);
        }
        s *= h;
        EXPECT_NEAR(phihat[kk], s, 1e-7 * phihat[0]) << "k " << kk << " tol " << tol;
      }
    }
}

TEST(Deconvolution, KernelFtAtAnyFrequencyMatchesTheSeries) {
  const KernelSpec k = make_kernel(1e-9, 2.0);
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

TEST(PlanConfig, ToleranceBelowPrecisionIsClampedWithWarning) {
  const auto cf = make_plan_config<float>(1, {16}, 1, 1, 1e-9, Options());
  EXPECT_DOUBLE_EQ(cf.tol, precision_floor<float>());
  EXPECT_FALSE(cf.warning.empty());
  const auto cd = make_plan_config<double>(1, {16}, 1, 1, 1e-9, Options());
  EXPECT_DOUBLE_EQ(cd.tol, 1e-9);
  EXPECT_TRUE(cd.warning.empty());
  EXPECT_EQ(cd.kernel.w, kernel_width_for(1e-9, 2.0));
  EXPECT_EQ(cd.nf[0], fine_grid_size(16, 2.0, cd.kernel.w));
  EXPECT_EQ(cd.nf[1], 1);
}

}  // namespace
}  // namespace nufftmp::detail
