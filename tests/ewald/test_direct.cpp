// Energy, potentials and forces of random systems against the independent direct Ewald sum
// (direct_ewald.hpp, converged to ~1e-15) at the accuracies requested; the forces' sum; the
// same answer on P ranks as on one (a solver on MPI_COMM_SELF holding every ion). The ions
// are dealt out interleaved (ion i on rank i % P), so the slab exchange moves them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "direct_ewald.hpp"
#include "ewald_test_util.hpp"

namespace nufftmp::ewald::test {
namespace {

struct Case {
  const char* name;
  std::array<double, 3> L;
  int n;
  bool random_charges;  // with a net charge: neutralize
};

const Case kCases[] = {
    {"cube_pm1", {7, 7, 7}, 300, false},
    {"box_pm1", {6, 7, 8.5}, 280, false},
    {"box_charged", {8, 6.5, 7}, 260, true},
};

class Direct : public ::testing::TestWithParam<double> {};

TEST_P(Direct, MatchesDirectEwaldAtTheAccuracyRequested) {
  const double acc = GetParam();
  dist::Context world(MPI_COMM_WORLD, cpu_context());
  dist::Context self(MPI_COMM_SELF, cpu_context());
  // The systems and their reference sums, drawn once for all accuracies.
  static std::vector<TestSystem> systems;
  if (systems.empty()) {
    unsigned seed = 11;
    for (const Case& c : kCases)
      systems.push_back(test_system(world, c.L, c.n, seed++, c.random_charges));
  }
  for (std::size_t ci = 0; ci < systems.size(); ++ci) {
    const Case& c = kCases[ci];
    const System& all = systems[ci].all;
    const DirectResult& ref = systems[ci].ref;
    const auto& global = systems[ci].global;
    const System& mine = systems[ci].mine;
    Options o;
    o.accuracy = acc;
    o.neutralize = c.random_charges;
    const Result r = run(world, mine, o);
    const Errors e = errors_of(r, ref, global, true);
    if (world_rank() == 0)
      std::printf("%-11s acc %.0e ranks %d: energy %.2e potential %.2e force %.2e sum F %.2e | %s\n",
                  c.name, acc, world_size(), e.energy, e.potential, e.force, e.force_sum,
                  r.parameters.describe().c_str());
    EXPECT_LE(e.energy, acc) << c.name;
    EXPECT_LE(e.potential, acc) << c.name;
    EXPECT_LE(e.force, acc) << c.name;
    EXPECT_LE(e.force_sum, acc) << c.name;
    if (c.random_charges) EXPECT_NE(r.energy_background, 0.0);

    // The same system on one rank (every rank alone, all the ions): the same answer.
    const Result one = run(self, all, o);
    EXPECT_NEAR(one.energy, r.energy, 1e-12 * std::abs(r.energy)) << c.name;
    double worst = 0;
    for (std::size_t k = 0; k < global.size(); ++k) {
      const auto i = global[k];
      worst = std::max({worst, std::abs(one.potential[i] - r.potential[k]),
                        std::abs(one.fx[i] - r.fx[k]), std::abs(one.fy[i] - r.fy[k]),
                        std::abs(one.fz[i] - r.fz[k])});
    }
    EXPECT_LT(max_all(worst), 1e-11) << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Accuracies, Direct, ::testing::Values(1e-4, 1e-7, 1e-10));

TEST(Direct, PotentialsOnlyAndFixedParameters) {
  dist::Context world(MPI_COMM_WORLD, cpu_context());
  const TestSystem t = test_system(world, {7, 8, 6}, 240, 99);
  // forces = false: one type 2 vector; rcut fixed (alpha from the accuracy), then alpha fixed
  // (rcut from the accuracy), then everything fixed.
  Options o;
  o.accuracy = 1e-8;
  o.forces = false;
  o.rcut = 2.5;
  Result r = run(world, t.mine, o);
  EXPECT_TRUE(r.fx.empty());
  EXPECT_EQ(r.parameters.rcut, 2.5);
  EXPECT_LE(errors_of(r, t.ref, t.global, false).potential, 1e-8);
  EXPECT_LE(errors_of(r, t.ref, t.global, false).energy, 1e-8);
  Options a = o;
  a.rcut = 0;
  a.alpha = 1.6;
  r = run(world, t.mine, a);
  EXPECT_EQ(r.parameters.alpha, 1.6);
  EXPECT_LE(r.parameters.rcut, 3.0);
  EXPECT_LE(errors_of(r, t.ref, t.global, false).potential, 1e-8);
  // Everything fixed (alpha rcut = 5, the modes reaching kc = 18.4 ~ 2 alpha sqrt(-ln 1e-9)):
  // the error is what the estimates say.
  Options f = o;
  f.alpha = 2.0;
  f.modes = {45, 51, 39};
  f.nufft_tol = 1e-11;
  r = run(world, t.mine, f);
  EXPECT_EQ(r.parameters.modes[1], 51);
  EXPECT_EQ(r.parameters.nufft_tol, 1e-11);
  const auto& q = r.parameters;
  const double est = q.est_real_potential + q.est_recip_potential + q.est_nufft_potential;
  EXPECT_LE(errors_of(r, t.ref, t.global, false).potential, std::max(1e-8, 2 * est));
  EXPECT_LE(errors_of(r, t.ref, t.global, false).potential, 1e-8);
}

TEST(Direct, RepeatedStepsReuseThePlans) {
  // An MD-like sequence: the ions move, the count stays; each step must match its own
  // direct sum (the plans' points are set again every step).
  dist::Context world(MPI_COMM_WORLD, cpu_context());
  System all = random_ions({7, 7, 7}, 200, 0.3, 5);
  Options o;
  o.accuracy = 1e-7;
  Solver solver(world, all.box, o);
  for (int step = 0; step < 3; ++step) {
    for (std::int64_t i = 0; i < all.size(); ++i) all.x[i] += 0.05 * (i % 7) - 0.1;  // some leave the box
    const DirectResult ref = shared_reference(all);
    std::vector<std::int64_t> global;
    const System mine = interleaved_share(all, world.rank(), world.size(), global);
    const Result r = solver.compute(mine.size(), mine.x.data(), mine.y.data(), mine.z.data(),
                                    mine.q.data());
    const Errors e = errors_of(r, ref, global, true);
    EXPECT_LE(e.potential, 1e-7) << "step " << step;
    EXPECT_LE(e.force, 1e-7) << "step " << step;
  }
}

// An artificially small memory budget: the modes are capped (rcut grows, more real-space
// work) and the answer still meets the accuracy against the direct sum, on every rank count.
TEST(Direct, MemoryCappedChoiceStillMeetsTheAccuracy) {
  dist::Context world(MPI_COMM_WORLD, cpu_context());
  // Large enough that the free choice's rcut (4.3) lies well below L/2: room to grow.
  const TestSystem t = test_system(world, {11, 11, 11}, 1300, 123);
  Options o;
  o.accuracy = 1e-5;
  o.nufft.backend = Backend::Cpu;
  o.nufft.maxbatchsize = 1;  // so that only capping the modes can fit
  const Parameters free = choose_parameters(t.all.box, t.all.size(), o, 0, world_size());
  o.memory_budget_bytes = 0.8 * free.memory.peak();
  const Result r = run(world, t.mine, o);
  const Parameters& p = r.parameters;
  if (world_rank() == 0)
    std::printf("free: %s\ncapped: %s\n  %s\n", free.describe().c_str(), p.describe().c_str(),
                p.memory.describe().c_str());
  EXPECT_TRUE(p.memory_capped);
  EXPECT_LT(p.modes[0], free.modes[0]);
  EXPECT_GT(p.rcut, free.rcut);
  EXPECT_LE(p.memory.peak(), o.memory_budget_bytes);
  const Errors e = errors_of(r, t.ref, t.global, true);
  EXPECT_LE(e.energy, 1e-5);
  EXPECT_LE(e.potential, 1e-5);
  EXPECT_LE(e.force, 1e-5);
  EXPECT_LE(e.force_sum, 1e-5);
}

}  // namespace
}  // namespace nufftmp::ewald::test
