#include <gtest/gtest.h>

#include <cmath>

#include "nufftmp/mtip.hpp"

using namespace nufftmp::mtip;

namespace {
double norm3(const Vec3& v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }
}  // namespace

TEST(MtipGeometry, MultiplyComposesRotations) {
  std::mt19937_64 rng(5);
  for (int t = 0; t < 20; ++t) {
    const Quaternion a = random_quaternion(rng), b = random_quaternion(rng);
    const Vec3 v{0.3, -1.2, 0.7};
    const Vec3 lhs = quat_rotate(quat_multiply(a, b), v);
    const Vec3 rhs = quat_rotate(a, quat_rotate(b, v));
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(lhs[d], rhs[d], 1e-12);
    EXPECT_NEAR(norm3(quat_rotate(a, v)), norm3(v), 1e-12);
    const Vec3 back = quat_rotate(quat_conjugate(a), quat_rotate(a, v));
    for (int d = 0; d < 3; ++d) EXPECT_NEAR(back[d], v[d], 1e-12);
  }
}

TEST(MtipGeometry, RotationAboutZAndAngles) {
  const double th = 0.7;
  const Quaternion q{std::cos(th / 2), 0, 0, std::sin(th / 2)};
  const Vec3 r = quat_rotate(q, {1, 0, 0});
  EXPECT_NEAR(r[0], std::cos(th), 1e-14);
  EXPECT_NEAR(r[1], std::sin(th), 1e-14);
  EXPECT_NEAR(quat_angle(Quaternion{}, q), th, 1e-12);
  EXPECT_NEAR(quat_angle(q, Quaternion{-q.w, -q.x, -q.y, -q.z}), 0.0, 1e-6);
  EXPECT_THROW(quat_normalized(Quaternion{0, 0, 0, 0}), nufftmp::Error);
}

TEST(MtipGeometry, RandomAndReferenceOrientationsAreUnitAndSpread) {
  std::mt19937_64 rng(1);
  double mean_w2 = 0;
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const Quaternion q = random_quaternion(rng);
    EXPECT_NEAR(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z, 1.0, 1e-12);
    mean_w2 += q.w * q.w / n;
  }
  EXPECT_NEAR(mean_w2, 0.25, 0.01);  // uniform on S^3: E[w^2] = 1/4
  const auto r1 = reference_orientations(500), r4 = reference_orientations(4000);
  for (const auto& q : r4) EXPECT_NEAR(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z, 1.0, 1e-12);
  const double c1 = covering_angle(r1, 300, 2), c4 = covering_angle(r4, 300, 2);
  // Near-uniform in 3 dimensions: 8x the points halves the spacing (allow slack for sampling).
  EXPECT_LT(c4, 0.7 * c1);
  EXPECT_LT(c1, 0.6);
  EXPECT_THROW(reference_orientations(0), nufftmp::Error);
}

TEST(MtipGeometry, EwaldSphereAndScaling) {
  Detector det;
  det.nx = 9;
  det.ny = 7;
  det.pixel_size = 1e-3;
  det.distance = 0.01;
  det.wavelength = 1.5;
  const auto pos = pixel_positions_reciprocal(det);
  const std::int64_t npix = 63;
  ASSERT_EQ(pos.size(), 3u * npix);
  for (std::int64_t p = 0; p < npix; ++p) {
    const Vec3 kout{pos[p], pos[npix + p], pos[2 * npix + p] + 1 / det.wavelength};
    EXPECT_NEAR(norm3(kout), 1 / det.wavelength, 1e-12);  // on the Ewald sphere
  }
  const std::int64_t centre = 3 * 9 + 4;  // odd sizes: a pixel on the beam
  EXPECT_NEAR(pos[centre], 0.0, 1e-15);
  EXPECT_NEAR(pos[2 * npix + centre], 0.0, 1e-15);
  const double scale = reciprocal_scale(pos);
  std::mt19937_64 rng(9);
  std::vector<Quaternion> q(50);
  for (auto& qi : q) qi = random_quaternion(rng);
  std::vector<float> x(50 * npix), y(x.size()), z(x.size());
  slice_points(pos, q.data(), 50, scale, x.data(), y.data(), z.data());
  double mx = 0;
  for (std::size_t j = 0; j < x.size(); ++j)
    mx = std::max({mx, std::fabs(double(x[j])), std::fabs(double(y[j])), std::fabs(double(z[j]))});
  EXPECT_LE(mx, M_PI);
  const std::int64_t o = 17, p = 40;
  const Vec3 r = quat_rotate(q[o], {pos[p], pos[npix + p], pos[2 * npix + p]});
  EXPECT_NEAR(x[o * npix + p], scale * r[0], 1e-5);
  EXPECT_NEAR(z[o * npix + p], scale * r[2], 1e-5);
  det.nx = 0;
  EXPECT_THROW(pixel_positions_reciprocal(det), nufftmp::Error);
}
