// The pure parts of the status and parameter agreement (no MPI): how an exception becomes a
// code and message, and how a parameter mismatch is reported.
#include <gtest/gtest.h>

#include <new>

#include "agree.hpp"

using namespace nufftmp;
using namespace nufftmp::dist::detail;

template <typename F>
static std::exception_ptr as_ptr(F make) {
  try {
    make();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
}

TEST(StatusLogic, ExceptionsBecomeCodes) {
  EXPECT_EQ(status_of(nullptr).code, 0);
  auto s = status_of(as_ptr([] { throw Error(ErrorCode::BadPoints, "x[3] = nan"); }));
  EXPECT_EQ(s.code, int(ErrorCode::BadPoints));
  EXPECT_EQ(s.message, "x[3] = nan");
  EXPECT_EQ(status_of(as_ptr([] { throw std::bad_alloc(); })).code, int(ErrorCode::OutOfMemory));
  EXPECT_EQ(status_of(as_ptr([] { throw std::runtime_error("boom"); })).code,
            int(ErrorCode::Internal));
  EXPECT_EQ(status_of(as_ptr([] { throw 42; })).code, int(ErrorCode::Internal));
}

TEST(StatusLogic, RemoteMessageNamesRankAndError) {
  const auto m = remote_failure_message(2, {int(ErrorCode::BadPoints), "x[17] = nan"});
  EXPECT_EQ(m, "rank 2 failed (bad nonuniform points): x[17] = nan");
}

TEST(StatusLogic, ParameterMismatchNamesParameterAndValues) {
  std::vector<Param> a = {{"type", {1}}, {"modes", {64, 32}}, {"tol", {1e-6}}};
  auto b = a, c = a;
  b[2].values = {1e-5};
  c[1].values = {64, 30};
  EXPECT_EQ(parameter_mismatch("DistPlan", {a, a, a}), "");
  const auto m1 = parameter_mismatch("DistPlan", {a, a, b});
  EXPECT_NE(m1.find("parameter tol differs"), std::string::npos) << m1;
  EXPECT_NE(m1.find("rank 0 has 1e-06"), std::string::npos) << m1;
  EXPECT_NE(m1.find("rank 2 has 1e-05"), std::string::npos) << m1;
  const auto m2 = parameter_mismatch("DistPlan", {a, c});
  EXPECT_NE(m2.find("modes"), std::string::npos) << m2;
  EXPECT_NE(m2.find("(64, 32)"), std::string::npos) << m2;
  EXPECT_NE(m2.find("(64, 30)"), std::string::npos) << m2;
  // The first differing parameter is reported, whatever rank differs.
  EXPECT_NE(parameter_mismatch("X", {a, b, c}).find("modes"), std::string::npos);
  // Missing parameters on a rank.
  EXPECT_NE(parameter_mismatch("X", {a, {a[0]}}), "");
}
