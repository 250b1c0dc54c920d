// The scores against the truth (truth.hpp, volume.hpp) at small sizes against direct sums:
// their fast paths (the inscribed ball only, one of each Hermitian pair, both intensity
// scores from one evaluation) must not change what they compute.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "nufftmp/mtip.hpp"
#include "nufftmp/reference.hpp"

using namespace nufftmp::mtip;

namespace {
constexpr double kTwoPi = 6.283185307179586476925;

// rotate_density by its definition: rho moved by its circular centre of mass to the lattice
// centre, its Fourier series sum_n rho_n e^{-i n.x} summed directly at x = G 2 pi k / M for
// the centred k of the ball |k| <= M/2, and the inverse DFT of that, all direct sums.
std::vector<double> rotate_direct(const std::vector<double>& rho, std::int64_t M,
                                  const Quaternion& g) {
  const std::int64_t h = M / 2, n = M * M * M;
  std::int64_t shift[3];
  for (int d = 0; d < 3; ++d) {
    std::complex<double> s = 0;
    for (std::int64_t v = 0; v < n; ++v) {
      const std::int64_t c = d == 0 ? v % M : d == 1 ? (v / M) % M : v / (M * M);
      s += rho[v] * std::polar(1.0, kTwoPi * c / M);
    }
    shift[d] = std::llround(std::arg(s) / kTwoPi * M) - h;
  }
  const auto wrap = [M](std::int64_t c) { return ((c % M) + M) % M; };
  std::vector<std::complex<double>> f(n);
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i)
        f[(k * M + j) * M + i] =
            rho[(wrap(k + shift[2]) * M + wrap(j + shift[1])) * M + wrap(i + shift[0])];
  const auto m = quat_to_matrix(g);
  std::vector<double> x, y, z;
  std::vector<std::int64_t> ks;  // centred k of each ball point, flattened i + M (j + M k)
  for (std::int64_t k = 0; k < M; ++k)
    for (std::int64_t j = 0; j < M; ++j)
      for (std::int64_t i = 0; i < M; ++i) {
        const double a = i - h, b = j - h, c = k - h;
        if (4 * (a * a + b * b + c * c) > double(M * M)) continue;
        const double u = kTwoPi * a / M, v = kTwoPi * b / M, w = kTwoPi * c / M;
        x.push_back(m[0] * u + m[1] * v + m[2] * w);
        y.push_back(m[3] * u + m[4] * v + m[5] * w);
        z.push_back(m[6] * u + m[7] * v + m[8] * w);
        ks.push_back((k * M + j) * M + i);
      }
  std::vector<std::int64_t> idx(x.size());
  for (std::size_t p = 0; p < idx.size(); ++p) idx[p] = static_cast<std::int64_t>(p);
  const std::int64_t N[3] = {M, M, M};
  const auto F = nufftmp::reference::type2<double>(3, x.data(), y.data(), z.data(), f.data(), -1,
                                                   N, 0, idx);
  // out(r) = (1/n) sum_k F_k e^{+i k.r}, r and k centred.
  std::vector<double> out(n);
  for (std::int64_t r = 0; r < n; ++r) {
    const double ri = r % M - h, rj = (r / M) % M - h, rk = r / (M * M) - h;
    std::complex<double> s = 0;
    for (std::size_t p = 0; p < ks.size(); ++p) {
      const double ki = ks[p] % M - h, kj = (ks[p] / M) % M - h, kk = ks[p] / (M * M) - h;
      s += F[p] * std::polar(1.0, kTwoPi * (ki * ri + kj * rj + kk * rk) / M);
    }
    out[r] = s.real() / static_cast<double>(n);
  }
  return out;
}

