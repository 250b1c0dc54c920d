// Type 3 behaviour beyond the accuracy table, for any engine (host API, opts picks it):
// batches of vectors, new points on the same plan, empty sets, bad coordinates, given bounds,
// the queries. The CPU and the CUDA tests call these.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "common/expect_error.hpp"
#include "common/type3_case.hpp"

namespace nufftmp::test {

// Off-centre sources and targets of the 2D table (space-bandwidth X S = 45 per axis).
template <typename T>
void type3_inputs(int dim, std::int64_t M, std::int64_t N, std::mt19937_64& rng,
                  Points<T>& src, Points<T>& tgt, double scale = 1.0) {
  src = type3_points<T>(Dist::Uniform, dim, M, {1.0, -2.0, 0.5}, {3.0, 3.0, 3.0}, rng);
  tgt = type3_points<T>(Dist::Uniform, dim, N, {20.0, -7.0, 4.0},
                        {15.0 * scale, 15.0 * scale, 15.0 * scale}, rng);
}

// Error of vector v of a batched execute against the direct sum at every target.
template <typename T>
double type3_vector_error(const Plan<T>& plan, const Points<T>& src, const Points<T>& tgt,
                          const std::vector<std::complex<T>>& c,
                          const std::vector<std::complex<T>>& f, int v) {
  std::vector<std::int64_t> idx(static_cast<size_t>(tgt.M));
  for (std::int64_t k = 0; k < tgt.M; ++k) idx[k] = k;
  const auto exact = reference::type3<T>(plan.dim(), src.M, src.x(), src.y(), src.z(),
                                         c.data() + v * src.M, plan.isign(), tgt.x(), tgt.y(),
                                         tgt.z(), idx);
  return reference::rel_l2_error<T>(exact, f.data() + v * tgt.M, idx);
}

// ntransf vectors with maxbatchsize (0: the plan's choice) each match the direct sum.
template <typename T>
void type3_batches(const Options& base, int ntransf, int maxbatchsize, double tol) {
  const std::string name = "type3_batches_" + std::to_string(ntransf) + "_" +
                           std::to_string(maxbatchsize) + (sizeof(T) == 4 ? "f" : "d");
  auto rng = make_rng(salt_of(name));
  Options o = base;
  o.maxbatchsize = maxbatchsize;
  Plan<T> plan(3, 2, -1, ntransf, tol, o);
  Points<T> src, tgt;
  type3_inputs<T>(2, 300, 200, rng, src, tgt);
  plan.set_points_host(src.M, src.x(), src.y(), nullptr, tgt.M, tgt.x(), tgt.y());
  const auto c = random_complex<T>(src.M * ntransf, rng);
  std::vector<std::complex<T>> f(static_cast<size_t>(tgt.M * ntransf), {7, 7});
  auto cin = c;
  plan.execute_host(cin.data(), f.data());
  EXPECT_EQ(cin, c) << name << ": execute must not change c";
  for (int v = 0; v < ntransf; ++v)
    EXPECT_LE(type3_vector_error(plan, src, tgt, c, f, v), 10 * tol) << name << " vector " << v;
}

// New points on the same plan: a larger grid, then the same grid again (kept inner plans).
template <typename T>
void type3_new_points(const Options& o, double tol) {
  auto rng = make_rng(salt_of(std::string("type3_new_points") + (sizeof(T) == 4 ? "f" : "d")));
  Plan<T> plan(3, 3, 1, 1, tol, o);
  EXPECT_EQ(plan.fine_grid(), (std::array<std::int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(plan.num_modes(), 0);
  std::array<std::int64_t, 3> first{};
  for (double scale : {0.3, 1.0, 1.0}) {
    Points<T> src, tgt;
    type3_inputs<T>(3, 400, 300, rng, src, tgt, scale);
    const auto r = check_type3(plan, src, tgt, rng, 300);
    EXPECT_LE(r.rel_err, 10 * tol) << "scale " << scale << ": " << plan.describe();
    EXPECT_EQ(plan.num_points(), 400);
    EXPECT_EQ(plan.num_modes(), 300);
    EXPECT_EQ(plan.modes(), (std::array<std::int64_t, 3>{300, 1, 1}));
    if (scale < 1) first = plan.fine_grid();
  }
  EXPECT_LT(first[0], plan.fine_grid()[0]);  // the wider targets needed a larger grid
}

// M = 0: zeros at every target. N = 0: nothing to write (f may be null).
template <typename T>
void type3_empty_sets(const Options& o) {
  auto rng = make_rng(salt_of("type3_empty"));
  Points<T> src, tgt;
  type3_inputs<T>(2, 50, 40, rng, src, tgt);
  Plan<T> plan(3, 2, 1, 2, 1e-5, o);
  plan.set_points_host(0, nullptr, nullptr, nullptr, tgt.M, tgt.x(), tgt.y());
  std::vector<std::complex<T>> f(static_cast<size_t>(2 * tgt.M), {7, 7});
  plan.execute_host(nullptr, f.data());
  for (const auto& v : f) EXPECT_EQ(v, std::complex<T>(0, 0));
  plan.set_points_host(src.M, src.x(), src.y(), nullptr, 0, nullptr, nullptr);
  auto c = random_complex<T>(2 * src.M, rng);
  EXPECT_NO_THROW(plan.execute_host(c.data(), nullptr));
  EXPECT_EQ(plan.num_modes(), 0);
  // And back to a real problem on the same plan.
  plan.set_points_host(src.M, src.x(), src.y(), nullptr, tgt.M, tgt.x(), tgt.y());
  plan.execute_host(c.data(), f.data());
  for (int v = 0; v < 2; ++v) EXPECT_LE(type3_vector_error(plan, src, tgt, c, f, v), 1e-4);
}

// A NaN or Inf in any array is BadPoints naming the array (x y z: sources, s t u: targets)
// and the index; the plan stays usable.
template <typename T>
void type3_bad_points(const Options& o) {
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  auto rng = make_rng(salt_of("type3_bad_points"));
  Points<T> src, tgt;
  type3_inputs<T>(3, 60, 50, rng, src, tgt);
  Plan<T> plan(3, 3, 1, 1, 1e-5, o);
  struct Bad {
    bool source;
    int axis;
    std::int64_t index;
    T value;
    const char* needle;
  };
  const Bad bads[] = {{true, 0, 17, nan, "source x[17]"}, {true, 2, 59, -inf, "source z[59]"},
                      {false, 1, 5, inf, "target t[5]"},  {false, 0, 0, nan, "target s[0]"},
                      {false, 2, 49, nan, "target u[49]"}};
  for (const auto& b : bads) {
    Points<T> s2 = src, t2 = tgt;
    (b.source ? s2 : t2).xyz[b.axis][b.index] = b.value;
    expect_error(
        [&] { plan.set_points_host(60, s2.x(), s2.y(), s2.z(), 50, t2.x(), t2.y(), t2.z()); },
        ErrorCode::BadPoints, {b.needle});
    expect_error(
        [&] { plan.type3_bounds_host(60, s2.x(), s2.y(), s2.z(), 50, t2.x(), t2.y(), t2.z()); },
        ErrorCode::BadPoints, {b.needle});
    expect_error([&] { plan.execute_host(nullptr, nullptr); }, ErrorCode::InvalidArgument,
                 {"before set_points"});
  }
  const auto r = check_type3(plan, src, tgt, rng);  // still usable
  EXPECT_LE(r.rel_err, 1e-4);
}

// Given bounds: the grid follows them (here wider than the points'); points outside are
// BadPoints; type3_bounds reports the points' own ranges.
template <typename T>
void type3_given_bounds(const Options& o) {
  auto rng = make_rng(salt_of("type3_given_bounds"));
  Points<T> src, tgt;
  type3_inputs<T>(2, 200, 150, rng, src, tgt);
  Plan<T> plan(3, 2, 1, 1, 1e-6, o);
  const Type3Bounds own =
      plan.type3_bounds_host(src.M, src.x(), src.y(), nullptr, tgt.M, tgt.x(), tgt.y());
  for (int d = 0; d < 2; ++d) {
    const auto& xs = src.xyz[d];
    const auto& ts = tgt.xyz[d];
    EXPECT_EQ(own.source_lo[d], static_cast<double>(*std::min_element(xs.begin(), xs.end())));
    EXPECT_EQ(own.target_hi[d], static_cast<double>(*std::max_element(ts.begin(), ts.end())));
  }
  Type3Bounds wide = own;
  wide.source_lo[0] -= 5;
  wide.target_hi[1] += 30;
  plan.set_points_host(src.M, src.x(), src.y(), nullptr, tgt.M, tgt.x(), tgt.y(), nullptr,
                       &wide);
  const auto grid_wide = plan.fine_grid();
  std::vector<std::complex<T>> f(static_cast<size_t>(tgt.M));
  auto c = random_complex<T>(src.M, rng);
  plan.execute_host(c.data(), f.data());
  EXPECT_LE(type3_vector_error(plan, src, tgt, c, f, 0), 1e-5);
  plan.set_points_host(src.M, src.x(), src.y(), nullptr, tgt.M, tgt.x(), tgt.y());
  EXPECT_LT(plan.fine_grid()[0] * plan.fine_grid()[1], grid_wide[0] * grid_wide[1]);
  Type3Bounds narrow = own;
  narrow.target_lo[1] += 1;
  expect_error(
      [&] {
        plan.set_points_host(src.M, src.x(), src.y(), nullptr, tgt.M, tgt.x(), tgt.y(), nullptr,
                             &narrow);
      },
      ErrorCode::BadPoints, {"targets t", "outside the bounds"});
}

}  // namespace nufftmp::test
