// Rules of Plan that hold on every engine (issue 15): the legal coordinates are the closed,
// symmetric interval [-T(3pi), T(3pi)]; execute before set_points is an error; a moved-from
// plan throws a clear error; warnings can be silenced. Built twice: for the CPU engine, and
// (NUFFTMP_TEST_CUDA, label gpu) for the CUDA engine, whose sort kernel applies the same rule.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>
#include <vector>

#include "common/checks.hpp"
#include "common/reference_check.hpp"
#include "common/test_data.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::test {
namespace {

Options engine_options() {
  Options o;
#ifdef NUFFTMP_TEST_CUDA
  o.backend = Backend::Cuda;
#else
  o.backend = Backend::Cpu;
#endif
  return o;
}

template <typename T>
void expect_code(const std::function<void()>& fn, ErrorCode code, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no error (expected " << error_code_name(code) << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

template <typename T>
void closed_symmetric_rule() {
  const T lim = detail::fold_limit<T>();
  EXPECT_EQ(lim, static_cast<T>(3 * kPi));
  for (T v : {lim, -lim, T(0), std::nextafter(lim, T(0)), std::nextafter(-lim, T(0))})
    EXPECT_TRUE(detail::in_fold_range(v)) << v;
  for (T v : {std::nextafter(lim, T(100)), std::nextafter(-lim, T(-100)),
              std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
              -std::numeric_limits<T>::infinity()})
    EXPECT_FALSE(detail::in_fold_range(v)) << v;
}

TEST(PlanRules, FoldRangeIsClosedAndSymmetric) {
  closed_symmetric_rule<float>();
  closed_symmetric_rule<double>();
  // What a double in [-3pi, 3pi] rounds to in float is legal: the case.
  EXPECT_TRUE(detail::in_fold_range(static_cast<float>(3 * kPi)));
  EXPECT_TRUE(detail::in_fold_range(static_cast<float>(-3 * kPi)));
  EXPECT_GT(static_cast<double>(static_cast<float>(3 * kPi)), 3 * kPi);  // rounds up
}

// Points at +-T(3pi) exactly (and the edges' neighbours) are accepted by set_points and the
// transform matches the direct sum there; one step outside is BadPoints naming the index.
template <typename T>
void edge_points(double tol) {
  const T lim = detail::fold_limit<T>();
  for (int type : {1, 2}) {
    auto rng = make_rng(salt_of("fold edge") + type);
    Plan<T> plan(type, {24, 16}, 1, 1, tol, engine_options());
    auto pts = uniform_points<T>(2, 200, rng, -3 * kPi, 3 * kPi);
    const T edges[] = {lim, -lim, std::nextafter(lim, T(0)), std::nextafter(-lim, T(0))};
    for (int i = 0; i < 4; ++i) {
      pts.xyz[0][i] = edges[i];
      pts.xyz[1][10 + i] = edges[3 - i];
    }
    const auto r = check_transform(plan, 0, pts, rng);
    EXPECT_LT(r.rel_err, 10 * tol) << "type " << type << ", " << sizeof(T) * 8 << " bit";
    for (T out : {std::nextafter(lim, T(100)), std::nextafter(-lim, T(-100))}) {
      auto bad = pts;
      bad.xyz[1][123] = out;
      expect_code<T>([&] { plan.set_points_host(200, bad.x(), bad.y()); }, ErrorCode::BadPoints,
                     "y[123]");
    }
  }
}

TEST(PlanRules, PointsAtPlusAndMinusThreePiAreLegal) {
  edge_points<float>(1e-5);
  edge_points<double>(1e-10);
}

TEST(PlanRules, ExecuteBeforeSetPointsIsAnError) {
  for (int type : {1, 2}) {
    Plan<float> plan(type, {32}, 1, 1, 1e-5, engine_options());
    std::vector<std::complex<float>> c(4), f(32);
    expect_code<float>([&] { plan.execute_host(c.data(), f.data()); }, ErrorCode::InvalidArgument,
                       "before set_points");
    // Also on the memory-space API (host pointers are fine on the CPU engine; on the CUDA
    // engine the check comes before any pointer is touched).
    expect_code<float>([&] { plan.execute(c.data(), f.data()); }, ErrorCode::InvalidArgument,
                       "before set_points");
    std::vector<float> x{0.1f, 0.2f, 0.3f, 0.4f};
    plan.set_points_host(4, x.data());
    EXPECT_NO_THROW(plan.execute_host(c.data(), f.data()));
  }
}

TEST(PlanRules, MovedFromPlanThrowsAClearError) {
  Plan<double> a(1, {16, 8}, 1, 1, 1e-8, engine_options());
  std::vector<double> x{0.5, -1.0}, y{2.0, 0.25};
  a.set_points_host(2, x.data(), y.data());
  Plan<double> b(std::move(a));
  std::vector<std::complex<double>> c(2, {1, 0}), f(128);
  EXPECT_NO_THROW(b.execute_host(c.data(), f.data()));
  const std::string moved = "moved from";
  expect_code<double>([&] { a.execute_host(c.data(), f.data()); }, ErrorCode::InvalidArgument,
                      moved);
  expect_code<double>([&] { a.execute(c.data(), f.data()); }, ErrorCode::InvalidArgument, moved);
  expect_code<double>([&] { a.set_points_host(2, x.data(), y.data()); }, ErrorCode::InvalidArgument,
                      moved);
  expect_code<double>([&] { a.set_points(2, x.data(), y.data()); }, ErrorCode::InvalidArgument,
                      moved);
  expect_code<double>([&] { a.synchronize(); }, ErrorCode::InvalidArgument, moved);
  expect_code<double>([&] { (void)a.num_modes(); }, ErrorCode::InvalidArgument, moved);
  expect_code<double>([&] { (void)a.num_points(); }, ErrorCode::InvalidArgument, moved);
  expect_code<double>([&] { (void)a.describe(); }, ErrorCode::InvalidArgument, moved);
  // Move assignment leaves its source moved-from too, and a moved-to plan works.
  Plan<double> d(1, {4}, 1, 1, 1e-6, engine_options());
  d = std::move(b);
  expect_code<double>([&] { (void)b.type(); }, ErrorCode::InvalidArgument, moved);
  EXPECT_EQ(d.num_modes(), 128);
  EXPECT_NO_THROW(d.execute_host(c.data(), f.data()));
}

// The tolerance clamp warns on stderr unless Options::warnings is false.
TEST(PlanRules, WarningsCanBeSilenced) {
  const auto captured = [](bool warnings) {
    std::ostringstream err;
    auto* old = std::cerr.rdbuf(err.rdbuf());
    Options o = engine_options();
    o.warnings = warnings;
    Plan<float> p(1, {16}, 1, 1, 1e-10, o);
    std::cerr.rdbuf(old);
    return err.str();
  };
  EXPECT_NE(captured(true).find("nufftmp warning: tol = 1e-10"), std::string::npos);
  EXPECT_EQ(captured(false), "");
}

}  // namespace
}  // namespace nufftmp::test
