// DistPlan on the CPU engine equals the single-rank Plan to rounding, for every dim, type and
// precision; with uneven shares (one rank empty) and scattered shares; all-reduce and reduce
// (to a root other than 0); one reduction per batch and pipelined steps; type 2 with the
// modes on the root only or on every rank; gathered results. Run with 1 to 4 ranks.
#include <gtest/gtest.h>

#include <complex>

#include "dist/dist_test_util.hpp"
#include "nufftmp/dist.hpp"
#include "nufftmp/plan.hpp"
#include "nufftmp/reference.hpp"

using namespace nufftmp;
using namespace nufftmp::dist;
using namespace nufftmp::test;

namespace {

struct Case {
  int dim, type;
  bool scatter;        // root scatters the points (else every rank brings uneven shares)
  Reduction reduction;
  int ntransf, reduce_batch;
  bool root_last;      // root = last rank (else 0)
  bool modes_on_all;
  bool rebalance = false;
};

std::string name_of(const Case& c) {
  return std::to_string(c.dim) + "d_type" + std::to_string(c.type) +
         (c.scatter ? "_scatter" : "_own") +
         (c.reduction == Reduction::AllReduce ? "_allreduce" : "_reduce") + "_nt" +
         std::to_string(c.ntransf) + "_rb" + std::to_string(c.reduce_batch) +
         (c.root_last ? "_rootlast" : "") + (c.modes_on_all ? "_modesall" : "") +
         (c.rebalance ? "_rebalance" : "");
}

void PrintTo(const Case& c, std::ostream* os) { *os << name_of(c); }

std::vector<std::int64_t> modes_of(int dim) {
  if (dim == 1) return {37};
  if (dim == 2) return {16, 13};
  return {10, 9, 6};
}

template <typename T>
void run_case(const Case& k) {
  const int P = world_size(), me = world_rank();
  const int root = k.root_last ? P - 1 : 0;
  const auto modes = modes_of(k.dim);
  const std::int64_t M = 400 + 300 * k.dim;
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-9;
  Options opts;
  opts.backend = Backend::Cpu;

  // The whole problem, drawn identically on every rank, and the single-rank answer.
  auto rng = make_rng(salt_of(name_of(k) + (sizeof(T) == 4 ? "f" : "d")));
  const auto pts = uniform_points<T>(k.dim, M, rng);
  Plan<T> single(k.type, modes, +1, k.ntransf, tol, opts);
  const std::int64_t nm = single.num_modes();
  const auto c_all = random_complex<T>(k.ntransf * M, rng);
  const auto f_all = random_complex<T>(k.ntransf * nm, rng);
  std::vector<std::complex<T>> ref_c = c_all, ref_f = f_all;
  single.set_points_host(M, pts.x(), pts.y(), pts.z());
  single.execute_host(ref_c.data(), ref_f.data());

  Context ctx(MPI_COMM_WORLD, cpu_context());
  DistOptions dopts;
  dopts.reduction = k.reduction;
  dopts.root = root;
  dopts.modes_on_all = k.modes_on_all;
  dopts.reduce_batch = k.reduce_batch;
  dopts.rebalance = k.rebalance;
  DistPlan<T> plan(ctx, k.type, modes, +1, k.ntransf, tol, opts, dopts);

  // This rank's points: its own uneven share, or the root's scatter.
  std::int64_t off = 0, Ml = 0;
  std::array<std::vector<T>, 3> mine;
  if (k.scatter) {
    auto lp = scatter_points<T>(ctx, k.dim, me == root ? M : 0, pts.x(), pts.y(), pts.z(), root);
    off = lp.offset;
    Ml = lp.size();
    mine = {lp.x, lp.y, lp.z};
  } else {
    const auto counts = uneven_counts(M, P);
    off = offset_of(counts, me);
    Ml = counts[me];
    for (int d = 0; d < k.dim; ++d)
      mine[d].assign(pts.xyz[d].begin() + off, pts.xyz[d].begin() + off + Ml);
  }
  auto ptr = [&](int d) { return d < k.dim && Ml > 0 ? mine[d].data() : nullptr; };
  plan.set_points_host(Ml, ptr(0), ptr(1), ptr(2));
  EXPECT_EQ(plan.num_points_local(), Ml);
  EXPECT_EQ(plan.num_points_total(), M);

  std::vector<std::complex<T>> c(k.ntransf * Ml, {7, 7});
  for (int t = 0; t < k.ntransf; ++t)
    for (std::int64_t j = 0; j < Ml; ++j) c[t * Ml + j] = c_all[t * M + off + j];

  if (k.type == 1) {
    std::vector<std::complex<T>> f(k.ntransf * nm, {7, 7});
    plan.execute_host(c.data(), f.data());
    if (k.reduction == Reduction::AllReduce || me == root) {
      EXPECT_LT(rel_l2(f.data(), ref_f.data(), k.ntransf * nm), rounding_tol<T>())
          << name_of(k) << " rank " << me;
      // And against the direct sum, so that the test does not lean on the plan alone.
      auto r2 = make_rng(7);
      const auto idx = sample_indices(nm, 300, r2);
      const auto N = single.modes();
      const auto exact = reference::type1<T>(k.dim, M, pts.x(), pts.y(), pts.z(), c_all.data(),
                                             +1, N.data(), 0, idx);
      EXPECT_LT(reference::rel_l2_error<T>(exact, f.data(), idx), 100 * tol) << name_of(k);
    }
  } else {
    const bool has_f = me == root || k.modes_on_all;
    std::vector<std::complex<T>> f = f_all;
    plan.execute_host(c.data(), has_f ? f.data() : nullptr);
    for (int t = 0; t < k.ntransf; ++t)
      EXPECT_LT(rel_l2(c.data() + t * Ml, ref_c.data() + t * M + off, Ml), rounding_tol<T>())
          << name_of(k) << " rank " << me << " vector " << t;
    if (k.ntransf == 1) {
      const auto all_c = gather_to_root(ctx, c.data(), Ml, root);
      if (me == root) {
        ASSERT_EQ(std::int64_t(all_c.size()), M);
        EXPECT_LT(rel_l2(all_c.data(), ref_c.data(), M), rounding_tol<T>()) << name_of(k);
        auto r2 = make_rng(8);
        const auto idx = sample_indices(M, 300, r2);
        const auto N = single.modes();
        const auto exact = reference::type2<T>(k.dim, pts.x(), pts.y(), pts.z(), f_all.data(),
                                               +1, N.data(), 0, idx);
        EXPECT_LT(reference::rel_l2_error<T>(exact, all_c.data(), idx), 100 * tol) << name_of(k);
      }
    }
  }
  const auto tm = plan.last_timings();
  EXPECT_GE(tm.compute_ms, 0.0);
  EXPECT_GE(tm.comm_ms, 0.0);
  EXPECT_GE(tm.total_ms + 1e-9, tm.comm_ms);
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  for (int dim = 1; dim <= 3; ++dim) {
    v.push_back({dim, 1, false, Reduction::AllReduce, 1, 0, false, false});
    v.push_back({dim, 1, false, Reduction::Reduce, 2, 1, true, false});   // pipelined steps
    v.push_back({dim, 1, true, Reduction::AllReduce, 2, 0, false, false});
    v.push_back({dim, 2, false, Reduction::AllReduce, 1, 0, false, false});
    v.push_back({dim, 2, true, Reduction::AllReduce, 1, 0, true, true});
    v.push_back({dim, 2, false, Reduction::AllReduce, 2, 0, true, false});
    v.push_back({dim, 1, false, Reduction::AllReduce, 2, 0, false, false, true});
    v.push_back({dim, 2, false, Reduction::AllReduce, 2, 0, false, false, true});
  }
  return v;
}

}  // namespace

