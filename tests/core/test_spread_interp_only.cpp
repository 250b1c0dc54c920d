// Options::spread_interp_only on the CPU engine: the kernel sums against their direct
// evaluation in every dim x type x precision, the grid convention (cell g at x = 2 pi g / N,
// peak 1), odd sizes, batches, and the size rule.
#include <gtest/gtest.h>

#include "common/expect_error.hpp"
#include "common/spread_only_check.hpp"

namespace nufftmp::test {
namespace {

Options spread_only() {
  Options o = cpu_options();
  o.spread_interp_only = true;
  return o;
}

std::vector<std::int64_t> grid_for(int dim) {
  if (dim == 1) return {101};  // odd
  if (dim == 2) return {24, 33};
  return {24, 22, 27};
}

// The Horner fit is within tol / 10 of the kernel; float adds its rounding.
template <typename T>
double bound_for(double tol) {
  return sizeof(T) == 4 ? std::max(tol, 1e-5) : tol;
}

template <typename T>
void run(int dim, int type, double tol) {
  const std::string name = "spread_only_" + std::to_string(dim) + "d_t" + std::to_string(type) +
                           (sizeof(T) == 4 ? "_f" : "_d") + std::to_string(tol);
  auto rng = make_rng(salt_of(name));
  Plan<T> plan(type, grid_for(dim), 1, 1, tol, spread_only());
  EXPECT_EQ(plan.fine_grid(), plan.modes()) << name;
  // [-3pi, 3pi): folding applies as for any plan.
  const auto pts = uniform_points<T>(dim, 300, rng, -3 * kPi, 3 * kPi);
  const double err = spread_only_error(plan, pts, rng);
  EXPECT_LE(err, bound_for<T>(tol)) << name;
}

TEST(SpreadInterpOnly, MatchesDirectKernelSums) {
  for (int dim : {1, 2, 3})
    for (int type : {1, 2}) {
      run<double>(dim, type, 1e-3);
      run<double>(dim, type, 1e-10);
      run<float>(dim, type, 1e-5);
    }
}

TEST(SpreadInterpOnly, CellGIsAtTwoPiGOverN) {
  Plan<double> plan(1, {40}, 1, 1, 1e-6, spread_only());
  const double x = 2 * kPi * 13 / 40;  // exactly on cell 13
  std::complex<double> c(2.0, -1.0);
  std::vector<std::complex<double>> f(40);
  plan.set_points_host(1, &x);
  plan.execute_host(&c, f.data());
  EXPECT_NEAR(std::abs(f[13] - c), 0.0, 1e-6);  // the kernel's peak is 1
  EXPECT_NEAR(std::abs(f[12]), std::abs(f[14]), 1e-6);
  EXPECT_EQ(f[13 + plan.kernel_width()], 0.0);
  // Type 2 reads the same cells: interpolating a grid that is 1 at cell 13 gives phi(0) = 1.
  Plan<double> back(2, {40}, 1, 1, 1e-6, spread_only());
  std::vector<std::complex<double>> g(40, 0.0);
  g[13] = 1.0;
  std::complex<double> out;
  back.set_points_host(1, &x);
  back.execute_host(&out, g.data());
  EXPECT_NEAR(std::abs(out - 1.0), 0.0, 1e-6);
}

// Batches of vectors through one plan give the single-vector results.
TEST(SpreadInterpOnly, BatchesMatchSingleVectors) {
  auto rng = make_rng(salt_of("spread_only_batches"));
  const std::vector<std::int64_t> N{20, 18};
  const auto pts = uniform_points<double>(2, 200, rng);
  for (int type : {1, 2}) {
    Options o = spread_only();
    o.maxbatchsize = 2;
    Plan<double> many(type, N, 1, 5, 1e-6, o);
    Plan<double> one(type, N, 1, 1, 1e-6, spread_only());
    many.set_points_host(200, pts.x(), pts.y());
    one.set_points_host(200, pts.x(), pts.y());
    auto c = random_complex<double>(5 * 200, rng);
    auto f = random_complex<double>(5 * 360, rng);
    many.execute_host(c.data(), f.data());
    for (int v = 0; v < 5; ++v) {
      std::vector<std::complex<double>> c1(c.begin() + v * 200, c.begin() + (v + 1) * 200);
      std::vector<std::complex<double>> f1(f.begin() + v * 360, f.begin() + (v + 1) * 360);
      auto c2 = c1;
      auto f2 = f1;
      one.execute_host(c2.data(), f2.data());
      if (type == 1)
        EXPECT_LE(rel_l2(f1.data(), f2.data(), 360), 1e-14) << "vector " << v;
      else
        EXPECT_LE(rel_l2(c1.data(), c2.data(), 200), 1e-14) << "vector " << v;
    }
  }
}

TEST(SpreadInterpOnly, GridMustHoldTwoKernelWidths) {
  // tol 1e-6 at sigma 2: w = 7, so 14 cells at least.
  expect_error([] { Plan<double>(1, {13}, 1, 1, 1e-6, spread_only()); },
               ErrorCode::InvalidArgument, {"spread_interp_only", "modes[0] = 13", "14"});
  expect_error([] { Plan<float>(2, {64, 10}, 1, 1, 1e-6, spread_only()); },
               ErrorCode::InvalidArgument, {"modes[1] = 10"});
  EXPECT_NO_THROW(Plan<double>(1, {14}, 1, 1, 1e-6, spread_only()));
}

}  // namespace
}  // namespace nufftmp::test
