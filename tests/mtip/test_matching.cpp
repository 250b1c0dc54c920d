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

namespace {
// The naive matching: every reference slice (one type 2 NUFFT, as the fast path computes
// them), costs in double by plain loops. Returns the cost matrix [image][ref].
std::vector<double> naive_costs(const std::vector<double>& model, std::int64_t M,
                                const std::vector<Quaternion>& refs,
                                const std::vector<double>& positions, double scale,
                                const std::vector<float>& images, std::int64_t ni,
                                const MatchOptions& mo) {
  const std::int64_t npix = static_cast<std::int64_t>(positions.size() / 3);
  const std::int64_t nr = static_cast<std::int64_t>(refs.size());
  std::vector<float> x(nr * npix), y(x.size()), z(x.size()), S;
  slice_points(positions, refs.data(), nr, scale, x.data(), y.data(), z.data());
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  Slicer<float> sl(M, 1e-5, opts);
  sl.set_points(static_cast<std::int64_t>(x.size()), x.data(), y.data(), z.data());
  sl.slice_real(model, S);
  std::vector<double> cost(ni * nr);
  for (std::int64_t i = 0; i < ni; ++i)
    for (std::int64_t r = 0; r < nr; ++r) {
      double bs = 0, ss = 0;
      for (std::int64_t p = 0; p < npix; ++p) {
        const double w = mo.pixel_weights.empty() ? 1.0 : mo.pixel_weights[p];
        bs += w * images[i * npix + p] * S[r * npix + p];
        ss += w * double(S[r * npix + p]) * S[r * npix + p];
      }
      cost[i * nr + r] = mo.fit_scale ? -std::max(0.0, bs) / std::sqrt(ss) : ss - 2 * bs;
    }
  return cost;
}
// The simulation's autocorrelation scaled so its slices are of the images' order (a model the
// least-squares match can tell apart without a fitted scale).
template <typename Sim>
std::vector<double> model_at_image_level(const Sim& s) {
  double mean = 0, level = 0;
  for (float v : s.images) mean += v / s.images.size();
  for (double v : s.ac) level += std::abs(v) / s.ac.size();
  std::vector<double> model = s.ac;
  for (auto& a : model) a *= mean / level / 8;
  return model;
}

}  // namespace

// The blocked, vectorized product gives the naive answer on random data: odd sizes (images,
// references and pixels not multiples of any tile or chunk), several reference batches,
// weights with masked pixels, with and without a fitted scale. Ties aside: a different index
// must have a naive cost within float rounding of the best one.
TEST(MtipMatching, FastPathEqualsNaive) {
  const std::int64_t M = 17, ni = 53, nside = 23;
  Detector det;
  det.nx = det.ny = nside;
  det.pixel_size = 2e-3;
  det.distance = 0.06 * nside / 32.0;
  const auto positions = pixel_positions_reciprocal(det);
  const std::int64_t npix = nside * nside;  // 529
  const double scale = reciprocal_scale(positions);
  const auto model =
      autocorrelation(density_on_grid(clustered_molecule(20, M, 0.6, 4), M), M);
  const auto refs = reference_orientations(301);
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<float> u(0, 1);
  // Images: random, at the scale of the slices (mean of the model at the origin-ish).
  double level = 0;
  for (double v : model) level += std::abs(v) / model.size();
  std::vector<float> images(ni * npix);
  for (auto& v : images) v = static_cast<float>(level * 4 * u(rng));
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  for (int variant = 0; variant < 4; ++variant) {
    MatchOptions mo;
    mo.batch = 128;  // 3 batches, the last partial
    mo.fit_scale = variant & 1;
    if (variant & 2) {
      mo.pixel_weights.resize(npix);
      for (auto& w : mo.pixel_weights) w = u(rng) < 0.1f ? 0.0f : 0.5f + u(rng);
    }
    const auto idx = match_orientations<float>(model, M, refs, positions, scale, images.data(),
                                               ni, mo, opts);
    const auto cost = naive_costs(model, M, refs, positions, scale, images, ni, mo);
    const std::int64_t nr = static_cast<std::int64_t>(refs.size());
    int same = 0;
    for (std::int64_t i = 0; i < ni; ++i) {
      const double* c = &cost[i * nr];
      const std::int64_t best = std::min_element(c, c + nr) - c;
      same += idx[i] == best;
      double mag = 0;  // the size of the terms that cancel in the cost
      for (std::int64_t r = 0; r < nr; ++r) mag = std::max(mag, std::abs(c[r]));
      EXPECT_LE(c[idx[i]] - c[best], 1e-5 * mag) << "variant " << variant << " image " << i;
    }
    EXPECT_GE(same, ni - 2) << "variant " << variant;
  }
  // Weights of the wrong length, or negative, are errors naming the parameter.
  MatchOptions bad;
  bad.pixel_weights.assign(npix - 1, 1.0f);
  EXPECT_THROW(match_orientations<float>(model, M, refs, positions, scale, images.data(), ni, bad,
                                         opts),
               nufftmp::Error);
  bad.pixel_weights.assign(npix, -1.0f);
  EXPECT_THROW(match_orientations<float>(model, M, refs, positions, scale, images.data(), ni, bad,
                                         opts),
               nufftmp::Error);
}

