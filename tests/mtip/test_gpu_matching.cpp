// GPU orientation matching (src/mtip/gpu, backend cuda) against the host path (backend cpu) on
// random data: the same best reference for every image (float: up to ties within rounding),
// the same costs to rounding, sorted distinct top-k lists, every option (fitted scale, pixel
// weights, Poisson weights), several batches with a partial last one, the reference split over
// the ranks of the run, and errors on every rank. Label gpu: exits 77 without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

using namespace nufftmp::mtip;

namespace {
nufftmp::Options with_backend(nufftmp::Backend b) {
  nufftmp::Options o;
  o.backend = b;
  return o;
}

// Odd sizes: images, references and pixels are multiples of no tile or batch.
struct Case {
  std::int64_t M = 17, ni = 53, nside = 23, npix = 0;
  std::vector<double> positions, model;
  double scale = 0;
  std::vector<Quaternion> refs;
  std::vector<float> images;  // random, at the level of the slices

  explicit Case(std::uint64_t image_seed) {
    Detector det;
    det.nx = det.ny = nside;
    det.pixel_size = 2e-3;
    det.distance = 0.06 * nside / 32.0;
    positions = pixel_positions_reciprocal(det);
    npix = nside * nside;
    scale = reciprocal_scale(positions);
    model = autocorrelation(density_on_grid(clustered_molecule(20, M, 0.6, 4), M), M);
    refs = reference_orientations(301);
    double level = 0;
    for (double v : model) level += std::abs(v) / model.size();
    std::mt19937_64 rng(image_seed);
    std::uniform_real_distribution<float> u(0, 1);
    images.resize(ni * npix);
    for (auto& v : images) v = static_cast<float>(level * 4 * u(rng));
  }
};

MatchOptions variant_options(int variant, std::int64_t npix) {
  MatchOptions mo;
  mo.batch = 64;  // 5 batches on one rank, the last partial
  mo.fit_scale = variant & 1;
  if (variant & 2) {
    std::mt19937_64 rng(17);
    std::uniform_real_distribution<float> u(0, 1);
    mo.pixel_weights.resize(npix);
    for (auto& w : mo.pixel_weights) w = u(rng) < 0.1f ? 0.0f : 0.5f + u(rng);
  }
  mo.poisson_weights = variant & 4;
  return mo;
}

// Checks a GPU top-k list against the host's full sorted list (k = all references).
void expect_agree(const TopMatches& gpu, const TopMatches& host, std::int64_t ni,
                  std::int64_t nref, double rel_tol, bool exact_best, const std::string& what) {
  ASSERT_EQ(host.k, nref);
  const std::int64_t k = gpu.k;
  ASSERT_EQ(gpu.index.size(), static_cast<std::size_t>(ni * k));
  int same = 0;
  for (std::int64_t i = 0; i < ni; ++i) {
    std::vector<double> cost(nref);  // host cost of every reference
    double mag = 0;                  // the size of the terms that cancel in a cost
    for (std::int64_t j = 0; j < nref; ++j) {
      cost[host.index[i * nref + j]] = host.cost[i * nref + j];
      mag = std::max(mag, std::abs(host.cost[i * nref + j]));
    }
    const std::int64_t best = host.index[i * nref];
    same += gpu.index[i * k] == best;
    if (exact_best) EXPECT_EQ(gpu.index[i * k], best) << what << ", image " << i;
    // A different pick is a tie: its host cost within rounding of the best one.
    EXPECT_LE(cost[gpu.index[i * k]] - cost[best], rel_tol * mag) << what << ", image " << i;
    for (std::int64_t j = 0; j < k; ++j) {
      const std::int64_t r = gpu.index[i * k + j];
      ASSERT_GE(r, 0) << what;
      ASSERT_LT(r, nref) << what;
      EXPECT_NEAR(gpu.cost[i * k + j], cost[r], rel_tol * mag) << what << ", image " << i;
      if (j > 0) {
        EXPECT_LE(gpu.cost[i * k + j - 1], gpu.cost[i * k + j]) << what << ", image " << i;
        for (std::int64_t l = 0; l < j; ++l) EXPECT_NE(gpu.index[i * k + l], r) << what;
      }
    }
  }
  std::printf("%s: %d of %lld best references equal the host's\n", what.c_str(), same,
              (long long)ni);
  EXPECT_GE(same, ni - 2) << what;
}

// Host and GPU on every option variant, T = float and double, through the collective entry
// point (references split over the ranks of the run).
template <typename T>
void compare_with_host(double nufft_tol, double rel_tol, bool exact_best) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Case c(8 + rank);  // each rank its own images; model and references agree
  const std::int64_t nref = static_cast<std::int64_t>(c.refs.size()), k = 5;
  for (int variant = 0; variant < 8; ++variant) {
    MatchOptions mo = variant_options(variant, c.npix);
    mo.nufft_tol = nufft_tol;
    const TopMatches host =
        match_top_k<T>(MPI_COMM_WORLD, c.model, c.M, c.refs, c.positions, c.scale,
                       c.images.data(), c.ni, nref, mo, with_backend(nufftmp::Backend::Cpu));
    MatchReport rep;
    const TopMatches gpu =
        match_top_k<T>(MPI_COMM_WORLD, c.model, c.M, c.refs, c.positions, c.scale,
                       c.images.data(), c.ni, k, mo, with_backend(nufftmp::Backend::Cuda), &rep);
    const std::string what = std::string(sizeof(T) == 4 ? "float" : "double") + " variant " +
                             std::to_string(variant) + " rank " + std::to_string(rank);
    expect_agree(gpu, host, c.ni, nref, rel_tol, exact_best, what);
    EXPECT_EQ(rep.engine, nufftmp::Backend::Cuda) << what;  // not a silent host fallback
    EXPECT_EQ(rep.exchange_ms, 0.0) << what;  // every rank sliced every reference
    EXPECT_GT(rep.slicing_ms, 0.0);
    EXPECT_GT(rep.gemm_ms, 0.0);
  }
}
}  // namespace

