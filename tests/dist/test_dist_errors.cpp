// Errors on one rank reach every rank: a NaN point on one rank, mismatched modes, tolerance,
// kernel or spread_interp_only between ranks, a null output on one rank. No rank may hang (the
// CTest timeout guards it), and the plan stays usable after a failed call.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <functional>
#include <iostream>
#include <sstream>
#include <vector>

#include "dist/dist_test_util.hpp"
#include "nufftmp/dist.hpp"

using namespace nufftmp;
using namespace nufftmp::dist;
using namespace nufftmp::test;

namespace {
Options cpu() {
  Options o;
  o.backend = Backend::Cpu;
  return o;
}
bool contains(const Error& e, const std::string& s) {
  return std::string(e.what()).find(s) != std::string::npos;
}
}  // namespace

TEST(DistErrors, NanPointOnOneRankThrowsOnEveryRank) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  const int P = ctx.size(), me = ctx.rank(), bad = P - 1;
  DistPlan<float> plan(ctx, 1, {16, 16}, +1, 1, 1e-5, cpu());
  auto rng = make_rng(21 + me);
  auto pts = uniform_points<float>(2, 40, rng);
  if (me == bad) pts.xyz[1][17] = std::nanf("");
  try {
    plan.set_points_host(40, pts.x(), pts.y());
    FAIL() << "rank " << me << " did not throw";
  } catch (const Error& e) {
    if (me == bad) {
      EXPECT_EQ(e.code(), ErrorCode::BadPoints) << e.what();
    } else {
      EXPECT_EQ(e.code(), ErrorCode::RemoteFailure) << e.what();
      EXPECT_TRUE(contains(e, "rank " + std::to_string(bad) + " failed (bad nonuniform points)"))
          << e.what();
    }
  }
  // The plan is still usable once the point is fixed.
  if (me == bad) pts.xyz[1][17] = 0.5f;
  plan.set_points_host(40, pts.x(), pts.y());
  EXPECT_EQ(plan.num_points_total(), 40 * P);
  auto c = random_complex<float>(40, rng);
  std::vector<std::complex<float>> f(256);
  EXPECT_NO_THROW(plan.execute_host(c.data(), f.data()));
}

TEST(DistErrors, MismatchedModesThrowOnEveryRank) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  const std::int64_t n2 = (ctx.size() > 1 && ctx.rank() == 1) ? 20 : 16;
  try {
    DistPlan<double> plan(ctx, 2, {16, n2}, +1, 1, 1e-8, cpu());
    EXPECT_EQ(ctx.size(), 1) << "mismatch not detected";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(e, "parameter modes differs")) << e.what();
    EXPECT_TRUE(contains(e, "rank 0 has (16, 16), rank 1 has (16, 20)")) << e.what();
  }
}

TEST(DistErrors, MismatchedToleranceThrowsOnEveryRank) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  const double tol = ctx.rank() == ctx.size() - 1 && ctx.size() > 1 ? 1e-6 : 1e-8;
  try {
    DistPlan<double> plan(ctx, 1, {32}, -1, 1, tol, cpu());
    EXPECT_EQ(ctx.size(), 1) << "mismatch not detected";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(e, "parameter tol differs")) << e.what();
  }
}

// Options that decide the result must agree in every type: the kernel (types 1, 2 and 3) and
// spread_interp_only (types 1 and 2), set otherwise on the last rank only.
TEST(DistErrors, MismatchedKernelOrSpreadOnlyThrowsOnEveryRank) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  const bool odd = ctx.size() > 1 && ctx.rank() == ctx.size() - 1;
  auto expect_mismatch = [&](const std::function<void()>& make, const std::string& what) {
    try {
      make();
      EXPECT_EQ(ctx.size(), 1) << what << ": mismatch not detected on rank " << ctx.rank();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
      EXPECT_TRUE(contains(e, "parameter " + what + " differs")) << e.what();
    }
  };
  Options k = cpu();
  if (odd) k.kernel = Kernel::ES;
  for (int type : {1, 2})
    expect_mismatch([&] { DistPlan<double> p(ctx, type, {32, 32}, +1, 1, 1e-6, k); }, "kernel");
  for (Type3Targets t : {Type3Targets::Shared, Type3Targets::Scattered}) {
    DistOptions d;
    d.targets = t;
    expect_mismatch([&] { DistPlan<double> p(ctx, 3, 2, +1, 1, 1e-6, k, d); }, "kernel");
  }
  Options g = cpu();
  g.spread_interp_only = odd;
  for (int type : {1, 2})
    expect_mismatch([&] { DistPlan<float> p(ctx, type, {32, 32}, -1, 1, 1e-4, g); },
                    "spread_interp_only");
}