// The collective version (references split across the ranks, slices all-gathered per batch)
// gives every rank the same answer as matching its images alone against all references. On
// one rank this checks the collective path's bookkeeping; run on 2+ ranks it checks the split.
TEST(MtipMatching, SplitReferencesEqualLocal) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::int64_t M = 17, nside = 20;
  // One molecule (the model must agree on all ranks); each rank its own block of images.
  const auto s = mtip_test::simulate(M, 40, nside, /*fluence=*/500, /*seed=*/30, /*atoms=*/20);
  const std::int64_t first = (7 * rank) % 20, count = 20 - rank % 3;
  const float* images = s.images.data() + first * s.npix;
  const auto refs = reference_orientations(257);
  const std::vector<double> model = model_at_image_level(s);
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  for (bool fit : {false, true}) {
    MatchOptions mo;
    mo.batch = 50;  // several steps, uneven shares (257 references)
    mo.fit_scale = fit;
    MatchReport rep;
    const auto local = match_orientations<float>(model, M, refs, s.positions, s.scale,
                                                 images, count, mo, opts);
    const auto split = match_orientations<float>(MPI_COMM_WORLD, model, M, refs, s.positions,
                                                 s.scale, images, count, mo,
                                                 opts, &rep);
    ASSERT_EQ(split.size(), local.size());
    for (std::size_t i = 0; i < local.size(); ++i)
      EXPECT_EQ(split[i], local[i]) << "rank " << rank << " of " << size << ", image " << i;
    if (size > 1) EXPECT_GT(rep.exchange_ms, 0.0);
  }
  // Bad options are the same error on every rank.
  MatchOptions bad;
  bad.batch = 0;
  EXPECT_THROW(match_orientations<float>(MPI_COMM_WORLD, model, M, refs, s.positions, s.scale,
                                         images, count, bad, opts),
               nufftmp::Error);
}

