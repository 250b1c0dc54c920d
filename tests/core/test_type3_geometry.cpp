// The pure type 3 logic of common/type3_geometry: centres and half-widths, the grid per axis
// and the ranges it maps sources and targets to, degenerate sets, too-large products, bounds
// and the batch rule.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "common/expect_error.hpp"
#include "common/grid.hpp"
#include "common/kernel.hpp"
#include "common/type3_geometry.hpp"

namespace nufftmp::detail {
namespace {

constexpr double kPi = 3.14159265358979323846;

bool smooth_even(std::int64_t n) {
  if (n % 2) return false;
  while (n % 2 == 0) n /= 2;
  while (n % 3 == 0) n /= 3;
  while (n % 5 == 0) n /= 5;
  return n == 1;
}

TEST(Type3Geometry, CentreAndHalfWidth) {
  const CentreWidth a = centre_and_half_width(2.0, 4.0);
  EXPECT_DOUBLE_EQ(a.centre, 3.0);
  EXPECT_DOUBLE_EQ(a.half_width, 1.0);
  // Nearly centred at 0: kept at 0, the half-width grown to hold the range.
  const CentreWidth b = centre_and_half_width(-1.0, 1.1);
  EXPECT_EQ(b.centre, 0.0);
  EXPECT_DOUBLE_EQ(b.half_width, 1.1);
  const CentreWidth one = centre_and_half_width(5.0, 5.0);
  EXPECT_DOUBLE_EQ(one.centre, 5.0);
  EXPECT_EQ(one.half_width, 0.0);
  const CentreWidth none = centre_and_half_width(1.0, -1.0);  // no points
  EXPECT_EQ(none.centre, 0.0);
  EXPECT_EQ(none.half_width, 0.0);
}

// For random ranges: the grid is FFT-friendly and at least 2w; every source lands where its
// kernel does not wrap (|x'| <= pi - (w + 1) h / 2) and every target at |t| <= pi / sigma.
TEST(Type3Geometry, AxisMapsIntoTheSafeRanges) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> logu(-3, 4), u(-50, 50);
  for (double sigma : {2.0, 1.25})
    for (int w : {2, 7, 16})
      for (int i = 0; i < 200; ++i) {
        const double X = std::pow(10.0, logu(rng)), S = std::pow(10.0, logu(rng) - 1);
        const double C = u(rng), D = u(rng);
        const Type3Axis a = type3_axis({C, X}, {D, S}, sigma, w);
        ASSERT_TRUE(smooth_even(a.nf)) << a.nf;
        ASSERT_GE(a.nf, 2 * w);
        EXPECT_DOUBLE_EQ(a.h, 2 * kPi / static_cast<double>(a.nf));
        const double xmax = X * a.source_scale();
        EXPECT_LE(xmax, kPi - (w + 1) * a.h / 2 + 1e-12) << "X " << X << " S " << S;
        EXPECT_LE(S * a.target_scale(), kPi / sigma * (1 + 1e-12)) << "X " << X << " S " << S;
        // The grid is no larger than the product needs (up to the smooth rounding).
        const double need = 2 * sigma * X * S / kPi + w + 1;
        if (need > 2 * w) EXPECT_LT(static_cast<double>(a.nf), 1.25 * need + 2);
        EXPECT_EQ(a.C, C);
        EXPECT_EQ(a.D, D);
      }
}

TEST(Type3Geometry, DegenerateSetsGiveAWellDefinedGrid) {
  const int w = 7;
  for (const auto& xs : {std::pair<double, double>{0, 0}, {0, 3.0}, {2.0, 0}}) {
    const Type3Axis a = type3_axis({1.0, xs.first}, {-2.0, xs.second}, 2.0, w);
    EXPECT_GE(a.nf, 2 * w);
    EXPECT_TRUE(std::isfinite(a.gamma) && a.gamma > 0);
    EXPECT_LE(xs.first * a.source_scale(), kPi - (w + 1) * a.h / 2 + 1e-12);
    EXPECT_LE(xs.second * a.target_scale(), kPi / 2 + 1e-12);
  }
  // Both zero: one point to one target, the smallest grid.
  EXPECT_EQ(type3_axis({0, 0}, {0, 0}, 2.0, w).nf, next_smooth_even(2 * w));
}

TEST(Type3Geometry, PhasesOnlyWhenOffCentre) {
  Type3Bounds b = empty_bounds();
  b.source_lo = {-1, -1, -1};
  b.source_hi = {1, 1, 1};
  b.target_lo = {-5, -5, -5};
  b.target_hi = {5, 5, 5};
  Type3Geometry g = type3_geometry(3, b, 2.0, 5);
  EXPECT_FALSE(g.prephase);
  EXPECT_FALSE(g.postphase);
  b.target_lo[2] = 10;
  b.target_hi[2] = 20;
  g = type3_geometry(3, b, 2.0, 5);
  EXPECT_TRUE(g.prephase);
  EXPECT_FALSE(g.postphase);
  b.source_lo[0] = 3;
  b.source_hi[0] = 4;
  g = type3_geometry(3, b, 2.0, 5);
  EXPECT_TRUE(g.postphase);
  EXPECT_DOUBLE_EQ(g.axis[0].C, 3.5);
  EXPECT_DOUBLE_EQ(g.axis[2].D, 15.0);
  // Unused axes stay a single cell.
  g = type3_geometry(1, b, 2.0, 5);
  EXPECT_EQ(g.fine_grid()[1], 1);
  EXPECT_EQ(g.fine_grid()[2], 1);
  EXPECT_EQ(g.fine_total(), g.axis[0].nf);
}

TEST(Type3Geometry, TooLargeProductsAreOutOfMemory) {
  Type3Bounds b = empty_bounds();
  b.source_lo = {-1e5, -1e5, -1e5};
  b.source_hi = {1e5, 1e5, 1e5};
  b.target_lo = {-1, -1, -1};
  b.target_hi = {1, 1, 1};
  // 1e5 x 1 per axis: about 1.3e5 cells per axis, 2e15 in 3D.
  test::expect_error([&] { type3_geometry(3, b, 2.0, 5); }, ErrorCode::OutOfMemory,
                     {"fine grid of", " x ", "beyond any memory"});
  EXPECT_NO_THROW(type3_geometry(1, b, 2.0, 5));
  b.source_lo[0] = -1e200;
  b.source_hi[0] = 1e200;
  b.target_lo[0] = -1e200;
  b.target_hi[0] = 1e200;
  test::expect_error([&] { type3_geometry(1, b, 2.0, 5); }, ErrorCode::OutOfMemory,
                     {"along one axis", "X = 1e+200"});
}

TEST(Type3Geometry, BoundsMergeAndContain) {
  Type3Bounds a = empty_bounds(), b = empty_bounds();
  a.source_lo = {0, 1, 2};
  a.source_hi = {1, 2, 3};
  a.target_lo = {-1, -1, -1};
  a.target_hi = {0, 0, 0};
  const Type3Bounds e = empty_bounds();
  EXPECT_TRUE(bounds_contain(3, a, e));   // nothing lies within anything
  EXPECT_FALSE(bounds_contain(3, e, a));
  const Type3Bounds m = merge_bounds(a, e);
  EXPECT_EQ(m.source_lo, a.source_lo);
  EXPECT_EQ(m.target_hi, a.target_hi);
  b = a;
  b.source_hi[2] = 5;
  EXPECT_TRUE(bounds_contain(3, b, a));
  EXPECT_FALSE(bounds_contain(3, a, b));
  EXPECT_TRUE(bounds_contain(2, a, b));  // axis 2 unused in 2D
  const Type3Bounds ab = merge_bounds(a, b);
  EXPECT_EQ(ab.source_hi[2], 5);
}

TEST(Type3Geometry, BatchIsADivisorWithinTheLimits) {
  EXPECT_EQ(type3_batch(6, 4, 1e3), 3);
  EXPECT_EQ(type3_batch(7, 4, 1e3), 1);
  EXPECT_EQ(type3_batch(8, 0, 1e6), 8);   // 1 GiB holds 1000 grids of 1 MB
  EXPECT_EQ(type3_batch(8, 0, 3e8), 2);   // ... and 3 of 300 MB: the divisor 2
  EXPECT_EQ(type3_batch(1, 0, 1e12), 1);
  EXPECT_EQ(type3_batch(12, 12, 1e12), 12);  // the user's limit wins over the memory rule
}

}  // namespace
}  // namespace nufftmp::detail