class DistEqualsSingle : public ::testing::TestWithParam<Case> {};

TEST_P(DistEqualsSingle, Float) { run_case<float>(GetParam()); }
TEST_P(DistEqualsSingle, Double) { run_case<double>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, DistEqualsSingle, ::testing::ValuesIn(all_cases()),
                         [](const auto& info) { return name_of(info.param); });

TEST(DistPlanReuse, PointsOnceManyExecutesAndNoPointsAnywhere) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  Options opts;
  opts.backend = Backend::Cpu;
  const std::vector<std::int64_t> modes = {12, 10};
  const int me = ctx.rank();
  DistPlan<double> plan(ctx, 1, modes, -1, 1, 1e-9, opts);
  auto rng = make_rng(11 + me);
  const auto pts = uniform_points<double>(2, 50, rng);
  plan.set_points_host(50, pts.x(), pts.y());
  Plan<double> single(1, modes, -1, 1, 1e-9, opts);
  for (int rep = 0; rep < 2; ++rep) {
    auto c = random_complex<double>(50, rng);
    std::vector<std::complex<double>> f(plan.local_plan().num_modes());
    plan.execute_host(c.data(), f.data());
    // Sum of the single-rank results of every rank's own points.
    std::vector<std::complex<double>> mine(f.size());
    single.set_points_host(50, pts.x(), pts.y());
    single.execute_host(c.data(), mine.data());
    MPI_Allreduce(MPI_IN_PLACE, mine.data(), 2 * int(mine.size()), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
    EXPECT_LT(rel_l2(f.data(), mine.data(), f.size()), rounding_tol<double>());
  }
  // Nobody has points: type 1 gives zeros everywhere.
  plan.set_points_host(0, nullptr, nullptr);
  EXPECT_EQ(plan.num_points_total(), 0);
  std::vector<std::complex<double>> f(plan.local_plan().num_modes(), {3, 3});
  plan.execute_host(nullptr, f.data());
  for (const auto& v : f) EXPECT_EQ(v, std::complex<double>(0, 0));
}
