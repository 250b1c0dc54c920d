// Phasing the true intensity recovers the density up to translation and inversion.
#include <gtest/gtest.h>

#include "nufftmp/mtip.hpp"

using namespace nufftmp::mtip;

TEST(MtipPhasing, AlignedCorrelationIsInvariantToShiftAndInversion) {
  const std::int64_t M = 17;
  const auto rho = density_on_grid(random_molecule(12, M, 0.8, 4), M);
  std::vector<double> moved(rho.size());
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)  // inverted and shifted by (3, -2, 5)
        moved[(((M - k) + 5) % M * M + ((M - j) - 2 + M) % M) * M + ((M - i) + 3) % M] =
            rho[(k * M + j) * M + i];
  EXPECT_LT(correlation(moved, rho), 0.5);
  EXPECT_NEAR(aligned_correlation(moved, rho, M), 1.0, 1e-12);
}

// The truth frame: a density rotated by g (rotate_density), read back at R(g) k, gives the
// same intensity (rotated_intensity_correlation near 1); another rotation does not.
TEST(MtipPhasing, RotatedDensityAndIntensityAgreeInTheRotatedFrame) {
  const std::int64_t M = 17;
  const auto rho = density_on_grid(random_molecule(12, M, 0.8, 4), M);
  const Quaternion g = quat_normalized({0.9, 0.3, -0.2, 0.25});  // about 52 deg
  const Quaternion id{1, 0, 0, 0};
  const auto ac = autocorrelation(rho, M);
  const auto ac_rot = autocorrelation(rotate_density(rho, M, g), M);
  const double right = rotated_intensity_correlation(ac, ac_rot, M, g, true);
  const double wrong = rotated_intensity_correlation(ac, ac_rot, M, id, true);
  const double inverse = rotated_intensity_correlation(ac, ac_rot, M, quat_conjugate(g), true);
  // Measured: 0.999999 in the right frame; 0.958 unrotated and 0.937 with the inverse rotation
  // (a small, fairly round molecule: wrong frames still correlate, but clearly less).
  EXPECT_GT(right, 0.999);
  EXPECT_LT(wrong, 0.99);
  EXPECT_LT(inverse, 0.99);
  EXPECT_NEAR(rotated_intensity_correlation(ac, ac, M, id, true), 1.0, 1e-6);
  // No rotation: the density about its centre of mass, equal to rho up to the shift.
  EXPECT_GT(aligned_correlation(rotate_density(rho, M, id), rho, M), 0.999);
}

TEST(MtipPhasing, AutocorrelationAndIntensityAgree) {
  const std::int64_t M = 17;
  const auto rho = density_on_grid(random_molecule(12, M, 0.8, 4), M);
  const auto ac = autocorrelation(rho, M);
  double sum = 0, sum2 = 0;
  for (double v : rho) sum += v, sum2 += v * v;
  EXPECT_NEAR(ac[(M / 2 * M + M / 2) * M + M / 2], sum2, 1e-9 * sum2);  // lag 0
  const auto I = intensity_from_ac(ac, M);
  EXPECT_NEAR(I[(M / 2 * M + M / 2) * M + M / 2], sum * sum, 1e-9 * sum * sum);  // |F(0)|^2
  for (double v : I) EXPECT_GT(v, -1e-9 * sum * sum);
}

TEST(MtipPhasing, RecoversDensityFromTrueIntensity) {
  const std::int64_t M = 29;
  const auto rho = density_on_grid(random_molecule(30, M, 0.8, 11), M);
  const auto ac = autocorrelation(rho, M);
  PhaseOptions po;
  const PhaseResult res = phase(ac, M, po);
  const double c = aligned_correlation(res.density, rho, M);
  std::printf("phasing: correlation %.4f after alignment, Fourier error %.4f, %d iterations\n",
              c, res.fourier_error, res.iterations);
  EXPECT_GE(c, 0.9);
  for (double v : res.density) EXPECT_GE(v, 0.0);
  // Two independent starts: the lower Fourier error wins, never above the first start's.
  PhaseOptions two = po;
  two.attempts = 2;
  const PhaseResult res2 = phase(ac, M, two);
  EXPECT_LE(res2.fourier_error, res.fourier_error);
  EXPECT_GE(aligned_correlation(res2.density, rho, M), 0.9);
  // Can fail: a random density of the same support does not correlate.
  std::vector<double> noise(rho.size());
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t i = 0; i < noise.size(); ++i) noise[i] = res.support[i] ? u(rng) : 0.0;
  EXPECT_LT(aligned_correlation(noise, rho, M), 0.9);
}