TEST(DistErrors, InvalidParametersOnEveryRankAreTheirOwnError) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  try {
    DistPlan<float> plan(ctx, 3, {16}, +1, 1, 1e-5, cpu());
    FAIL() << "type 3 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  }
  DistOptions d;
  d.root = ctx.size();
  try {
    DistPlan<float> plan(ctx, 1, {16}, +1, 1, 1e-5, cpu(), d);
    FAIL() << "root out of range accepted";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e, "root = " + std::to_string(ctx.size()))) << e.what();
  }
}

TEST(DistErrors, NullOutputOnOneRankThrowsOnEveryRank) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  const int me = ctx.rank(), bad = 0;
  DistPlan<double> plan(ctx, 1, {8, 8, 8}, +1, 1, 1e-6, cpu());
  auto rng = make_rng(31 + me);
  const auto pts = uniform_points<double>(3, 30, rng);
  plan.set_points_host(30, pts.x(), pts.y(), pts.z());
  auto c = random_complex<double>(30, rng);
  std::vector<std::complex<double>> f(512);
  try {
    plan.execute_host(c.data(), me == bad ? nullptr : f.data());
    FAIL() << "rank " << me << " did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), me == bad ? ErrorCode::InvalidArgument : ErrorCode::RemoteFailure);
    EXPECT_TRUE(contains(e, "f is null on rank 0")) << e.what();
  }
  EXPECT_NO_THROW(plan.execute_host(c.data(), f.data()));
}

// execute before set_points: the same InvalidArgument on every rank (no rank enters a
// collective), for both types and both APIs.
TEST(DistErrors, ExecuteBeforeSetPointsThrowsOnEveryRank) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  for (int type : {1, 2}) {
    DistPlan<double> plan(ctx, type, {8, 8}, +1, 1, 1e-8, cpu());
    std::vector<std::complex<double>> c(4), f(64);
    for (bool host : {true, false}) {
      try {
        host ? plan.execute_host(c.data(), f.data()) : plan.execute(c.data(), f.data());
        ADD_FAILURE() << "rank " << ctx.rank() << ": no error";
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
        EXPECT_TRUE(contains(e, "before set_points")) << e.what();
      }
    }
  }
}

TEST(DistErrors, MovedFromPlanThrowsAClearError) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  DistPlan<float> a(ctx, 1, {8}, +1, 1, 1e-5, cpu());
  DistPlan<float> b(std::move(a));
  std::vector<float> x{0.5f};
  std::vector<std::complex<float>> c(1, {1, 0}), f(8);
  b.set_points_host(1, x.data());
  EXPECT_NO_THROW(b.execute_host(c.data(), f.data()));
  for (const auto& call : std::vector<std::function<void()>>{
           [&] { a.set_points_host(1, x.data()); }, [&] { a.execute_host(c.data(), f.data()); },
           [&] { (void)a.num_points_total(); }, [&] { (void)a.local_plan(); }}) {
    try {
      call();
      ADD_FAILURE() << "no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
      EXPECT_TRUE(contains(e, "moved from")) << e.what();
    }
  }
}

// A warning (the float tolerance clamp) is printed once, by rank 0, and not at all with
// Options::warnings = false.
TEST(DistErrors, WarningsOnceOnRankZeroAndSwitchable) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  const auto captured = [&](bool warnings) {
    std::ostringstream err;
    auto* old = std::cerr.rdbuf(err.rdbuf());
    Options o = cpu();
    o.warnings = warnings;
    DistPlan<float> p(ctx, 1, {16}, +1, 1, 1e-10, o);
    std::cerr.rdbuf(old);
    return err.str();
  };
  const std::string on = captured(true), off = captured(false);
  if (ctx.rank() == 0)
    EXPECT_NE(on.find("nufftmp warning: tol = 1e-10"), std::string::npos) << on;
  else
    EXPECT_EQ(on, "") << "rank " << ctx.rank();
  EXPECT_EQ(off, "");
}
