// The CPU engine's set_points: points re-set on one plan (growing, shrinking, bad points on a
// later call, clustered after uniform), each transform checked against the direct sum; the bin
// sort's invariants (a permutation, in bin order, every kernel footprint inside its
// subproblem's box); and the pure logic it rests on (bin layout, boxes, the mode runs of the
// deconvolution).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "common/reference_check.hpp"
#include "common/grid.hpp"
#include "common/test_data.hpp"
#include "common/plan_config.hpp"
#include "cpu/deconvolve.hpp"
#include "cpu/kernel_eval.hpp"
#include "cpu/sorted_points.hpp"
#include "nufftmp/plan.hpp"
#include "nufftmp/reference.hpp"

namespace nufftmp::test {
namespace {

// Error against the direct sum of the points the plan holds now (pts), without setting them.
template <typename T>
double error_of_current_points(Plan<T>& plan, const Points<T>& pts, std::mt19937_64& rng,
                               std::int64_t outputs) {
  const std::int64_t M = pts.M, nmodes = plan.num_modes();
  const auto N = plan.modes();
  if (plan.type() == 1) {
    auto c = random_complex<T>(M, rng);
    std::vector<std::complex<T>> f(static_cast<size_t>(nmodes), {7, 7});
    plan.execute(c.data(), f.data());
    const auto idx = sample_indices(nmodes, outputs, rng);
    const auto exact = reference::type1<T>(plan.dim(), M, pts.x(), pts.y(), pts.z(), c.data(),
                                           plan.isign(), N.data(), 0, idx);
    return reference::rel_l2_error<T>(exact, f.data(), idx);
  }
  auto f = random_complex<T>(nmodes, rng);
  std::vector<std::complex<T>> c(static_cast<size_t>(M), {7, 7});
  plan.execute(c.data(), f.data());
  const auto idx = sample_indices(M, outputs, rng);
  const auto exact = reference::type2<T>(plan.dim(), pts.x(), pts.y(), pts.z(), f.data(),
                                         plan.isign(), N.data(), 0, idx);
  return reference::rel_l2_error<T>(exact, c.data(), idx);
}

// The point counts of one reset sequence, and how many outputs each check samples.
struct ResetSizes {
  std::int64_t first, grown, shrunk, bad, clustered, folded, outputs;
};
constexpr ResetSizes kFewPoints = {3000, 20000, 900, 30000, 25000, 5000, 300};

template <typename T>
void reset_sequence(int type, int dim, double tol, double bound,
                    const ResetSizes& n = kFewPoints) {
  const std::string name = "reset" + std::to_string(type) + std::to_string(dim) +
                           (sizeof(T) == 4 ? "f" : "d") + std::to_string(n.first);
  SCOPED_TRACE(name);
  auto rng = make_rng(salt_of(name));
  const std::vector<std::int64_t> modes = dim == 1 ? std::vector<std::int64_t>{200}
                                          : dim == 2 ? std::vector<std::int64_t>{40, 36}
                                                     : std::vector<std::int64_t>{16, 12, 14};
  Plan<T> plan(type, modes, 1, 1, tol, cpu_options());
  const auto nf = plan.fine_grid();
  // Uniform, then more points (the arrays grow), then fewer.
  const auto a = uniform_points<T>(dim, n.first, rng);
  EXPECT_LE(check_transform(plan, 0, a, rng, n.outputs).rel_err, bound) << "first";
  const auto b = uniform_points<T>(dim, n.grown, rng);
  EXPECT_LE(check_transform(plan, 0, b, rng, n.outputs).rel_err, bound) << "grown";
  const auto c = uniform_points<T>(dim, n.shrunk, rng);
  EXPECT_LE(check_transform(plan, 0, c, rng, n.outputs).rel_err, bound) << "shrunk";
  EXPECT_LE(check_transform(plan, 0, b, rng, n.outputs).rel_err, bound) << "grown again";

  // A NaN on a later call, among more points than ever: BadPoints naming it, and the plan
  // keeps the points it had.
  auto bad = uniform_points<T>(dim, n.bad, rng);
  const std::int64_t at = n.bad - 124;
  bad.xyz[dim - 1][at] = std::numeric_limits<T>::quiet_NaN();
  const std::string axis(1, "xyz"[dim - 1]);
  try {
    plan.set_points(bad.M, bad.x(), bad.y(), bad.z());
    ADD_FAILURE() << "no error for a NaN coordinate";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BadPoints);
    EXPECT_NE(std::string(e.what()).find(axis + "[" + std::to_string(at) + "]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(plan.num_points(), b.M);
  EXPECT_LE(error_of_current_points(plan, b, rng, n.outputs), bound) << "after the failed call";

  // Then a valid call works: clustered points after uniform ones.
  const auto cl = clustered_points<T>(dim, n.clustered, nf, rng);
  EXPECT_LE(check_transform(plan, 0, cl, rng, n.outputs).rel_err, bound) << "clustered";
  // And uniform after clustered, fewer of them.
  const auto u = uniform_points<T>(dim, n.folded, rng, -3 * kPi, 3 * kPi);
  EXPECT_LE(check_transform(plan, 0, u, rng, n.outputs).rel_err, bound) << "uniform, folded";
}

TEST(CpuSetPoints, ResetOnOnePlanMatchesTheDirectSum) {
  for (int type : {1, 2})
    for (int dim : {1, 2, 3}) {
      reset_sequence<double>(type, dim, 1e-9, 1e-8);
      reset_sequence<float>(type, dim, 1e-4, 1e-3);
    }
}

// The same with enough points for the streamed place (sorted_points.cpp: above 4 MiB of sorted
// points, 131072 in 3D to 262144 in 1D), except the shrunk set (the direct place in between);
// fewer sampled outputs, since each costs a sum over all points in type 1.
TEST(CpuSetPoints, ResetWithManyPointsMatchesTheDirectSum) {
  const ResetSizes many = {300000, 400000, 900, 420000, 300000, 290000, 40};
  for (int type : {1, 2})
    for (int dim : {1, 2, 3}) {
      if ((type + dim) % 2 == 0)
        reset_sequence<double>(type, dim, 1e-9, 1e-8, many);
      else
        reset_sequence<float>(type, dim, 1e-4, 1e-3, many);
    }
}

TEST(CpuSetPoints, BadPointFoundAmongManyPoints) {
  // Enough points for several threads' chunks; the check reports the first bad coordinate
  // (axis by axis, as check_points_host).
  auto rng = make_rng(salt_of("bad-many"));
  Plan<float> plan(1, {32, 32}, 1, 1, 1e-4, cpu_options());
  auto pts = uniform_points<float>(2, 400000, rng);
  pts.xyz[1][12] = std::numeric_limits<float>::infinity();
  pts.xyz[0][399999] = 100.0f;
  try {
    plan.set_points(pts.M, pts.x(), pts.y());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::BadPoints);
    EXPECT_NE(std::string(e.what()).find("x[399999]"), std::string::npos) << e.what();
  }
  EXPECT_EQ(plan.num_points(), 0);
}

// The sort's output for one set of points: a permutation, coordinates equal to the folded
// user coordinates, nondecreasing bins, every kernel footprint inside its subproblem's box,
// and in 3D every subproblem's points in one slab of bins (one bin along z).
template <typename T>
void check_sorted(int dim, const Points<T>& pts, const std::array<std::int64_t, 3>& nf, int w,
                  bool sort, int nthreads,
                  nufftmp::detail::cpu::BinShape shape = nufftmp::detail::cpu::BinShape::Default) {
  using namespace nufftmp::detail::cpu;
  SortedPoints<T> sp;
  sort_points<T>(dim, pts.M, pts.x(), pts.y(), pts.z(), nf, w, sort, nthreads, 0, sp,
                 Place::Auto, shape);
  ASSERT_EQ(sp.M, pts.M);
  ASSERT_EQ(sp.dim, dim);
  const BinLayout bins = make_bin_layout(dim, nf, shape);
  std::vector<char> seen(static_cast<size_t>(pts.M), 0);
  std::int64_t last_bin = -1, covered = 0;
  for (const Subproblem& s : sp.subproblems) {
    ASSERT_EQ(s.begin, covered);
    covered = s.end;
    std::int64_t slab = -1;
    for (std::int64_t j = s.begin; j < s.end; ++j) {
      double rec[3] = {0, 0, 0};  // either layout (the packed one decoded)
      for (int d = 0; d < dim; ++d) rec[d] = sp.coord(j, d);
      if (sort && dim == 3) {
        const std::int64_t z = static_cast<std::int64_t>(rec[2]) >> bins.log_size[2];
        if (slab < 0) slab = z;
        ASSERT_EQ(z, slab) << "subproblem [" << s.begin << ", " << s.end << ") crosses slabs";
      }
      const std::int64_t u = sp.index(j);
      ASSERT_TRUE(u >= 0 && u < pts.M && !seen[u]) << "perm[" << j << "] = " << u;
      seen[u] = 1;
      std::int64_t bin = 0;
      for (int d = dim - 1; d >= 0; --d) {
        const double g = rec[d];
        // The fold: the same point of the torus, scaled to [0, nf).
        const double want = std::fmod(static_cast<double>(pts.xyz[d][u]) + 4 * kPi, 2 * kPi) *
                            static_cast<double>(nf[d]) / (2 * kPi);
        const double diff = std::abs(g - want);
        ASSERT_TRUE(g >= 0 && g < nf[d] && (diff < 1e-9 * nf[d] || diff > nf[d] * (1 - 1e-9)))
            << "g " << g << " want " << want;
        const std::int64_t i0 = generic::first_cell(g, w);
        ASSERT_GE(i0, s.lo[d]);
        ASSERT_LE(i0 + w, s.lo[d] + s.extent[d]);
        bin = bin * bins.count[d] + (static_cast<std::int64_t>(g) >> bins.log_size[d]);
      }
      if (sort) {
        ASSERT_GE(bin, last_bin);
        last_bin = bin;
      }
    }
    if (sort) EXPECT_LE(s.end - s.begin, sp.max_subproblem_points);
    EXPECT_LE(s.cells(), sp.max_subproblem_cells);
  }
  EXPECT_EQ(covered, pts.M);
}

TEST(CpuSetPoints, SortedPointsKeepTheirInvariants) {
  auto rng = make_rng(salt_of("sorted-invariants"));
  for (int dim : {1, 2, 3})
    for (bool sort : {true, false})
      for (int nthreads : {1, 3}) {
        SCOPED_TRACE("dim " + std::to_string(dim) + " sort " + std::to_string(sort) +
                     " threads " + std::to_string(nthreads));
        const std::array<std::int64_t, 3> nf = {dim >= 1 ? 300 : 1, dim >= 2 ? 64 : 1,
                                                dim >= 3 ? 40 : 1};
        check_sorted(dim, uniform_points<double>(dim, 50000, rng, -3 * kPi, 3 * kPi), nf, 7,
                     sort, nthreads);
        check_sorted(dim, clustered_points<float>(dim, 40000, nf, rng), nf, 4, sort, nthreads);
        check_sorted(dim, uniform_points<float>(dim, 5, rng), nf, 2, sort, nthreads);
        // The finer 3D bins of the double spreader (a no-op shape in 1D and 2D).
        check_sorted(dim, uniform_points<double>(dim, 50000, rng, -3 * kPi, 3 * kPi), nf, 10,
                     sort, nthreads, nufftmp::detail::cpu::BinShape::Small);
      }
}

TEST(CpuSetPoints, SmallBinsAreFinerIn3DOnly) {
  using namespace nufftmp::detail::cpu;
  const std::array<std::int64_t, 3> nf = {128, 128, 128};
  const BinLayout a = make_bin_layout(3, nf), b = make_bin_layout(3, nf, BinShape::Small);
  EXPECT_LT(a.total(), b.total());
  EXPECT_EQ(a.log_size[0], b.log_size[0]);
  EXPECT_GT(a.log_size[1], b.log_size[1]);
  EXPECT_GT(a.log_size[2], b.log_size[2]);
  const std::array<std::int64_t, 3> nf2 = {1024, 1024, 1};
  EXPECT_EQ(make_bin_layout(2, nf2).log_size, make_bin_layout(2, nf2, BinShape::Small).log_size);
}

// The streamed place writes what the direct place writes, bit for bit (the execute reads
// either): every dimension and precision, one and several threads (chunks, whose shares of a
// bin meet inside a line), many and few points per bin, 5 points (only partial lines).
template <typename T>
void streamed_matches_direct(int dim, const Points<T>& pts, const std::array<std::int64_t, 3>& nf,
                             int nthreads) {
  using namespace nufftmp::detail::cpu;
  SortedPoints<T> a, b;
  sort_points<T>(dim, pts.M, pts.x(), pts.y(), pts.z(), nf, 5, true, nthreads, 0, a,
                 Place::Direct);
  sort_points<T>(dim, pts.M, pts.x(), pts.y(), pts.z(), nf, 5, true, nthreads, 0, b,
                 Place::Streamed);
  ASSERT_EQ(a.M, pts.M);
  ASSERT_EQ(b.M, pts.M);
  // Sorted float points take the packed layout, double ones g and the 32-bit permutation.
  constexpr bool packed = std::is_same_v<T, float>;
  ASSERT_EQ(a.packed, packed);
  ASSERT_EQ(b.packed, packed);
  if (packed) {
    EXPECT_EQ(std::memcmp(a.rec.data(), b.rec.data(), sizeof(std::uint32_t) * pts.M * (dim + 1)),
              0);
  } else {
    EXPECT_EQ(std::memcmp(a.g.data(), b.g.data(), sizeof(double) * pts.M * dim), 0);
    ASSERT_FALSE(a.wide_perm);  // below 2^31 points: 32-bit indices
    ASSERT_FALSE(b.wide_perm);
    EXPECT_EQ(std::memcmp(a.perm32.data(), b.perm32.data(), sizeof(std::int32_t) * pts.M), 0);
  }
  EXPECT_TRUE(a.bin_start == b.bin_start);
  ASSERT_EQ(a.subproblems.size(), b.subproblems.size());
  for (size_t s = 0; s < a.subproblems.size(); ++s) {
    EXPECT_EQ(a.subproblems[s].begin, b.subproblems[s].begin);
    EXPECT_EQ(a.subproblems[s].lo, b.subproblems[s].lo);
    EXPECT_EQ(a.subproblems[s].extent, b.subproblems[s].extent);
  }
  EXPECT_GT(b.line_buffers.bytes(), 0u);
  if (packed) {
    // The packed layout against the double one of the same points (allow_packed false): the
    // same order and indices, coordinates within the fixed point's step (2^(s - 32) cells).
    for (Place place : {Place::Direct, Place::Streamed}) {
      SortedPoints<T> d;
      sort_points<T>(dim, pts.M, pts.x(), pts.y(), pts.z(), nf, 5, true, nthreads, 0, d, place,
                     BinShape::Default, false);
      ASSERT_FALSE(d.packed);
      for (std::int64_t j = 0; j < pts.M; ++j) {
        ASSERT_EQ(a.index(j), d.index(j)) << "perm[" << j << "]";
        for (int k = 0; k < dim; ++k) {
          const double step = std::ldexp(1.0, a.layout.log_size[k] - 32);
          const double diff = d.g[j * dim + k] - a.coord(j, k);
          ASSERT_TRUE(diff >= 0 && diff < step + 1e-9) << "j " << j << " d " << k << " diff " << diff;
        }
      }
    }
    return;
  }
  // The 64-bit permutation (past 2^31 points, or kept from a larger set_points: here a
  // reserved one) holds the same indices, in either place.
  for (Place place : {Place::Direct, Place::Streamed}) {
    SortedPoints<T> w;
    w.perm64.ensure(pts.M, "test");
    sort_points<T>(dim, pts.M, pts.x(), pts.y(), pts.z(), nf, 5, true, nthreads, 0, w, place);
    ASSERT_TRUE(w.wide_perm);
    EXPECT_EQ(std::memcmp(a.g.data(), w.g.data(), sizeof(double) * pts.M * dim), 0);
    for (std::int64_t j = 0; j < pts.M; ++j)
      ASSERT_EQ(w.perm64[j], std::int64_t(a.perm32[j])) << "perm[" << j << "]";
  }
}

TEST(CpuSetPoints, StreamedPlaceMatchesTheDirectPlace) {
  auto rng = make_rng(salt_of("streamed-direct"));
  for (int dim : {1, 2, 3})
    for (int nthreads : {1, 3}) {
      SCOPED_TRACE("dim " + std::to_string(dim) + " threads " + std::to_string(nthreads));
      // Few bins (many points per bin) and many (a few points per bin).
      const std::array<std::int64_t, 3> few = {dim == 1 ? 3000 : 300, dim >= 2 ? 64 : 1,
                                               dim >= 3 ? 40 : 1};
      const std::array<std::int64_t, 3> many = {dim == 1 ? 400000 : dim == 2 ? 2048 : 256,
                                                dim >= 2 ? 1024 : 1, dim >= 3 ? 128 : 1};
      for (const auto& nf : {few, many}) {
        streamed_matches_direct(dim, uniform_points<double>(dim, 60001, rng, -3 * kPi, 3 * kPi),
                                nf, nthreads);
        streamed_matches_direct(dim, uniform_points<float>(dim, 50000, rng), nf, nthreads);
        streamed_matches_direct(dim, clustered_points<float>(dim, 40000, nf, rng), nf, nthreads);
        streamed_matches_direct(dim, uniform_points<double>(dim, 5, rng), nf, nthreads);
      }
    }
}

// Sorts `first`, then each of `rest` (the same or fewer points) on one SortedPoints: no array
// is reallocated and the memory it reports stays (the subproblem list only grows to the most
// subproblems seen, the first set's).
void expect_no_allocation_after_first(int dim, const std::array<std::int64_t, 3>& nf,
                                      const Points<float>& first,
                                      std::initializer_list<const Points<float>*> rest) {
  using namespace nufftmp::detail::cpu;
  SortedPoints<float> sp;
  sort_points<float>(dim, first.M, first.x(), first.y(), first.z(), nf, 5, true, 2, 0, sp);
  ASSERT_TRUE(sp.packed);  // sorted float points: the packed records only
  const std::uint32_t* rec = sp.rec.data();
  const std::uint64_t* lines = sp.line_buffers.data();
  const std::size_t bytes = sp.bytes();
  for (const auto* p : rest) {
    sort_points<float>(dim, p->M, p->x(), p->y(), p->z(), nf, 5, true, 2, 0, sp);
    EXPECT_EQ(sp.M, p->M);
    EXPECT_EQ(sp.rec.data(), rec);
    EXPECT_TRUE(sp.packed);
    EXPECT_EQ(sp.line_buffers.data(), lines);
    EXPECT_EQ(sp.bytes(), bytes);
  }
}

TEST(CpuSetPoints, TheSameOrFewerPointsReuseTheArrays) {
  auto rng = make_rng(salt_of("reuse"));
  const std::array<std::int64_t, 3> nf = {64, 48, 1};
  const auto big = uniform_points<float>(2, 30000, rng);
  const auto small = clustered_points<float>(2, 700, nf, rng);
  expect_no_allocation_after_first(2, nf, big, {&small, &big, &small});
}

TEST(CpuSetPoints, TheSameOrFewerPointsReuseTheStreamedPlacesBuffers) {
  // Enough points for the streamed place (Auto), then fewer (the direct place), clustered
  // (the direct place: few bins), and as many again.
  auto rng = make_rng(salt_of("reuse-streamed"));
  const std::array<std::int64_t, 3> nf = {128, 128, 128};
  const auto big = uniform_points<float>(3, 300000, rng);
  const auto cl = clustered_points<float>(3, 300000, nf, rng);
  const auto small = uniform_points<float>(3, 2000, rng);
  {
    nufftmp::detail::cpu::SortedPoints<float> sp;
    nufftmp::detail::cpu::sort_points<float>(3, big.M, big.x(), big.y(), big.z(), nf, 5, true,
                                             2, 0, sp);
    ASSERT_GT(sp.line_buffers.bytes(), 0u);
  }
  expect_no_allocation_after_first(3, nf, big, {&small, &cl, &big, &small, &big});
}

TEST(CpuSetPoints, BinLayoutCoversTheGridWithinTheCap) {
  using namespace nufftmp::detail::cpu;
  const std::array<std::int64_t, 3> grids[] = {
      {20000000, 1, 1}, {1000, 1, 1}, {512, 512, 1}, {4096, 4096, 1}, {128, 128, 128},
      {256, 256, 256}, {10, 6, 4}, {2, 2, 2}};
  for (const auto& nf : grids) {
    const int dim = nf[2] > 1 ? 3 : nf[1] > 1 ? 2 : 1;
    const BinLayout b = make_bin_layout(dim, nf);
    EXPECT_EQ(b.dim, dim);
    for (int d = 0; d < 3; ++d) {
      // Every cell has a bin, and no bin lies wholly outside the grid.
      EXPECT_GE(b.count[d] << b.log_size[d], nf[d]);
      EXPECT_LT((b.count[d] - 1) << b.log_size[d], nf[d]);
    }
    // The cap holds wherever widening the x bins can reach it.
    if (b.total() > kMaxBins) EXPECT_GE(std::int64_t(1) << b.log_size[0], nf[0]);
  }
  // Small 3D grids keep the shapes measured for them (sorted_points.cpp): 16 x 8 x 8, and
  // 16 x 4 x 4 for the double spreader.
  const BinLayout b = make_bin_layout(3, {128, 128, 128});
  EXPECT_EQ(b.log_size[0], 4);
  EXPECT_EQ(b.log_size[1], 3);
  EXPECT_EQ(b.log_size[2], 3);
  const BinLayout s = make_bin_layout(3, {128, 128, 128}, BinShape::Small);
  EXPECT_EQ(s.log_size[0], 4);
  EXPECT_EQ(s.log_size[1], 2);
  EXPECT_EQ(s.log_size[2], 2);
}

TEST(CpuSetPoints, BoxOfBinsSkipsEmptyBins) {
  using namespace nufftmp::detail::cpu;
  const std::array<std::int64_t, 3> nf = {128, 64, 1};
  const BinLayout bins = make_bin_layout(2, nf);  // 64 x 16 cells: 2 x 4 bins
  ASSERT_EQ(bins.count[0], 2);
  ASSERT_EQ(bins.count[1], 4);
  // Points in bins 0 (x 0..63, y 0..15) and 2 (x 0..63, y 16..31) only; bin 1 is empty.
  const std::vector<std::int64_t> start = {0, 10, 10, 25, 25, 25, 25, 25, 25};
  Subproblem sp;
  box_of_bins(bins, nf, 4, start.data(), 0, 2, sp);
  // x: cells [0, 64) give first cells -2 .. 62 (upper end included), + w = 4.
  EXPECT_EQ(sp.lo[0], -2);
  EXPECT_EQ(sp.extent[0], 62 - -2 + 4);
  EXPECT_EQ(sp.lo[1], -2);
  EXPECT_EQ(sp.extent[1], 30 - -2 + 4);
}

TEST(CpuDeconvolution, LongRowsSplitAcrossThreadsMatchTheDirectSum) {
  // 1D rows of 4e4 modes are cut into parts for the threads; both mode orders, odd and even
  // lengths, both types, 1 and 4 threads.
  // 6e5 modes: more factors than a table holds (kMaxXTable), evaluated at execute.
  for (std::int64_t N : {40000, 40001, 600000, 600001})
    for (int modeord : {0, 1})
      for (int type : {1, 2})
        for (int threads : {1, 4}) {
          auto rng = make_rng(salt_of("long-rows") + N + 10 * modeord + 100 * type + threads);
          Options o = cpu_options();
          o.modeord = modeord;
          o.nthreads = threads;
          Plan<double> plan(type, {N}, 1, 1, 1e-9, o);
          const auto pts = uniform_points<double>(1, 3000, rng);
          // The direct sum of type 2 costs N per output: fewer outputs for the long rows.
          EXPECT_LE(check_transform(plan, modeord, pts, rng, N > 100000 ? 40 : 400).rel_err, 1e-8)
              << "N " << N << " modeord " << modeord << " type " << type << " threads " << threads;
        }
}

// The x-axis factors evaluated at execute (no table: max_x_table 0) give the table's modes
// bit for bit: 1D to 3D, both mode orders, odd and even lengths, rows cut into parts.
template <typename T>
void series_matches_table(int dim, std::int64_t n0, int modeord, int nthreads) {
  using namespace nufftmp::detail;
  SCOPED_TRACE("dim " + std::to_string(dim) + " N0 " + std::to_string(n0) + " modeord " +
               std::to_string(modeord) + " threads " + std::to_string(nthreads));
  Options o = cpu_options();
  o.modeord = modeord;
  std::vector<std::int64_t> modes = {n0, 6, 5};
  modes.resize(static_cast<size_t>(dim));
  const PlanConfig cfg = make_plan_config<T>(1, modes, 1, 2, 1e-5, o);
  const std::int64_t row = cfg.nf[0] + 2, pad = 1;  // a row with ghosts, as type 2 lays out
  const cpu::Deconvolver<T> table(cfg, row, pad, nthreads);
  const cpu::Deconvolver<T> series(cfg, row, pad, nthreads, 0);
  ASSERT_FALSE(table.xseries.has_value());
  ASSERT_TRUE(series.xseries.has_value());
  auto rng = make_rng(salt_of("series-table") + n0 + dim);
  const std::int64_t cells = row * cfg.nf[1] * cfg.nf[2], nmodes = cfg.num_modes();
  const auto grid = random_complex<T>(2 * cells, rng);
  std::vector<std::complex<T>> fa(static_cast<size_t>(2 * nmodes)), fb = fa;
  table.grid_to_modes(grid.data(), fa.data(), 2, nthreads);
  series.grid_to_modes(grid.data(), fb.data(), 2, nthreads);
  EXPECT_TRUE(fa == fb) << "grid_to_modes";
  std::vector<std::complex<T>> ga(static_cast<size_t>(2 * cells)), gb = ga;
  table.modes_to_grid(fa.data(), ga.data(), 2, nthreads);
  series.modes_to_grid(fa.data(), gb.data(), 2, nthreads);
  EXPECT_TRUE(ga == gb) << "modes_to_grid";
}

TEST(CpuDeconvolution, SeriesAtExecuteMatchesTheTable) {
  for (int dim : {1, 2, 3})
    for (std::int64_t n0 : {1, 2, 9, 40, 5001})
      for (int modeord : {0, 1})
        for (int nthreads : {1, 3}) {
          series_matches_table<float>(dim, n0, modeord, nthreads);
          series_matches_table<double>(dim, n0, modeord, nthreads);
        }
  series_matches_table<double>(1, 300001, 1, 4);  // long rows: parts and several chunks
}

TEST(CpuDeconvolution, AxisRunsCoverEveryModeOnce) {
  using namespace nufftmp::detail;
  for (std::int64_t N : {1, 2, 5, 8, 101})
    for (int modeord : {0, 1}) {
      const std::int64_t nf = 2 * N + 6;
      const cpu::AxisRuns r = cpu::axis_runs(N, nf, modeord);
      EXPECT_EQ(r.n_neg + r.n_pos, N);
      for (std::int64_t i = 0; i < N; ++i) {
        const std::int64_t k = mode_of_output_index(i, N, modeord);
        const bool neg = k < 0;
        const std::int64_t first = neg ? r.out_neg : r.out_pos;
        const std::int64_t len = neg ? r.n_neg : r.n_pos;
        ASSERT_TRUE(i >= first && i < first + len) << "N " << N << " i " << i;
        const std::int64_t fine = neg ? r.fine_neg + (i - first) : i - first;
        EXPECT_EQ(fine, fine_index_of_mode(k, nf)) << "N " << N << " i " << i;
      }
    }
}

}  // namespace
}  // namespace nufftmp::test