// The intensity scores by their definition (truth.hpp): the reconstruction's intensity
// Re sum_n ac_n e^{i n.x} summed directly at x = scale R(g) y for every truth point with
// |y| >= q_low, the |k|^2-weighted Pearson correlation with the truth's intensity, and the same
// with each exact radius's mean removed from both.
TruthIntensityScores intensity_direct(const std::vector<double>& ac, std::int64_t M, double scale,
                                      const Quaternion& g, const TruthModel& t, double q_low) {
  const auto m = quat_to_matrix(g);
  std::vector<double> x, y, z, b, w;
  std::vector<std::int64_t> group;
  for (std::size_t p = 0; p < t.intensity.size(); ++p) {
    const double* v = &t.points[3 * p];
    const double r2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (r2 < q_low * q_low) continue;
    x.push_back(scale * (m[0] * v[0] + m[1] * v[1] + m[2] * v[2]));
    y.push_back(scale * (m[3] * v[0] + m[4] * v[1] + m[5] * v[2]));
    z.push_back(scale * (m[6] * v[0] + m[7] * v[1] + m[8] * v[2]));
    b.push_back(t.intensity[p]);
    w.push_back(r2 * scale * scale * M * M / (kTwoPi * kTwoPi));  // |k|^2
    group.push_back(t.radius_group[p]);
  }
  std::vector<std::int64_t> idx(x.size());
  for (std::size_t p = 0; p < idx.size(); ++p) idx[p] = static_cast<std::int64_t>(p);
  const std::vector<std::complex<double>> f(ac.begin(), ac.end());
  const std::int64_t N[3] = {M, M, M};
  const auto F = nufftmp::reference::type2<double>(3, x.data(), y.data(), z.data(), f.data(), +1,
                                                   N, 0, idx);
  std::vector<double> a(F.size());
  for (std::size_t p = 0; p < a.size(); ++p) a[p] = F[p].real();
  const auto pearson = [&](const std::vector<double>& u, const std::vector<double>& v) {
    double sw = 0, mu = 0, mv = 0, uv = 0, uu = 0, vv = 0;
    for (std::size_t p = 0; p < u.size(); ++p) sw += w[p], mu += w[p] * u[p], mv += w[p] * v[p];
    mu /= sw, mv /= sw;
    for (std::size_t p = 0; p < u.size(); ++p)
      uv += w[p] * (u[p] - mu) * (v[p] - mv), uu += w[p] * (u[p] - mu) * (u[p] - mu),
          vv += w[p] * (v[p] - mv) * (v[p] - mv);
    return uv / std::sqrt(uu * vv);
  };
  TruthIntensityScores out;
  out.isotropic = pearson(a, b);
  std::vector<double> sa(3 * M * M, 0), sb(sa.size(), 0), cnt(sa.size(), 0);
  for (std::size_t p = 0; p < a.size(); ++p)
    sa[group[p]] += a[p], sb[group[p]] += b[p], cnt[group[p]] += 1;
  for (std::size_t p = 0; p < a.size(); ++p)
    a[p] -= sa[group[p]] / cnt[group[p]], b[p] -= sb[group[p]] / cnt[group[p]];
  out.anisotropic = pearson(a, b);
  return out;
}

double rel_l2(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]), s += b[i] * b[i];
  return std::sqrt(d / s);
}
}  // namespace

// Odd and even M (even M's index -h has no mirror on the lattice).
TEST(MtipScores, RotateDensityEqualsItsDirectSum) {
  const Quaternion g = quat_normalized({0.8, 0.35, -0.3, 0.4});
  for (std::int64_t M : {11, 12}) {
    const auto rho = density_on_grid(clustered_molecule(10, M, 0.8, 5), M);
    const auto fast = rotate_density(rho, M, g);
    const double err = rel_l2(fast, rotate_direct(rho, M, g));
    std::printf("M = %lld: rotate_density against its direct sum: relative l2 %.2e\n",
                (long long)M, err);
    EXPECT_LT(err, 1e-6);  // measured 2.5e-8 (the scores' NUFFT tolerance is 1e-6)
    // Fails when it should: another rotation is off (measured 0.04 and 0.09).
    EXPECT_GT(rel_l2(rotate_density(rho, M, quat_conjugate(g)), fast), 0.02);
  }
}

// The intensity scores with the truth's mirrors (one evaluation per pair) equal those with
// every point evaluated; both at once equal each alone; and they answer to the frame.
TEST(MtipScores, IntensityScoresWithMirrorsEqualEveryPointEvaluated) {
  const Quaternion g = quat_normalized({0.8, 0.35, -0.3, 0.4});
  for (std::int64_t M : {15, 14}) {
    const double scale = 0.7;  // any: the points are 2 pi k / (M scale)
    const TruthModel truth =
        truth_from_density(density_on_grid(clustered_molecule(12, M, 0.8, 6), M), M, scale);
    ASSERT_EQ(truth.mirror.size(), truth.intensity.size());
    std::size_t paired = 0;
    for (std::size_t p = 0; p < truth.mirror.size(); ++p) {
      const auto q = truth.mirror[p];
      if (q < 0) continue;
      ++paired;
      ASSERT_EQ(truth.mirror[q], static_cast<std::int64_t>(p));
      for (int d = 0; d < 3; ++d) ASSERT_EQ(truth.points[3 * q + d], -truth.points[3 * p + d]);
    }
    EXPECT_GT(paired, truth.mirror.size() * 9 / 10);
    TruthModel all = truth;
    all.mirror.clear();
    // The reconstruction: the truth in the frame g (its intensity read at R(g) y is the truth's).
    const auto ac = autocorrelation(rotate_density(truth.density, M, quat_conjugate(g)), M);
    const double q_low = 1.5 * kTwoPi / (M * scale);  // leaves the centre out
    const auto fast = truth_intensity_scores(ac, M, scale, g, truth, q_low);
    const auto slow = truth_intensity_scores(ac, M, scale, g, all, q_low);
    std::printf("M = %lld: intensity %.12f / %.12f, anisotropic %.12f / %.12f\n", (long long)M,
                fast.isotropic, slow.isotropic, fast.anisotropic, slow.anisotropic);
    EXPECT_NEAR(fast.isotropic, slow.isotropic, 1e-9);
    EXPECT_NEAR(fast.anisotropic, slow.anisotropic, 1e-9);
    EXPECT_EQ(fast.isotropic, truth_intensity_correlation(ac, M, scale, g, truth, false, q_low));
    EXPECT_EQ(fast.anisotropic, truth_intensity_correlation(ac, M, scale, g, truth, true, q_low));
    EXPECT_GT(fast.anisotropic, 0.9);
    const auto wrong = truth_intensity_scores(ac, M, scale, Quaternion{}, truth, q_low);
    EXPECT_LT(wrong.anisotropic, fast.anisotropic - 0.1);
    // Both frames against the direct sums: the scores' NUFFT tolerance (1e-6) moves them by
    // far less than that (a near-perfect score by its square).
    for (const Quaternion& h : {g, Quaternion{}}) {
      const auto got = truth_intensity_scores(ac, M, scale, h, truth, q_low);
      const auto want = intensity_direct(ac, M, scale, h, truth, q_low);
      std::printf("  against the direct sum: %.3e, %.3e\n", got.isotropic - want.isotropic,
                  got.anisotropic - want.anisotropic);
      EXPECT_NEAR(got.isotropic, want.isotropic, 1e-6);
      EXPECT_NEAR(got.anisotropic, want.anisotropic, 1e-6);
    }
  }
}

