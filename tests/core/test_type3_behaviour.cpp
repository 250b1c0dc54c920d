// Type 3 on the CPU engine beyond the accuracy table (common/type3_behaviour.hpp), and the
// errors of its API: wrong constructor or set_points form, bad tolerance, products too large
// for memory.
#include <gtest/gtest.h>

#include "common/type3_behaviour.hpp"

namespace nufftmp::test {
namespace {

TEST(Type3Cpu, Batches) {
  type3_batches<double>(cpu_options(), 5, 0, 1e-8);
  type3_batches<double>(cpu_options(), 6, 4, 1e-8);  // passes of 3
  type3_batches<float>(cpu_options(), 7, 2, 1e-4);   // passes of 1
}

TEST(Type3Cpu, NewPointsOnOnePlan) {
  type3_new_points<double>(cpu_options(), 1e-9);
  type3_new_points<float>(cpu_options(), 1e-5);
}

TEST(Type3Cpu, EmptySets) {
  type3_empty_sets<double>(cpu_options());
  type3_empty_sets<float>(cpu_options());
}

TEST(Type3Cpu, BadPointsNameArrayAndIndex) {
  type3_bad_points<double>(cpu_options());
  type3_bad_points<float>(cpu_options());
}

TEST(Type3Cpu, GivenBounds) {
  type3_given_bounds<double>(cpu_options());
  type3_given_bounds<float>(cpu_options());
}

TEST(Type3Cpu, ThreadsAndSigma) {
  Options o = cpu_options();
  o.nthreads = 1;
  o.upsampfac = 1.25;
  for (int dim : {1, 3}) {
    const Type3Case c{dim, Prec::Double, 1e-7, Dist::Uniform, Dist::Clustered, false, 1};
    run_type3_case<double>(c, o);
  }
}

TEST(Type3Cpu, ConstructorFormsAreChecked) {
  const Options o = cpu_options();
  // A braced list of one mode still means types 1/2.
  Plan<double> one(1, {64}, 1, 1, 1e-6, o);
  EXPECT_EQ(one.type(), 1);
  EXPECT_EQ(one.num_modes(), 64);
  Plan<float> t3(3, 2, 1, 1, 1e-4, o);
  EXPECT_EQ(t3.type(), 3);
  EXPECT_EQ(t3.dim(), 2);
  expect_error([&] { Plan<double>(3, {16, 16}, 1, 1, 1e-6, o); }, ErrorCode::InvalidArgument,
               {"type = 3", "dimension"});
  expect_error([&] { Plan<double>(1, 2, 1, 1, 1e-6, o); }, ErrorCode::InvalidArgument,
               {"type = 1", "modes"});
  expect_error([&] { Plan<double>(3, 4, 1, 1, 1e-6, o); }, ErrorCode::InvalidArgument,
               {"dim = 4"});
  expect_error([&] { Plan<double>(3, 0, 1, 1, 1e-6, o); }, ErrorCode::InvalidArgument,
               {"dim = 0"});
  expect_error([&] { Plan<double>(3, 1, 0, 1, 1e-6, o); }, ErrorCode::InvalidArgument,
               {"isign = 0"});
  expect_error([&] { Plan<double>(3, 1, 1, 0, 1e-6, o); }, ErrorCode::InvalidArgument,
               {"ntransf = 0"});
  expect_error([&] { Plan<double>(3, 1, 1, 1, 1e-15, o); }, ErrorCode::InvalidArgument,
               {"tol = 1e-15"});
  expect_error([&] { Plan<double>(3, 1, 1, 1, 0.5, o); }, ErrorCode::InvalidArgument,
               {"tol = 0.5"});
  Options so = o;
  so.spread_interp_only = true;
  expect_error([&] { Plan<double>(3, 1, 1, 1, 1e-6, so); }, ErrorCode::InvalidArgument,
               {"spread_interp_only"});
}

TEST(Type3Cpu, SetPointsFormsAreChecked) {
  const Options o = cpu_options();
  const double x[2] = {0.1, 0.2}, s[2] = {1.0, 2.0};
  Plan<double> t3(3, 1, 1, 1, 1e-6, o);
  expect_error([&] { t3.set_points(2, x); }, ErrorCode::InvalidArgument, {"needs the targets"});
  expect_error([&] { t3.set_points_host(2, x); }, ErrorCode::InvalidArgument,
               {"needs the targets"});
  expect_error([&] { t3.set_points(-1, x, nullptr, nullptr, 2, s); }, ErrorCode::InvalidArgument,
               {"M = -1"});
  expect_error([&] { t3.set_points(2, x, nullptr, nullptr, -3, s); }, ErrorCode::InvalidArgument,
               {"N = -3"});
  expect_error([&] { t3.set_points(2, nullptr, nullptr, nullptr, 2, s); },
               ErrorCode::InvalidArgument, {"x (sources)"});
  expect_error([&] { t3.set_points(2, x, nullptr, nullptr, 2, nullptr); },
               ErrorCode::InvalidArgument, {"s (targets)"});
  Plan<double> t2(3, 2, 1, 1, 1e-6, o);
  expect_error([&] { t2.set_points(2, x, nullptr, nullptr, 2, s, s); },
               ErrorCode::InvalidArgument, {"y (sources)"});
  Plan<double> t1(1, {16}, 1, 1, 1e-6, o);
  expect_error([&] { t1.set_points(2, x, nullptr, nullptr, 2, s); }, ErrorCode::InvalidArgument,
               {"type 3", "type 1"});
  expect_error([&] { t1.type3_bounds_host(2, x, nullptr, nullptr, 2, s); },
               ErrorCode::InvalidArgument, {"type 3"});
  t3.set_points(2, x, nullptr, nullptr, 2, s);
  std::complex<double> c[2] = {1.0, 1.0}, f[2];
  expect_error([&] { t3.execute(nullptr, f); }, ErrorCode::InvalidArgument, {"c (strengths"});
  expect_error([&] { t3.execute(c, nullptr); }, ErrorCode::InvalidArgument, {"f (values"});
}

// Products beyond any memory, and beyond this machine's: OutOfMemory naming the grid.
TEST(Type3Cpu, TooLargeSpaceBandwidthIsOutOfMemory) {
  const Options o = cpu_options();
  const double x[2] = {-1e5, 1e5}, s[2] = {-1.0, 1.0};
  Plan<double> p(3, 3, 1, 1, 1e-6, o);
  expect_error([&] { p.set_points(2, x, x, x, 2, s, s, s); }, ErrorCode::OutOfMemory,
               {"fine grid of", "beyond any memory"});
  // About 4e4 cells per axis: the grid (5.7e13 cells) passes the 2^46 limit, its inner
  // type 2 (eight times as many) does not.
  Plan<float> q(3, 3, 1, 1, 1e-3, o);
  const float xf[2] = {-3e4f, 3e4f};
  const float sf[2] = {-1.0f, 1.0f};
  expect_error([&] { q.set_points(2, xf, xf, xf, 2, sf, sf, sf); }, ErrorCode::OutOfMemory,
               {"type 3", "needs a grid of"});
  // The plan survives and works on a sane problem.
  const float xs[2] = {0.1f, -0.4f};
  q.set_points(2, xs, xs, xs, 2, sf, sf, sf);
  std::complex<float> c[2] = {1.0f, 2.0f}, f[2];
  q.execute(c, f);
  const std::vector<std::int64_t> idx{0, 1};
  const auto exact =
      reference::type3<float>(3, 2, xs, xs, xs, c, 1, sf, sf, sf, idx);
  EXPECT_LE(reference::rel_l2_error<float>(exact, f, idx), 1e-2);
}

}  // namespace
}  // namespace nufftmp::test
