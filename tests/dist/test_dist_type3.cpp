// DistPlan type 3 on the CPU engine, 1 to 4 ranks: shared targets (all-reduce, reduce to the
// last rank, pipelined steps) and scattered targets, each equal to the single-rank plan to
// rounding and to the direct sum to the tolerance; errors on one rank reach every rank.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "dist/dist_type3_check.hpp"

using namespace nufftmp;
using namespace nufftmp::dist;
using namespace nufftmp::test;

namespace {

// Host plans take host arrays in both APIs.
template <typename T>
void place_host(DistPlan<T>& plan, const Points<T>& src, const Points<T>& tgt,
                std::vector<std::complex<T>>& c, std::vector<std::complex<T>>& f) {
  plan.set_points(src.M, src.x(), src.y(), src.z(), tgt.M, tgt.x(), tgt.y(), tgt.z());
  plan.execute(c.empty() ? nullptr : c.data(), f.empty() ? nullptr : f.data());
}

class DistType3 : public ::testing::TestWithParam<DistType3Case> {};

TEST_P(DistType3, MatchesSingleRankAndDirectSum) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  check_dist_type3<double>(ctx, GetParam(), place_host<double>);
  check_dist_type3<float>(ctx, GetParam(), place_host<float>);
}

INSTANTIATE_TEST_SUITE_P(Cases, DistType3, ::testing::ValuesIn(dist_type3_cases()),
                         [](const ::testing::TestParamInfo<DistType3Case>& i) {
                           return dist_type3_name(i.param);
                         });

// The same rank-local failures every other DistPlan call agrees on.
TEST(DistType3Errors, ReachEveryRank) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  const int me = ctx.rank(), P = ctx.size();
  auto rng = make_rng(salt_of("dist_type3_errors"));
  Points<double> src, tgt;
  type3_inputs<double>(2, 40, 30, rng, src, tgt);
  // On every rank: the failing rank its own code, the others RemoteFailure (failing = -1:
  // every rank the code; -2: the code or RemoteFailure).
  auto expect_everywhere = [&](const std::function<void()>& fn, ErrorCode code, int failing) {
    try {
      fn();
      ADD_FAILURE() << "no error on rank " << me;
    } catch (const Error& e) {
      if (failing == -2) {
        EXPECT_TRUE(e.code() == code || e.code() == ErrorCode::RemoteFailure)
            << "rank " << me << ": " << e.what();
        return;
      }
      const ErrorCode want = (failing < 0 || me == failing) ? code : ErrorCode::RemoteFailure;
      EXPECT_EQ(e.code(), want) << "rank " << me << ": " << e.what();
    }
  };
  DistOptions scattered;
  scattered.targets = Type3Targets::Scattered;
  for (const DistOptions& d : {DistOptions(), scattered}) {
    DistPlan<double> plan(ctx, 3, 2, 1, 1, 1e-6, Options(), d);
    std::vector<std::complex<double>> c(40), f(30);
    expect_everywhere([&] { plan.execute(c.data(), f.data()); }, ErrorCode::InvalidArgument, -1);
    expect_everywhere([&] { plan.set_points(40, src.x(), src.y()); },
                      ErrorCode::InvalidArgument, -1);
    // A NaN target on the last rank.
    Points<double> t2 = tgt;
    if (me == P - 1) t2.xyz[1][3] = std::numeric_limits<double>::quiet_NaN();
    expect_everywhere([&] { plan.set_points(40, src.x(), src.y(), nullptr, 30, t2.x(), t2.y()); },
                      ErrorCode::BadPoints, P - 1);
    // And the plan still works.
    plan.set_points(40, src.x(), src.y(), nullptr, 30, tgt.x(), tgt.y());
    plan.execute(c.data(), f.data());
  }
  if (P > 1) {
    DistPlan<double> plan(ctx, 3, 1, 1, 1, 1e-6);
    // Shared targets must be the same: another count, or other values, on rank 1.
    expect_everywhere(
        [&] { plan.set_points(40, src.x(), nullptr, nullptr, me == 1 ? 29 : 30, tgt.x()); },
        ErrorCode::InvalidArgument, -1);
    Points<double> t2 = tgt;
    if (me == 1) t2.xyz[0][0] = 1e3;
    expect_everywhere([&] { plan.set_points(40, src.x(), nullptr, nullptr, 30, t2.x()); },
                      ErrorCode::InvalidArgument, -2);
  }
  DistOptions rb;
  rb.rebalance = true;
  expect_everywhere([&] { DistPlan<double>(ctx, 3, 2, 1, 1, 1e-6, Options(), rb); },
                    ErrorCode::InvalidArgument, -1);
}

}  // namespace