namespace {
// The rotation by `deg` degrees about the unit vector (x, y, z).
Quaternion about(double x, double y, double z, double deg) {
  const double h = deg * kTwoPi / 720, n = std::sqrt(x * x + y * y + z * z);
  return {std::cos(h), std::sin(h) * x / n, std::sin(h) * y / n, std::sin(h) * z / n};
}
// A rotation by exactly `deg` degrees about a random axis.
Quaternion random_turn(std::mt19937_64& rng, double deg) {
  std::normal_distribution<double> n(0, 1);
  return about(n(rng), n(rng), n(rng), deg);
}
}  // namespace

// The score "orientation error": orientations g q_true r_i, with one frame g and per-image
// turns r_i of 4 degrees, must give the frame back and a median error of 4 degrees, whether
// the file's truth is in the lattice or the particle convention (read through to_lattice);
// read in the wrong convention, the frame must not fit (what score_stage's warning keys on).
TEST(MtipScores, OrientationErrorAfterTheFrameInBothConventions) {
  std::mt19937_64 rng(11);
  const Quaternion g = about(0.3, -0.8, 0.5, 117);
  const int n = 600;
  std::vector<Quaternion> tru(n), rec(n), file_particle(n), read(n);
  for (int i = 0; i < n; ++i) {
    tru[i] = random_quaternion(rng);
    rec[i] = quat_multiply(quat_multiply(g, tru[i]), random_turn(rng, 4.0));
    file_particle[i] = quat_conjugate(tru[i]);  // what skopi would write
    read[i] = to_lattice(file_particle[i], QuaternionConvention::Particle);
  }
  for (const auto* t : {&tru, &read}) {
    const FrameFit f = fit_frame(rec, *t);
    EXPECT_LT(quat_angle(f.frame, g) * 360 / kTwoPi, 0.5);
    EXPECT_NEAR(f.median_error_deg, 4.0, 0.3);
    EXPECT_GT(f.agreement, 0.99);
  }
  const FrameFit wrong = fit_frame(rec, file_particle);
  EXPECT_LT(wrong.agreement, 0.5);
  EXPECT_GT(wrong.median_error_deg, 60.0);
}

// Images at near-symmetry mates (s g q_true, s a 180-degree turn about one of three
// orthogonal axes: the ambiguity of a low-resolution intensity that is almost an ellipsoid)
// leave the frame of the rest in place; the median error counts them as wrong, so with 60%
// of the images there it is near 180 degrees even though every image is "right" up to s.
TEST(MtipScores, OrientationErrorKeepsTheFrameAndCountsSymmetryMates) {
  std::mt19937_64 rng(12);
  const Quaternion g = about(-0.2, 0.4, 0.9, 64);
  const Quaternion s[3] = {about(1, 0, 0, 180), about(0, 1, 0, 180), about(0, 0, 1, 180)};
  const int n = 1000;
  std::vector<Quaternion> tru(n), rec(n);
  for (int i = 0; i < n; ++i) {
    tru[i] = random_quaternion(rng);
    const Quaternion q = quat_multiply(quat_multiply(g, tru[i]), random_turn(rng, 3.0));
    rec[i] = i % 5 < 2 ? q : quat_multiply(s[i % 5 - 2], q);  // 40% direct, 20% at each mate
  }
  const FrameFit f = fit_frame(rec, tru);
  EXPECT_LT(quat_angle(f.frame, g) * 360 / kTwoPi, 1.0);
  EXPECT_GT(f.median_error_deg, 170.0);
  EXPECT_NEAR(f.agreement, 0.4, 0.02);
}