// Every image must pick the host's reference: on this data the best and second-best costs are
// >= 3.4e-5 apart (relative to the largest cost), the host's float products and the slices'
// tolerance move costs by ~4e-7 (measured: host float vs host double).
TEST(MtipGpuMatching, FloatEqualsHost) { compare_with_host<float>(1e-6, 1e-5, true); }
TEST(MtipGpuMatching, DoubleEqualsHost) { compare_with_host<double>(1e-11, 2e-6, true); }

// The local entry point and the collective one give the same GPU answer (on GPUs both slice
// every reference); match_orientations is the first of top-k.
TEST(MtipGpuMatching, SplitEqualsLocal) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const Case c(30 + rank);
  const auto cuda = with_backend(nufftmp::Backend::Cuda);
  for (bool fit : {false, true}) {
    MatchOptions mo;
    mo.batch = 50;
    mo.fit_scale = fit;
    const auto local = match_orientations<float>(c.model, c.M, c.refs, c.positions, c.scale,
                                                 c.images.data(), c.ni, mo, cuda);
    const auto split = match_orientations<float>(MPI_COMM_WORLD, c.model, c.M, c.refs,
                                                 c.positions, c.scale, c.images.data(), c.ni,
                                                 mo, cuda);
    EXPECT_EQ(split, local) << "rank " << rank << ", fit_scale " << fit;
    const TopMatches top = match_top_k<float>(MPI_COMM_WORLD, c.model, c.M, c.refs, c.positions,
                                              c.scale, c.images.data(), c.ni, 3, mo, cuda);
    for (std::int64_t i = 0; i < c.ni; ++i) EXPECT_EQ(top.index[i * 3], local[i]);
  }
}

// No images (a rank without a share) and k past the number of references (clamped).
TEST(MtipGpuMatching, EmptyAndClamped) {
  const Case c(5);
  const auto cuda = with_backend(nufftmp::Backend::Cuda);
  MatchOptions mo;
  const TopMatches none = match_top_k<float>(MPI_COMM_WORLD, c.model, c.M, c.refs, c.positions,
                                             c.scale, c.images.data(), 0, 4, mo, cuda);
  EXPECT_TRUE(none.index.empty());
  const std::vector<Quaternion> few(c.refs.begin(), c.refs.begin() + 3);
  const TopMatches all = match_top_k<float>(MPI_COMM_WORLD, c.model, c.M, few, c.positions,
                                            c.scale, c.images.data(), 4, 10, mo, cuda);
  EXPECT_EQ(all.k, 3);
  for (std::int64_t i = 0; i < 4; ++i) {
    std::vector<std::int64_t> got(all.index.begin() + 3 * i, all.index.begin() + 3 * i + 3);
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got, (std::vector<std::int64_t>{0, 1, 2}));
  }
}

// A model of the wrong size is the same typed error on every rank (no rank left waiting).
TEST(MtipGpuMatching, BadModelIsAnErrorOnEveryRank) {
  const Case c(6);
  std::vector<double> bad(c.model.begin(), c.model.end() - 1);
  try {
    match_top_k<float>(MPI_COMM_WORLD, bad, c.M, c.refs, c.positions, c.scale, c.images.data(),
                       c.ni, 1, MatchOptions(), with_backend(nufftmp::Backend::Cuda));
    ADD_FAILURE() << "no error";
  } catch (const nufftmp::Error& e) {
    EXPECT_EQ(e.code(), nufftmp::ErrorCode::InvalidArgument) << e.what();
    EXPECT_NE(std::string(e.what()).find("model"), std::string::npos) << e.what();
  }
}
