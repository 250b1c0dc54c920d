// The pieces every accuracy test table repeats: the precision as a run-time value of a test
// case, its name, and "run this plan on fresh points and check it against the direct sum".
// Engine-agnostic (host API only); the tables themselves stay in the tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "common/reference_check.hpp"
#include "common/test_data.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::test {

enum class Prec { Float, Double };

inline const char* prec_name(Prec p) { return p == Prec::Float ? "f" : "d"; }

// Calls f(float{}) or f(double{}): a test case's precision chosen at run time.
template <typename F>
void with_precision(Prec p, F&& f) {
  if (p == Prec::Float)
    f(float{});
  else
    f(double{});
}

// A gtest-safe name: '-' (from method names such as gm-sort) becomes '_'.
inline std::string test_name(std::string s) {
  std::replace(s.begin(), s.end(), '-', '_');
  return s;
}

// With NUFFTMP_TEST_VERBOSE=1 prints the error; expects 0 < err <= bound (a check that compared
// the oracle with itself would give 0). what: the plan's description, for the failure message.
inline void expect_accuracy(const std::string& name, double err, double bound,
                            const std::string& what) {
  if (std::getenv("NUFFTMP_TEST_VERBOSE"))
    std::printf("%s err %.3g bound %.3g (%s)\n", name.c_str(), err, bound, what.c_str());
  EXPECT_LE(err, bound) << name << ": " << what;
  EXPECT_GT(err, 0.0) << name;
}

template <typename T>
struct AccuracyRun {
  Points<T> pts;
  CheckResult<T> result;
  double bound = 0;  // factor (10) x max(requested tolerance, the plan's effective tolerance)
};

// Draws M points of `dist` for `plan` (ntransf 1), runs it on random input and expects the
// relative l2 error against the direct sum to be within the bound and above zero (a check
// that compared the oracle with itself would pass everything). NUFFTMP_TEST_VERBOSE=1 prints
// each error.
template <typename T>
AccuracyRun<T> expect_accurate(Plan<T>& plan, const std::string& name, Dist dist,
                               std::int64_t M, int modeord, double tol, std::mt19937_64& rng,
                               std::int64_t max_outputs, double factor = 10.0) {
  AccuracyRun<T> run;
  run.pts = make_points<T>(dist, plan.dim(), M, plan.fine_grid(), rng);
  run.result = check_transform(plan, modeord, run.pts, rng, max_outputs);
  run.bound = factor * std::max(tol, plan.tolerance());
  expect_accuracy(name, run.result.rel_err, run.bound, plan.describe());
  return run;
}

}  // namespace nufftmp::test
