// Bad input reaches every rank as an error (the failing rank its own, the others
// RemoteFailure naming it), no rank is left in a collective, and the solver works again
// with good input. On 2 and 3 ranks.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "ewald_test_util.hpp"

namespace nufftmp::ewald::test {
namespace {

bool contains(const Error& e, const std::string& s) {
  return std::string(e.what()).find(s) != std::string::npos;
}

// fn must throw on every rank: `code` with `text` on the failing rank (-1: every rank fails
// alike), RemoteFailure naming it on the others.
void expect_error_everywhere(const std::function<void()>& fn, ErrorCode code,
                             const std::string& text, int failing) {
  const int me = world_rank();
  try {
    fn();
    ADD_FAILURE() << "rank " << me << " did not throw (expected: " << text << ")";
  } catch (const Error& e) {
    if (failing < 0 || me == failing) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_TRUE(contains(e, text)) << e.what();
    } else {
      EXPECT_EQ(e.code(), ErrorCode::RemoteFailure) << e.what();
      EXPECT_TRUE(contains(e, "rank " + std::to_string(failing) + " failed")) << e.what();
      EXPECT_TRUE(contains(e, text)) << e.what();
    }
  }
}

// A crystal (this rank's slab of it) and a solver that can be reused after errors.
struct Fixture {
  dist::Context ctx{MPI_COMM_WORLD, cpu_context()};
  System mine = make_crystal(Crystal::NaCl, 2, ctx.rank(), ctx.size());
  Options opts = [] {
    Options o;
    o.accuracy = 1e-6;
    return o;
  }();
  Solver solver{ctx, mine.box, opts};
  Result compute(const System& s) {
    return solver.compute(s.size(), s.x.data(), s.y.data(), s.z.data(), s.q.data());
  }
  void still_works() {
    const Result r = compute(mine);
    EXPECT_NEAR(madelung_constant(Crystal::NaCl, 2, r.energy), 1.747564594633, 1e-5);
  }
};

TEST(EwaldErrors, NanPositionOnOneRank) {
  Fixture f;
  const int bad = world_size() - 1;
  System s = f.mine;
  if (world_rank() == bad) s.y[3] = std::numeric_limits<double>::quiet_NaN();
  expect_error_everywhere([&] { f.compute(s); }, ErrorCode::BadPoints,
                          "ion 3 of rank " + std::to_string(bad) + ": y = nan", bad);
  f.still_works();
}

TEST(EwaldErrors, InfiniteChargeOnOneRank) {
  Fixture f;
  System s = f.mine;
  if (world_rank() == 0) s.q[1] = std::numeric_limits<double>::infinity();
  expect_error_everywhere([&] { f.compute(s); }, ErrorCode::InvalidArgument,
                          "ion 1 of rank 0: charge = inf", 0);
  f.still_works();
}

TEST(EwaldErrors, NetChargeWithoutNeutralize) {
  Fixture f;
  System s = f.mine;
  if (world_rank() == 0) s.q[0] += 0.5;  // one rank's charge is off: the sum is global
  expect_error_everywhere([&] { f.compute(s); }, ErrorCode::InvalidArgument,
                          "net charge Q = 0.5", -1);
  f.still_works();
  // With neutralize, the background is applied and stated.
  Options o = f.opts;
  o.neutralize = true;
  const Result r = run(f.ctx, s, o);
  EXPECT_NEAR(r.net_charge, 0.5, 1e-12);
  EXPECT_LT(r.energy_background, 0.0);
}

TEST(EwaldErrors, IonsOnTopOfEachOther) {
  Fixture f;
  // The last rank gets a copy of rank 0's first ion: the pair is found by whichever rank
  // owns its slab (rank 0, the copy moving there), and reported on every rank.
  const int P = world_size();
  const double at[3] = {f.mine.box.L[0] * 0.25 + 0.01, 0.3, 0.2};
  System s = f.mine;
  if (world_rank() == 0) {
    s.x[0] = at[0];
    s.y[0] = at[1];
    s.z[0] = at[2];
  }
  if (world_rank() == P - 1) {
    s.x.push_back(at[0]);
    s.y.push_back(at[1]);
    s.z.push_back(at[2] + f.mine.box.L[2]);  // one period away: the same point
    s.q.push_back(0.0);
  }
  expect_error_everywhere([&] { f.compute(s); }, ErrorCode::InvalidArgument,
                          "on top of each other", 0);
  f.still_works();
}

TEST(EwaldErrors, BoxSmallerThanTwoRcut) {
  Fixture f;
  Options o = f.opts;
  o.rcut = 0.6 * f.mine.box.L[1];
  expect_error_everywhere([&] { Solver s(f.ctx, f.mine.box, o); }, ErrorCode::InvalidArgument,
                          "is smaller than 2 rcut", -1);
  Box flat = f.mine.box;
  flat.L[2] = 1.0;  // a rcut chosen for the wide box does not fit a flat one
  o.rcut = 1.5;
  expect_error_everywhere([&] { Solver s(f.ctx, flat, o); }, ErrorCode::InvalidArgument,
                          "box L[2] = 1 is smaller than 2 rcut = 3", -1);
  f.still_works();
}

TEST(EwaldErrors, BadOptionsAndBox) {
  Fixture f;
  Options o = f.opts;
  o.accuracy = 0;
  expect_error_everywhere([&] { Solver s(f.ctx, f.mine.box, o); }, ErrorCode::InvalidArgument,
                          "accuracy = 0", -1);
  o = f.opts;
  o.modes = {10, 11, 11};
  expect_error_everywhere([&] { Solver s(f.ctx, f.mine.box, o); }, ErrorCode::InvalidArgument,
                          "modes[0] = 10", -1);
  Box b = f.mine.box;
  b.L[1] = -4;
  expect_error_everywhere([&] { Solver s(f.ctx, b, f.opts); }, ErrorCode::InvalidArgument,
                          "box L[1] = -4", -1);
  f.still_works();
}

TEST(EwaldErrors, OptionsDifferBetweenRanks) {
  Fixture f;
  Options o = f.opts;
  if (world_rank() == 1) o.accuracy = 1e-7;
  expect_error_everywhere([&] { Solver s(f.ctx, f.mine.box, o); }, ErrorCode::InvalidArgument,
                          "parameter accuracy differs between ranks", -1);
  f.still_works();
}

TEST(EwaldErrors, NullArrayOnOneRank) {
  Fixture f;
  const int me = world_rank();
  expect_error_everywhere(
      [&] {
        f.solver.compute(f.mine.size(), f.mine.x.data(), me == 1 ? nullptr : f.mine.y.data(),
                         f.mine.z.data(), f.mine.q.data());
      },
      ErrorCode::InvalidArgument, "null position or charge array", 1);
  f.still_works();
}

TEST(EwaldErrors, NoIonsAnywhere) {
  Fixture f;
  expect_error_everywhere([&] { f.solver.compute(0, nullptr, nullptr, nullptr, nullptr); },
                          ErrorCode::InvalidArgument, "no ions", -1);
  f.still_works();
}

TEST(EwaldErrors, EmptyRankIsFine) {
  // Every ion given by rank 0, none by the others: the slabs spread them out.
  dist::Context ctx(MPI_COMM_WORLD, cpu_context());
  System s = make_crystal(Crystal::CsCl, 3);
  if (ctx.rank() != 0) s = System{s.box, {}, {}, {}, {}};
  Options o;
  o.accuracy = 1e-10;
  const Result r = run(ctx, s, o);
  EXPECT_NEAR(madelung_constant(Crystal::CsCl, 3, r.energy), 1.762674773070, 1e-9);
  EXPECT_EQ(static_cast<std::int64_t>(r.potential.size()), s.size());
}

}  // namespace
}  // namespace nufftmp::ewald::test