// poisson_weights is the same as passing w_p = 1 / (mean image at p), scaled to 1 at the
// brightest pixel (and times the user's weights); and it is not a no-op.
TEST(MtipMatching, PoissonWeightsAreInverseMeanImage) {
  const std::int64_t M = 17, nside = 20;
  const auto s = mtip_test::simulate(M, 30, nside, /*fluence=*/200, /*seed=*/41, /*atoms=*/20);
  const auto refs = reference_orientations(200);
  const std::vector<double> model = model_at_image_level(s);
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  std::vector<double> pix_mean(s.npix, 0.0);
  for (std::int64_t i = 0; i < s.n_images; ++i)
    for (std::int64_t p = 0; p < s.npix; ++p) pix_mean[p] += s.images[i * s.npix + p] / double(s.n_images);
  const double top = *std::max_element(pix_mean.begin(), pix_mean.end());
  MatchOptions explicit_w, poisson;
  explicit_w.pixel_weights.resize(s.npix);
  poisson.pixel_weights.assign(s.npix, 1.0f);
  for (std::int64_t p = 0; p < s.npix; ++p) {
    const float user = p % 7 == 0 ? 0.0f : 1.0f;  // a mask too
    poisson.pixel_weights[p] = user;
    explicit_w.pixel_weights[p] = static_cast<float>(user * top / std::max(pix_mean[p], 1e-3 * top));
  }
  poisson.poisson_weights = true;
  const auto a = match_orientations<float>(model, M, refs, s.positions, s.scale, s.images.data(),
                                           s.n_images, explicit_w, opts);
  const auto b = match_orientations<float>(model, M, refs, s.positions, s.scale, s.images.data(),
                                           s.n_images, poisson, opts);
  EXPECT_EQ(a, b);
  MatchOptions plain;
  const auto c = match_orientations<float>(model, M, refs, s.positions, s.scale, s.images.data(),
                                           s.n_images, plain, opts);
  int differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) differ += a[i] != c[i];
  EXPECT_GT(differ, 0);
}

// Top-k matching (soft assignment): on every rank the first of the k equals the best match
// of the local version, the costs come sorted, the k indices are distinct, k past the number
// of references is clamped, k < 1 is an error; the soft weights are normalised and ordered.
TEST(MtipMatching, TopKSortedAndFirstIsBest) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::int64_t M = 17, nside = 20, ni = 20;
  const auto s = mtip_test::simulate(M, 40, nside, /*fluence=*/500, /*seed=*/31, /*atoms=*/20);
  const float* images = s.images.data() + (rank % 2) * ni * s.npix;
  const auto refs = reference_orientations(157);
  const std::vector<double> model = model_at_image_level(s);
  nufftmp::Options opts;
  opts.backend = nufftmp::Backend::Cpu;
  MatchOptions mo;
  mo.batch = 40;
  const auto best = match_orientations<float>(model, M, refs, s.positions, s.scale, images, ni,
                                              mo, opts);
  const std::int64_t k = 7;
  const TopMatches top = match_top_k<float>(MPI_COMM_WORLD, model, M, refs, s.positions, s.scale,
                                            images, ni, k, mo, opts);
  ASSERT_EQ(top.k, k);
  ASSERT_EQ(top.index.size(), static_cast<std::size_t>(ni * k));
  const auto w = soft_weights(top, 1.0);
  for (std::int64_t i = 0; i < ni; ++i) {
    EXPECT_EQ(top.index[i * k], best[i]) << "image " << i;
    double sum = 0;
    for (std::int64_t j = 0; j < k; ++j) {
      sum += w[i * k + j];
      for (std::int64_t l = 0; l < j; ++l) EXPECT_NE(top.index[i * k + l], top.index[i * k + j]);
      if (j > 0) {
        EXPECT_LE(top.cost[i * k + j - 1], top.cost[i * k + j]) << "image " << i;
        EXPECT_LE(w[i * k + j], w[i * k + j - 1] * (1 + 1e-12)) << "image " << i;
      }
    }
    EXPECT_NEAR(sum, 1.0, 1e-12);
  }
  const TopMatches all = match_top_k<float>(MPI_COMM_WORLD, model, M, refs, s.positions, s.scale,
                                            images, 2, 1000, mo, opts);
  EXPECT_EQ(all.k, static_cast<std::int64_t>(refs.size()));
  EXPECT_THROW(match_top_k<float>(MPI_COMM_WORLD, model, M, refs, s.positions, s.scale, images,
                                  ni, 0, mo, opts),
               nufftmp::Error);
  EXPECT_THROW(soft_weights(top, 0.0), nufftmp::Error);
}
