// Orientation matching against the true model finds the true orientation within the
// reference grid's spacing for >= 95% of low-noise images.
#include <gtest/gtest.h>

#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"

using namespace nufftmp::mtip;

namespace {
// Small rotation of angle `angle` about a random axis.
Quaternion small_rotation(std::mt19937_64& rng, double angle) {
  std::normal_distribution<double> g;
  Vec3 a{g(rng), g(rng), g(rng)};
  const double n = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  const double s = std::sin(angle / 2) / n;
  return {std::cos(angle / 2), a[0] * s, a[1] * s, a[2] * s};
}
}  // namespace

TEST(MtipMatching, FindsTrueOrientations) {
  const auto refs = reference_orientations(3000);
  // True orientations: 60 references, each turned by up to a quarter of the grid spacing, so
  // "the true orientation within the grid's spacing" has one answer: that reference.
  std::mt19937_64 rng(21);
  std::uniform_int_distribution<std::size_t> pick(0, refs.size() - 1);
  std::uniform_real_distribution<double> tilt(0, 0.05);
  std::vector<Quaternion> truth;
  std::vector<std::size_t> truth_ref;
  for (int i = 0; i < 60; ++i) {
    truth_ref.push_back(pick(rng));
    truth.push_back(quat_multiply(refs[truth_ref.back()], small_rotation(rng, tilt(rng))));
  }
  const auto s = mtip_test::simulate(33, 60, 32, /*fluence=*/1000, /*seed=*/5, /*atoms=*/40,
                                     &truth);
  // The images are in photon units; the model must be too: scale the true ac by the gain.
  double mean = 0, mean_true = 0;
  for (float v : s.images) mean += v;
  mean /= s.images.size();
  {
    std::vector<double> x(s.n_images * s.npix), y(x.size()), z(x.size());
    slice_points(s.positions, s.orient.data(), s.n_images, s.scale, x.data(), y.data(), z.data());
    Slicer<double> sl(s.M, 1e-9);
    sl.set_points(static_cast<std::int64_t>(x.size()), x.data(), y.data(), z.data());
    std::vector<double> v;
    sl.slice_real(s.ac, v);
    for (double a : v) mean_true += a / v.size();
  }
  std::vector<double> model = s.ac;
  for (auto& a : model) a *= mean / mean_true;
  // The grid's spacing: the mean angle from a reference to its nearest neighbour (sampled).
  double spacing = 0;
  const int probes = 300;
  for (int p = 0; p < probes; ++p) {
    const std::size_t a = static_cast<std::size_t>(p) * 9973 % refs.size();
    double nearest = 10;
    for (std::size_t b = 0; b < refs.size(); ++b)
      if (b != a) nearest = std::min(nearest, quat_angle(refs[a], refs[b]));
    spacing += nearest / probes;
  }
  const double covering = covering_angle(refs, 300, 3);
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  MatchOptions mo;
  MatchReport rep;
  const auto idx = match_orientations<float>(model, s.M, refs, s.positions, s.scale,
                                             s.images.data(), s.n_images, mo, opts, &rep);
  int good = 0, exact = 0;
  for (std::int64_t i = 0; i < s.n_images; ++i) {
    good += quat_angle(refs[idx[i]], s.orient[i]) <= spacing;
    exact += static_cast<std::size_t>(idx[i]) == truth_ref[i];
  }
  std::printf("matching: %d of %lld the perturbed reference, %d within the spacing %.3f rad (covering radius %.3f; "
              "slicing %.0f ms, products %.0f ms)\n",
              exact, (long long)s.n_images, good, spacing, covering, rep.slicing_ms, rep.gemm_ms);
  EXPECT_GE(good, 0.95 * s.n_images);
  // With a fitted scale per image, a model of the wrong overall scale matches as well.
  MatchOptions fit = mo;
  fit.fit_scale = true;
  std::vector<double> scaled = model;
  for (auto& a : scaled) a *= 0.3;
  const auto idx_fit = match_orientations<float>(scaled, s.M, refs, s.positions, s.scale,
                                                 s.images.data(), s.n_images, fit, opts);
  int good_fit = 0;
  for (std::int64_t i = 0; i < s.n_images; ++i)
    good_fit += quat_angle(refs[idx_fit[i]], s.orient[i]) <= spacing;
  EXPECT_GE(good_fit, 0.95 * s.n_images);
  // Can fail: against a wrong model (another molecule), most images miss.
  const auto other = autocorrelation(density_on_grid(random_molecule(25, s.M, 0.8, 99), s.M), s.M);
  std::vector<double> wrong = other;
  for (auto& a : wrong) a *= mean / mean_true;
  const auto idx2 = match_orientations<float>(wrong, s.M, refs, s.positions, s.scale,
                                              s.images.data(), s.n_images, mo, opts);
  int good2 = 0;
  for (std::int64_t i = 0; i < s.n_images; ++i)
    good2 += quat_angle(refs[idx2[i]], s.orient[i]) <= spacing;
  EXPECT_LT(good2, 0.5 * s.n_images);
}
