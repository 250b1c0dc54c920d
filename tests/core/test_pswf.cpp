// psi_0 (common/pswf) and the PSWF spreading kernel built from it (common/kernel): the
// eigen-equation, known values, and the shape every plan relies on (phi(0) = 1, even,
// positive and decreasing on [0, w/2]).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/kernel.hpp"
#include "common/kernel_ft.hpp"
#include "common/pswf.hpp"
#include "common/rounding_floor.hpp"

namespace nufftmp::detail {
namespace {

TEST(Pswf0, SatisfiesItsEigenEquation) {
  // -((1 - x^2) u')' + c^2 x^2 u = chi u, i.e. -(1 - x^2) u'' + 2 x u' + c^2 x^2 u = chi u.
  for (double c : {0.5, 3.0, 10.0, 20.0, 37.65}) {
    const Pswf0 p = make_pswf0(c);
    double worst = 0;
    for (int i = 0; i <= 200; ++i) {
      const double x = -1.0 + i / 100.0;
      double u, du, d2u;
      pswf0_derivatives(p, x, u, du, d2u);
      EXPECT_NEAR(u, pswf0_value(p, x), 1e-14);
      const double residual = -(1 - x * x) * d2u + 2 * x * du + c * c * x * x * u - p.chi * u;
      worst = std::max(worst, std::abs(residual));
    }
    // Relative to the operator's scale (chi + c^2) times max |u| = 1.
    EXPECT_LE(worst, 1e-11 * (p.chi + c * c)) << "c " << c;
    // chi_0 lies in (0, c^2) for c > 0 (ORX 2013, Theorem 2.4), and near c for large c.
    EXPECT_GT(p.chi, 0.0);
    EXPECT_LT(p.chi, c * c + 1e-12);
  }
}

TEST(Pswf0, MatchesKnownValues) {
  // chi_0 from scipy.special.pro_cv(0, 0, c) and psi_0(c, x) / psi_0(c, 0) from
  // scipy.special.pro_ang1(0, 0, c, x) (SciPy 1.17.1, Zhang & Jin's routines), 2026-12-01.
  // Those routines are good to about 1e-9 at c = 30 (0.26020554106 where LAPACK's dense
  // eigensolver on a 60-term Legendre matrix, numpy.linalg.eigh, gives 0.26020554077182).
  struct Row { double c, chi, x[3], v[3]; };
  const Row rows[] = {
      {3.0, 2.1367322261613055, {0.3, 0.7, 0.95},
       {0.9070792717608576, 0.5652424840511192, 0.31436063416277615}},
      {10.0, 9.228304297249906, {0.3, 0.7, 0.95},
       {0.6542028298197066, 0.07392609939364564, 0.0023888183566134354}},
      {30.0, 29.243471716249246, {0.3, 0.7, 0.95},
       {0.2602055410605325, 0.00024170883276257508, 2.4492817120321847e-09}}};
  for (const Row& r : rows) {
    const Pswf0 p = make_pswf0(r.c);
    EXPECT_NEAR(p.chi, r.chi, 1e-12 * r.chi) << "c " << r.c;
    EXPECT_NEAR(pswf0_value(p, 0.0), 1.0, 1e-14);
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(pswf0_value(p, r.x[i]), r.v[i], 1e-9) << "c " << r.c << " x " << r.x[i];
  }
  // c = 30 against numpy.linalg.eigh on the 60 x 60 matrix (the same expansion, another solver).
  const Pswf0 p30 = make_pswf0(30.0);
  EXPECT_NEAR(pswf0_value(p30, 0.3), 0.26020554077182356, 2e-14);
  EXPECT_NEAR(pswf0_value(p30, 0.7), 0.00024170883243977272, 2e-14);
  EXPECT_NEAR(pswf0_value(p30, 0.95), 2.449281686552722e-09, 2e-14);
  // c = 0: the constant function.
  const Pswf0 p0 = make_pswf0(0.0);
  EXPECT_NEAR(pswf0_value(p0, 0.9), 1.0, 1e-15);
}

TEST(Pswf0, ChebyshevReexpansionMatchesTheLegendreSeries) {
  for (double c : {0.0, 2.0, 9.37, 23.5, 37.65}) {
    const Pswf0 p = make_pswf0(c);
    const std::vector<double> a = pswf0_chebyshev(p);
    EXPECT_LT(a.size(), 40 + c);  // the tail was trimmed
    for (int i = 0; i <= 400; ++i) {
      const double x = -1.0 + i / 200.0;
      // Both sums round at about 1e-15 (the Horner fit of the kernel stops at 2e-14). (A DCT
      // with cos(pi j (i + 1/2) / n) of rounded arguments was 1e-14 off, and cost 3D double
      // 2.5x in error at tol 1e-14.)
      EXPECT_NEAR(chebyshev_series(a, 2 * x * x - 1), pswf0_value(p, x), 3e-15) << c << " " << x;
    }
  }
}

TEST(PswfKernel, IsOneAtZeroEvenPositiveAndDecreasing) {
  for (double tol : {1e-1, 1e-3, 1e-6, 1e-9, 1e-12, 1e-14})
    for (double sigma : {2.0, 1.5, 1.25})
      for (int dim : {1, 3}) {
        const KernelSpec k = make_kernel(Kernel::PSWF, tol, sigma, dim, kMaxWidth);
        ASSERT_EQ(k.kind, Kernel::PSWF);
        EXPECT_NEAR(kernel_value(k, 0.0), 1.0, 1e-14);
        double prev = 1.0;
        for (int i = 1; i <= 400; ++i) {
          const double t = 0.5 * k.w * i / 400.0;
          const double v = kernel_value(k, t);
          EXPECT_EQ(v, kernel_value(k, -t)) << "t " << t;
          EXPECT_GT(v, 0.0) << "w " << k.w << " t " << t;
          EXPECT_LT(v, prev) << "w " << k.w << " t " << t;
          prev = v;
        }
        EXPECT_EQ(kernel_value(k, 0.5 * k.w + 1e-9), 0.0);  // supported on [-w/2, w/2]
        // The edge value is about the tolerance the width was chosen for (it is the kernel's
        // truncation): neither far above it nor wastefully far below.
        if (kernel_width_needed(Kernel::PSWF, tol, sigma, dim) <= kMaxWidth)  // not clamped
          EXPECT_LT(prev, 50 * tol) << "w " << k.w;
      }
}

TEST(PswfKernel, ItsFourierTransformIsItself) {
  // int_{-1}^{1} psi_0(c, x) exp(i c x y) dx = lambda psi_0(c, y): for the kernel,
  // phihat(xi) / phihat(0) = phi(xi w^2 / (4 c)), which rounding_floor() relies on.
  for (int w : {4, 7, 10, 16})
    for (double sigma : {2.0, 1.25}) {
      const KernelSpec k = kernel_of_width(Kernel::PSWF, w, sigma);
      const KernelFtQuadrature q = kernel_ft_quadrature(k);
      for (double xi : {0.3, 1.0, 2.0, M_PI / sigma}) {
        const double ratio = kernel_ft(q, xi) / kernel_ft(q, 0.0);
        EXPECT_NEAR(ratio, kernel_value(k, xi * w * w / (4 * k.shape)), 1e-12 + 1e-9 * ratio)
            << "w " << w << " sigma " << sigma << " xi " << xi;
      }
    }
  // The floor grows with w and as sigma falls, and is tiny at sigma 2 in double.
  EXPECT_LT(rounding_floor(Kernel::PSWF, 8, 1.25, 3, true),
            rounding_floor(Kernel::PSWF, 10, 1.25, 3, true));
  EXPECT_LT(rounding_floor(Kernel::PSWF, 8, 2.0, 3, true),
            rounding_floor(Kernel::PSWF, 8, 1.25, 3, true));
  EXPECT_LT(rounding_floor(Kernel::PSWF, 16, 2.0, 3, false), 1e-14);
  // The measured floors it was built from (rounding_floor.hpp), within 3x.
  EXPECT_NEAR(std::log10(rounding_floor(Kernel::PSWF, 8, 1.25, 3, true)), std::log10(4.4e-5), 0.5);
  EXPECT_NEAR(std::log10(rounding_floor(Kernel::PSWF, 16, 1.25, 3, false)), std::log10(1e-9), 0.5);
}

TEST(PswfKernel, TheHornerFitIsAtTheRoundingFloorAtTheSmallestTolerances) {
  // The fit's Chebyshev -> monomial conversion cancels terms ~100x its coefficients; in double
  // that left a fit error of 5e-15 at w 16 and a partition sum (sum_j phi(x + j), flat for the
  // kernel itself to its aliasing, ~1e-15 here) varying 8.6e-15 across a cell: 1.3x FINUFFT's
  // error in 3D double type 2 at 1e-14. Both must sit at the rounding of double now, and at the
  // low degree that reaches it (w - 1 .. w + 1), not the cap.
  for (double tol : {1e-12, 1e-13, 1e-14})
    for (double sigma : {2.0, 1.25}) {
      const KernelSpec k = make_kernel(Kernel::PSWF, tol, sigma, 3, kMaxWidth);
      EXPECT_LE(k.degree, k.w + 1) << "tol " << tol << " sigma " << sigma;
      std::vector<double> v(k.w);
      double fit = 0, lo = 1e300, hi = -1e300, elo = 1e300, ehi = -1e300;
      for (int i = 0; i <= 1000; ++i) {
        const double x1 = -0.5 * k.w + i / 1000.0 * (1 - 1e-12);
        kernel_values_horner(k, x1, v.data());
        double sum = 0, esum = 0;
        for (int j = 0; j < k.w; ++j) {
          const double e = kernel_value(k, x1 + j);
          fit = std::max(fit, std::abs(v[j] - e));
          sum += v[j];
          esum += e;
        }
        lo = std::min(lo, sum), hi = std::max(hi, sum);
        elo = std::min(elo, esum), ehi = std::max(ehi, esum);
      }
      EXPECT_LT(fit, std::max(0.1 * tol, 2.5e-15)) << "tol " << tol << " sigma " << sigma;
      // the Horner kernel's partition sum no rougher than the exact kernel's plus rounding
      EXPECT_LT((hi - lo) / hi, (ehi - elo) / ehi + 2.5e-15) << "tol " << tol << " sigma " << sigma;
    }
}

}  // namespace
}  // namespace nufftmp::detail
