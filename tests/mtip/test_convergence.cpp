// The truth-free measures (convergence.hpp) on cases with known answers: identical and scaled
// volumes correlate 1; independent noise ~0; signal plus independent noise of known power
// gives FSC = S / (S + N) per shell; a shared radial profile alone gives ~0 once removed (and
// ~1 without: what the old intensity score measured); the crossing interpolates; orientation
// change is the median angle.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "nufftmp/mtip.hpp"

using namespace nufftmp::mtip;

namespace {
constexpr std::int64_t M = 31;

// A Friedel-symmetric field (as merged intensities are): f(k) = f(-k), centred order.
std::vector<double> friedel_noise(std::mt19937_64& rng, double sigma) {
  std::normal_distribution<double> g(0, sigma);
  std::vector<double> v(M * M * M);
  for (auto& x : v) x = g(rng);
  std::vector<double> out(v.size());
  const std::int64_t h = M / 2;
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const std::int64_t mi = 2 * h - i, mj = 2 * h - j, mk = 2 * h - k;  // M odd: -k in range
        out[(k * M + j) * M + i] = (v[(k * M + j) * M + i] + v[(mk * M + mj) * M + mi]) / std::sqrt(2.0);
      }
  return out;
}

// A steep radial profile, as diffraction intensities have.
std::vector<double> radial_profile() {
  std::vector<double> v(M * M * M);
  const std::int64_t h = M / 2;
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const double r = std::sqrt(double((i - h) * (i - h) + (j - h) * (j - h) + (k - h) * (k - h)));
        v[(k * M + j) * M + i] = 1e4 * std::exp(-r / 2.0) + 1.0;
      }
  return v;
}

std::vector<double> add(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> c(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
  return c;
}
}  // namespace

TEST(MtipConvergence, ShellCorrelationKnownCases) {
  std::mt19937_64 rng(3);
  const auto s = friedel_noise(rng, 1.0);
  // Identical, and one scaled and offset by a radial profile: 1 at every shell >= 1.
  auto scaled = s;
  const auto prof = radial_profile();
  for (std::size_t i = 0; i < s.size(); ++i) scaled[i] = 3 * s[i] + prof[i];
  for (const std::vector<double>* b : {&s, static_cast<const std::vector<double>*>(&scaled)}) {
    const ShellCurve c = shell_correlation(s, *b, M);
    ASSERT_EQ(c.fsc.size(), static_cast<std::size_t>(M / 2 + 1));
    for (std::size_t k = 1; k < c.fsc.size(); ++k) EXPECT_NEAR(c.fsc[k], 1.0, 1e-9) << k;
    EXPECT_NEAR(shell_mean(c), 1.0, 1e-9);
    EXPECT_EQ(shell_crossing(c, 0.5), static_cast<double>(M / 2));  // never below
  }
  // Signal of power 1 plus independent noise of power 1 and 3 in the two halves: the expected
  // correlation is S / sqrt((S + N1)(S + N2)) = 1 / sqrt(2 * 4) = 0.354.
  const auto a = add(s, friedel_noise(rng, 1.0)), b = add(s, friedel_noise(rng, std::sqrt(3.0)));
  const ShellCurve c = shell_correlation(a, b, M);
  double outer = 0;
  int n = 0;
  for (std::size_t k = 5; k < c.fsc.size(); ++k) outer += c.fsc[k], ++n;
  EXPECT_NEAR(outer / n, 1 / std::sqrt(8.0), 0.03);
  // Independent noise on a common radial profile: ~0 once the profile is removed at each exact
  // radius, ~1 with the plain FSC formula (the profile dominates).
  const auto p1 = add(prof, friedel_noise(rng, 1.0)), p2 = add(prof, friedel_noise(rng, 1.0));
  const ShellCurve removed = shell_correlation(p1, p2, M, true);
  const ShellCurve plain = shell_correlation(p1, p2, M, false);
  EXPECT_LT(std::fabs(shell_mean(removed)), 0.05);
  for (std::size_t k = 2; k < removed.fsc.size(); ++k)
    EXPECT_LT(std::fabs(removed.fsc[k]), 0.3) << k;
  EXPECT_GT(plain.fsc[3], 0.9);
  EXPECT_THROW(shell_correlation(s, std::vector<double>(10), M), nufftmp::Error);
}

TEST(MtipConvergence, CrossingAndOrientationChange) {
  ShellCurve c;
  c.fsc = {0, 0.9, 0.8, 0.6, 0.4, 0.1};
  EXPECT_NEAR(shell_crossing(c, 0.5), 3.5, 1e-12);   // between shells 3 (0.6) and 4 (0.4)
  EXPECT_NEAR(shell_crossing(c, 0.143), 4 + (0.4 - 0.143) / 0.3, 1e-12);
  EXPECT_EQ(shell_crossing(c, 0.95), 0.0);           // shell 1 already below
  EXPECT_NEAR(shell_mean(c), (0.9 + 0.8 + 0.6 + 0.4 + 0.1) / 5, 1e-12);
  // Three images turned by 10, 20 and 30 degrees (one written as -q): median 20.
  const double d = 3.14159265358979323846 / 180;
  std::vector<Quaternion> a(3), b;
  for (int i = 0; i < 3; ++i) {
    const double t = (10.0 * (i + 1)) * d / 2;
    b.push_back({std::cos(t), std::sin(t), 0, 0});
  }
  b[1] = {-b[1].w, -b[1].x, -b[1].y, -b[1].z};
  EXPECT_NEAR(median_orientation_change(a, b, false), 20.0, 1e-9);
  // A common turn of every image is a new frame, not a change.
  std::mt19937_64 rng(5);
  std::vector<Quaternion> q, turned;
  const Quaternion g = random_quaternion(rng);
  for (int i = 0; i < 50; ++i) {
    q.push_back(random_quaternion(rng));
    turned.push_back(quat_multiply(g, q.back()));
    // Every third image switched to its Friedel twin: no change either.
    if (i % 3 == 0) turned.back() = quat_multiply(turned.back(), Quaternion{0, 0, 0, 1});
  }
  EXPECT_LT(median_orientation_change(q, turned), 1e-6);
  EXPECT_GT(median_orientation_change(q, turned, false), 1.0);
  EXPECT_THROW(median_orientation_change(a, std::vector<Quaternion>(2)), nufftmp::Error);
}
