// The solver with the CUDA engine (real space on the GPU too): against the direct Ewald sum,
// the Madelung constants, the CPU engine on a larger system, the host real-space path, and
// the close-pair error found by the GPU kernel. Label gpu; exits 77 without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "ewald_test_util.hpp"

namespace nufftmp::ewald::test {
namespace {

dist::ContextOptions gpu_context() {
  dist::ContextOptions o;
  o.backend = Backend::Cuda;
  return o;
}

TEST(EwaldGpu, MatchesDirectEwald) {
  dist::Context gpu(MPI_COMM_WORLD, gpu_context());
  const TestSystem t = test_system(gpu, {7, 6.5, 8}, 300, 21);
  for (double acc : {1e-4, 1e-7, 1e-10}) {
    Options o;
    o.accuracy = acc;
    const Result r = run(gpu, t.mine, o);
    const Errors e = errors_of(r, t.ref, t.global, true);
    if (world_rank() == 0)
      std::printf("gpu acc %.0e ranks %d: energy %.2e potential %.2e force %.2e sum F %.2e\n", acc,
                  world_size(), e.energy, e.potential, e.force, e.force_sum);
    EXPECT_LE(e.energy, acc);
    EXPECT_LE(e.potential, acc);
    EXPECT_LE(e.force, acc);
    EXPECT_LE(e.force_sum, acc);
    // The host real-space path with the GPU NUFFTs: the same sums in another order.
    o.real_space_on_gpu = false;
    const Result h = run(gpu, t.mine, o);
    double worst = 0;
    for (std::size_t k = 0; k < t.global.size(); ++k)
      worst = std::max({worst, std::abs(h.potential[k] - r.potential[k]),
                        std::abs(h.fx[k] - r.fx[k]), std::abs(h.fz[k] - r.fz[k])});
    EXPECT_LT(max_all(worst), 1e-11);
    EXPECT_NEAR(h.energy, r.energy, 1e-12 * std::abs(r.energy));
  }
}

TEST(EwaldGpu, MadelungConstants) {
  dist::Context gpu(MPI_COMM_WORLD, gpu_context());
  for (Crystal c : {Crystal::NaCl, Crystal::CsCl, Crystal::ZincBlende, Crystal::Fluorite}) {
    const System mine = make_crystal(c, 3, gpu.rank(), gpu.size());
    Options o;
    o.accuracy = 1e-12;
    const Result r = run(gpu, mine, o);
    const double m = madelung_constant(c, 3, r.energy);
    if (world_rank() == 0)
      std::printf("gpu %-10s n=3 ranks=%d: M = %.13f\n", crystal_name(c), world_size(), m);
    const double lit = crystal_info(c).madelung_literature;
    EXPECT_NEAR(m, lit, c == Crystal::Fluorite ? 5e-6 : 1e-10 * lit) << crystal_name(c);
    if (c == Crystal::Fluorite) EXPECT_NEAR(m, 2.5193924399243, 1e-10 * m);  // the direct sum (CPU test)
  }
}

TEST(EwaldGpu, MatchesTheCpuEngine) {
  // 1e5 ions in z-slabs: the cell list with many cells, the NUFFTs with many points.
  dist::Context gpu(MPI_COMM_WORLD, gpu_context());
  dist::Context cpu(MPI_COMM_WORLD, cpu_context());
  const System mine = make_random_system(100000, 1.0, 3, gpu.rank(), gpu.size());
  Options o;
  o.accuracy = 1e-6;
  o.memory_budget_bytes = 8e9;  // the same parameters on both engines
  const Result g = run(gpu, mine, o);
  const Result c = run(cpu, mine, o);
  EXPECT_EQ(g.parameters.modes, c.parameters.modes);
  double ep = 0, ef = 0;
  for (std::size_t i = 0; i < g.potential.size(); ++i) {
    ep += std::pow(g.potential[i] - c.potential[i], 2);
    ef += std::pow(g.fx[i] - c.fx[i], 2) + std::pow(g.fy[i] - c.fy[i], 2) +
          std::pow(g.fz[i] - c.fz[i], 2);
  }
  const double N = 100000, d = g.parameters.spacing;
  EXPECT_LE(std::sqrt(sum_all(ep) / N) * d, 1e-6);  // q_rms = 1
  EXPECT_LE(std::sqrt(sum_all(ef) / N) * d * d, 1e-6);
  EXPECT_NEAR(g.energy, c.energy, 1e-6 * N / d);
  if (world_rank() == 0)
    std::printf("gpu vs cpu, 1e5 ions: energy %.15g / %.15g; gpu real %.1f ms nufft %.1f ms, "
                "cpu real %.1f ms nufft %.1f ms\n",
                g.energy, c.energy, g.timings.real_ms, g.timings.nufft_ms, c.timings.real_ms,
                c.timings.nufft_ms);
}

TEST(EwaldGpu, CloseIonsFoundOnTheDevice) {
  dist::Context gpu(MPI_COMM_WORLD, gpu_context());
  System s = make_crystal(Crystal::NaCl, 2, gpu.rank(), gpu.size());
  if (gpu.rank() == 0) {
    s.x.push_back(s.x[5] + 1e-9);
    s.y.push_back(s.y[5]);
    s.z.push_back(s.z[5]);
    s.q.push_back(0.0);
  }
  Options o;
  o.accuracy = 1e-6;
  try {
    run(gpu, s, o);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("on top of each other"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nufftmp::ewald::test
