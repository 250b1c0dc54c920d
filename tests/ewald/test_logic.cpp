// The pure parts of the Ewald solver, without MPI: parameter choice and its errors, the slab
// layout, the cell grid, the cell-list pair sums against all pairs and images, the mode-array
// step, the crystals and the random system.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

#include "cell_grid.hpp"
#include "direct_ewald.hpp"
#include "error_estimates.hpp"
#include "mode_array.hpp"
#include "nufftmp/ewald.hpp"
#include "nufftmp/plan.hpp"
#include "real_space_host.hpp"
#include "slab_layout.hpp"

namespace nufftmp::ewald {
namespace {

bool throws_with(const std::function<void()>& fn, ErrorCode code, const std::string& text) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code() == code && std::string(e.what()).find(text) != std::string::npos;
  }
  return false;
}

Box cube(double L) { return Box{{L, L, L}}; }

TEST(EwaldParameters, MeetTheAccuracyAndTheBox) {
  for (double acc : {1e-3, 1e-6, 1e-9, 1e-12}) {
    Options o;
    o.accuracy = acc;
    const Box box{{30, 25, 40}};
    const Parameters p = choose_parameters(box, 30000, o, 0);
    EXPECT_LE(2 * p.rcut, 25.0);
    EXPECT_LE(std::max(p.est_real_potential, p.est_real_force), acc / 2 * (1 + 1e-9));
    EXPECT_LE(std::max(p.est_recip_potential, p.est_recip_force), acc / 2 * (1 + 1e-9));
    EXPECT_LE(std::max(p.est_nufft_potential, p.est_nufft_force), acc / 2 * (1 + 1e-9));
    for (auto m : p.modes) EXPECT_EQ(m % 2, 1);
    EXPECT_GE(p.nufft_tol, 1e-14);
    EXPECT_NEAR(p.spacing, std::cbrt(30.0 * 25 * 40 / 30000), 1e-12);
    EXPECT_FALSE(p.describe().empty());
  }
}

TEST(EwaldParameters, TighterAccuracyCostsMore) {
  Options lo, hi;
  lo.accuracy = 1e-4;
  hi.accuracy = 1e-10;
  lo.rcut = hi.rcut = 4;
  const Parameters a = choose_parameters(cube(20), 8000, lo, 0);
  const Parameters b = choose_parameters(cube(20), 8000, hi, 0);
  EXPECT_GT(b.alpha, a.alpha);
  EXPECT_GT(b.modes[0], a.modes[0]);
  EXPECT_LT(b.nufft_tol, a.nufft_tol);
}

TEST(EwaldParameters, FixedValuesAreKept) {
  Options o;
  o.accuracy = 1e-8;
  o.alpha = 0.9;
  const Parameters p = choose_parameters(cube(20), 8000, o, 0);
  EXPECT_EQ(p.alpha, 0.9);
  // The smallest rcut meeting the real-space part.
  EXPECT_LE(std::max(detail::est_real_potential(0.9, p.rcut, p.spacing),
                     detail::est_real_force(0.9, p.rcut, p.spacing)),
            0.5e-8 * (1 + 1e-9));
  EXPECT_GT(detail::est_real_force(0.9, 0.99 * p.rcut, p.spacing) +
                detail::est_real_potential(0.9, 0.99 * p.rcut, p.spacing),
            0.5e-8);
  o.modes = {21, 23, 25};
  o.nufft_tol = 1e-9;
  const Parameters q = choose_parameters(cube(20), 8000, o, 0);
  EXPECT_EQ(q.modes[2], 25);
  EXPECT_EQ(q.nufft_tol, 1e-9);
}

TEST(EwaldParameters, BadInputIsNamed) {
  Options o;
  auto choose = [&](const Box& b, std::int64_t n) { return [=] { choose_parameters(b, n, o, 0); }; };
  o.accuracy = 0.5;
  EXPECT_TRUE(throws_with(choose(cube(10), 100), ErrorCode::InvalidArgument, "accuracy = 0.5"));
  o.accuracy = std::nan("");
  EXPECT_TRUE(throws_with(choose(cube(10), 100), ErrorCode::InvalidArgument, "accuracy = nan"));
  o = Options();
  EXPECT_TRUE(throws_with(choose(cube(10), 0), ErrorCode::InvalidArgument, "no ions"));
  EXPECT_TRUE(throws_with(choose(Box{{10, 0, 10}}, 100), ErrorCode::InvalidArgument, "box L[1] = 0"));
  o.rcut = 5.5;
  EXPECT_TRUE(throws_with(choose(Box{{12, 10, 11}}, 100), ErrorCode::InvalidArgument,
                          "box L[1] = 10 is smaller than 2 rcut = 11"));
  o = Options();
  o.modes = {11, 0, 11};
  EXPECT_TRUE(throws_with(choose(cube(10), 100), ErrorCode::InvalidArgument, "modes[1] = 0"));
  o = Options();
  o.nufft_tol = 1e-20;
  EXPECT_TRUE(throws_with(choose(cube(10), 100), ErrorCode::InvalidArgument, "nufft_tol = 1e-20"));
  o = Options();
  o.alpha = 0.01;  // far too soft for rcut <= L/2
  EXPECT_TRUE(throws_with(choose(cube(10), 1000), ErrorCode::InvalidArgument,
                          "cannot reach accuracy"));
  o = Options();
  EXPECT_TRUE(throws_with([&] { choose_parameters(cube(100), 1000000, o, 1e6); },
                          ErrorCode::OutOfMemory, "memory budget"));
}

TEST(EwaldParameters, BudgetCapsTheModes) {
  Options o;
  o.accuracy = 1e-6;
  const Parameters free = choose_parameters(cube(50), 125000, o, 0);
  EXPECT_FALSE(free.memory_capped);
  const double budget = 0.5 * free.memory.peak();
  const Parameters capped = choose_parameters(cube(50), 125000, o, budget);
  EXPECT_LT(capped.modes[0], free.modes[0]);
  EXPECT_GT(capped.rcut, free.rcut);
  EXPECT_LE(capped.memory.peak(), budget);
  EXPECT_TRUE(capped.memory_capped);
  EXPECT_NE(capped.describe().find("capped"), std::string::npos);
  // Still the accuracy: the estimates of every part within their share.
  EXPECT_LE(std::max(capped.est_real_potential, capped.est_real_force), 0.5e-6 * (1 + 1e-9));
  EXPECT_LE(std::max(capped.est_recip_potential, capped.est_recip_force), 0.5e-6 * (1 + 1e-9));
}

// Under a tightening budget the CUDA model first frees the phases' buffers, then batches the
// type 2 one vector at a time, and only then caps the modes.
TEST(EwaldParameters, BudgetOrderOnTheGpu) {
  Options o;
  o.accuracy = 1e-6;
  o.nufft.backend = Backend::Cuda;
  const Parameters kept = choose_parameters(cube(60), 216000, o, 0);
  EXPECT_FALSE(kept.phase_buffers);
  EXPECT_EQ(kept.type2_batch, 2);
  EXPECT_GT(kept.memory.fft_work, 0.0);
  const double kept_peak = kept.memory.peak();

  const Parameters phased = choose_parameters(cube(60), 216000, o, kept_peak * (1 - 1e-9));
  EXPECT_TRUE(phased.phase_buffers);
  EXPECT_EQ(phased.type2_batch, 2);
  EXPECT_EQ(phased.modes, kept.modes);
  EXPECT_LT(phased.memory.peak(), kept_peak);

  const Parameters single = choose_parameters(cube(60), 216000, o, phased.memory.peak() * (1 - 1e-9));
  EXPECT_TRUE(single.phase_buffers);
  EXPECT_EQ(single.type2_batch, 1);
  EXPECT_EQ(single.modes, kept.modes);
  EXPECT_FALSE(single.memory_capped);
  EXPECT_NEAR(single.memory.grid_type2, 0.5 * phased.memory.grid_type2, 1e-6 * phased.memory.grid_type2);

  const Parameters capped = choose_parameters(cube(60), 216000, o, 0.5 * single.memory.peak());
  EXPECT_TRUE(capped.memory_capped);
  EXPECT_LT(capped.modes[0], kept.modes[0]);
  EXPECT_LE(capped.memory.peak(), 0.5 * single.memory.peak());

  // A fixed batch is kept; more ranks hold fewer ions each (the modes are whole on each).
  o.nufft.maxbatchsize = 1;
  EXPECT_EQ(choose_parameters(cube(60), 216000, o, 0).type2_batch, 1);
  o.nufft.maxbatchsize = 0;
  o.rcut = kept.rcut;
  const Parameters two = choose_parameters(cube(60), 216000, o, 0, 2);
  EXPECT_LT(two.memory.plan_points, kept.memory.plan_points);
  EXPECT_EQ(two.memory.modes, kept.memory.modes);
}

// The estimate's fine grid is the plan's, and the CPU plan's measured memory is near the
// estimate of its share.
TEST(EwaldMemory, GridIsThePlans) {
  Options o;
  o.accuracy = 1e-6;
  const Parameters p = choose_parameters(cube(20), 8000, o, 0);
  nufftmp::Options no;
  no.backend = Backend::Cpu;
  no.nthreads = 1;
  no.maxbatchsize = 1;
  const std::vector<std::int64_t> modes(p.modes.begin(), p.modes.end());
  Plan<double> plan(1, modes, +1, 1, p.nufft_tol, no);
  const auto nf = plan.fine_grid();
  EXPECT_DOUBLE_EQ(p.memory.grid_type1, 16.0 * double(nf[0]) * nf[1] * nf[2]);
  EXPECT_DOUBLE_EQ(p.memory.upsampfac_type1, plan.upsampfac());
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 2 * M_PI);
  std::vector<double> x(8000), y(8000), z(8000);
  for (int i = 0; i < 8000; ++i) {
    x[i] = u(rng);
    y[i] = u(rng);
    z[i] = u(rng);
  }
  plan.set_points(8000, x.data(), y.data(), z.data());
  const double measured = static_cast<double>(plan.memory_bytes());
  std::printf("type 1 plan: estimate %.4g MB, measured %.4g MB\n", p.memory.plan_type1 / 1e6,
              measured / 1e6);
  EXPECT_GT(measured, 0.8 * p.memory.plan_type1);
  EXPECT_LT(measured, 1.25 * p.memory.plan_type1);
}

TEST(EwaldSlabs, OwnerAndHalo) {
  detail::SlabLayout one(1, 10, 2);
  std::vector<int> h;
  one.halo_ranks(5, h);
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(one.owner(9.99), 0);
  detail::SlabLayout four(4, 12, 1);  // slabs of 3
  EXPECT_EQ(four.owner(0), 0);
  EXPECT_EQ(four.owner(5.9), 1);
  EXPECT_EQ(four.owner(11.999), 3);
  four.halo_ranks(4.5, h);  // in the middle of slab 1
  EXPECT_TRUE(h.empty());
  four.halo_ranks(0.5, h);  // near z = 0: slab 3 across the periodic boundary
  EXPECT_EQ(h, std::vector<int>({3}));
  four.halo_ranks(8.7, h);  // near the top of slab 2
  EXPECT_EQ(h, std::vector<int>({3}));
  detail::SlabLayout thin(4, 4, 2.5);  // rcut wider than the slabs: everybody
  thin.halo_ranks(1.5, h);
  EXPECT_EQ(h, std::vector<int>({0, 2, 3}));
}

TEST(EwaldCells, GridGeometry) {
  const double L[3] = {10, 7, 4};
  const auto g = detail::make_cell_grid(L, 2.0, 1 << 20, 2);
  EXPECT_EQ(g.n[0], 10);
  EXPECT_EQ(g.n[1], 7);
  EXPECT_EQ(g.n[2], 4);
  for (int d = 0; d < 3; ++d) EXPECT_GE(g.h[d] * g.reach, 2.0);
  const auto capped = detail::make_cell_grid(L, 0.1, 1000, 2);
  EXPECT_LE(capped.count(), 1000);
  for (int d = 0; d < 3; ++d) EXPECT_GE(capped.h[d] * capped.reach, 0.1);
  EXPECT_EQ(detail::cell_coord(9.9999999, 0, g), 9);
  EXPECT_EQ(detail::cell_coord(10.0, 0, g), 9);  // rounding up to L stays in the box
}

// The cell-list sums at every ion against all pairs and images, for boxes with few cells per
// axis (2, 3, ...: the same wrapped cell visited with different shifts) and reach 1 and 2.
TEST(EwaldCells, PairSumsMatchAllPairs) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0, 1);
  for (int reach : {1, 2}) {
    for (double rc : {1.0, 1.9, 2.5}) {
      const std::array<double, 3> L = {5.0, 6.2, 7.5};
      const int n = 120;
      std::vector<detail::Ion> ions(n);
      std::vector<double> x(n), y(n), z(n), q(n);
      for (int i = 0; i < n; ++i) {
        ions[i] = {L[0] * u(rng), L[1] * u(rng), L[2] * u(rng), u(rng) - 0.5};
        x[i] = ions[i].x;
        y[i] = ions[i].y;
        z[i] = ions[i].z;
        q[i] = ions[i].q;
      }
      const auto g = detail::make_cell_grid(L.data(), rc, 1 << 20, reach);
      const detail::PairParams p{0.8, rc * rc, 1e-12};
      const int owned = 90;  // the last 30 are a halo: sources only
      const auto rs = detail::real_space_host(ions.data(), n, owned, g, p, true);
      EXPECT_EQ(rs.too_close, -1);
      // The reference's real-space part (alpha 0.8, this rcut), without its k sum: kmax ~ 0.
      test::DirectParams dp{0.8, rc, 1e-9};
      const auto d = test::direct_ewald(L, x, y, z, q, dp);
      const double self = -2 * 0.8 / std::sqrt(M_PI);
      double Q = 0;
      for (double v : q) Q += v;
      const double bg = -M_PI * Q / (L[0] * L[1] * L[2] * 0.64);
      for (int i = 0; i < owned; ++i) {
        EXPECT_NEAR(rs.phi[i], d.phi[i] - self * q[i] - bg, 1e-12) << i;
        EXPECT_NEAR(rs.fx[i], d.fx[i], 1e-12) << i;
        EXPECT_NEAR(rs.fz[i], d.fz[i], 1e-12) << i;
      }
    }
  }
}

TEST(EwaldCells, CoincidentIonsAreFound) {
  const double L[3] = {4, 4, 4};
  std::vector<detail::Ion> ions = {{1, 1, 1, 1}, {3, 3, 3, -1}, {0.0, 1, 1, 1}, {4.0 - 1e-13, 1, 1, -1}};
  const auto g = detail::make_cell_grid(L, 1.5, 1000);
  const detail::PairParams p{1, 2.25, 1e-12};
  // Ions 2 and 3 are one period apart up to 1e-13: the same point.
  EXPECT_EQ(detail::real_space_host(ions.data(), 4, 4, g, p, false).too_close, 2);
  EXPECT_EQ(detail::real_space_host(ions.data(), 2, 2, g, p, false).too_close, -1);
}

TEST(EwaldModes, GreenAndGradient) {
  detail::ModeGrid m;
  m.N[0] = 5;
  m.N[1] = 3;
  m.N[2] = 7;
  for (int d = 0; d < 3; ++d) m.kscale[d] = 2 * M_PI / (4.0 + d);
  m.inv4a2 = 0.25;
  m.prefactor = 0.5;
  m.grad_scale = 0.3;
  const std::int64_t count = m.count();
  std::vector<double> S(2 * count), f(4 * count), f0(2 * count);
  for (std::int64_t i = 0; i < 2 * count; ++i) S[i] = std::sin(0.7 * i);
  double e = 0, e0 = 0;
  for (std::int64_t idx = 0; idx < count; ++idx) {
    e += detail::apply_green<true>(idx, m, S.data(), f.data(), count);
    e0 += detail::apply_green<false>(idx, m, S.data(), f0.data(), count);
  }
  EXPECT_EQ(e, e0);
  // The k = 0 mode (the middle) is dropped; mode (i0, i1, i2) = (3, 1, 3): n = (1, 0, 0);
  // (2, 2, 3): n = (0, 1, 0).
  const std::int64_t mid = (3 * 3 + 1) * 5 + 2, one = (3 * 3 + 1) * 5 + 3, ky1 = (3 * 3 + 2) * 5 + 2;
  EXPECT_EQ(f[2 * mid], 0.0);
  const double k = 2 * M_PI / 4.0, g = std::exp(-k * k * 0.25) / (k * k);
  EXPECT_NEAR(f0[2 * one], 0.5 * g * S[2 * one], 1e-15);
  // fA = f0 + i s f1 = (1 - s k_x) f0; fB = s (f2 + i f3) = s (i k_y - k_z) f0.
  EXPECT_NEAR(f[2 * one], (1 - 0.3 * k) * f0[2 * one], 1e-15);
  EXPECT_NEAR(f[2 * one + 1], (1 - 0.3 * k) * f0[2 * one + 1], 1e-15);
  EXPECT_EQ(f[2 * (count + one)], 0.0);  // k_y = k_z = 0
  const double ky = 2 * M_PI / 5.0;
  EXPECT_NEAR(f[2 * (count + ky1)], -0.3 * ky * f0[2 * ky1 + 1], 1e-15);
  EXPECT_NEAR(f[2 * (count + ky1) + 1], 0.3 * ky * f0[2 * ky1], 1e-15);
  EXPECT_GT(e, 0.0);
  // In place (S in block 0) gives the same bits.
  std::vector<double> g2(4 * count);
  std::copy(S.begin(), S.end(), g2.begin());
  for (std::int64_t idx = 0; idx < count; ++idx)
    detail::apply_green<true>(idx, m, g2.data(), g2.data(), count);
  EXPECT_EQ(g2, f);
  // Unpacking: values (a + i b, c + i d) -> phi a, forces / q (b, c, d) / s.
  const double v[4] = {1.5, 0.6, -0.9, 0.3};
  double r[4];
  detail::recip_values<true>(v, 1, 0, 1 / 0.3, r);
  EXPECT_EQ(r[0], 1.5);
  EXPECT_NEAR(r[1], 2.0, 1e-15);
  EXPECT_NEAR(r[2], -3.0, 1e-15);
  EXPECT_NEAR(r[3], 1.0, 1e-15);
}

TEST(EwaldCrystals, SharesTileTheSupercell) {
  for (Crystal c : {Crystal::NaCl, Crystal::CsCl, Crystal::ZincBlende, Crystal::Fluorite}) {
    const CrystalInfo info = crystal_info(c);
    const System all = make_crystal(c, 2);
    EXPECT_EQ(all.size(), 8 * info.ions_per_cell);
    double Q = 0, dmin = 1e9;
    for (std::int64_t i = 0; i < all.size(); ++i) {
      Q += all.q[i];
      EXPECT_GE(all.x[i], 0.0);
      EXPECT_LT(all.z[i], all.box.L[2]);
      for (std::int64_t j = 0; j < i; ++j) {
        double r2 = 0;
        const double dd[3] = {all.x[i] - all.x[j], all.y[i] - all.y[j], all.z[i] - all.z[j]};
        for (int d = 0; d < 3; ++d) {
          const double m = dd[d] - all.box.L[d] * std::round(dd[d] / all.box.L[d]);
          r2 += m * m;
        }
        if (all.q[i] * all.q[j] < 0) dmin = std::min(dmin, std::sqrt(r2));
      }
    }
    EXPECT_NEAR(Q, 0.0, 1e-12) << info.name;
    EXPECT_NEAR(dmin, 1.0, 1e-12) << info.name << ": the cation-anion distance r0 is 1";
    // Three ranks' shares concatenate to the single-rank system.
    std::int64_t at = 0;
    for (int r = 0; r < 3; ++r) {
      const System s = make_crystal(c, 2, r, 3);
      for (std::int64_t i = 0; i < s.size(); ++i, ++at) {
        EXPECT_EQ(s.x[i], all.x[at]);
        EXPECT_EQ(s.q[i], all.q[at]);
      }
    }
    EXPECT_EQ(at, all.size());
  }
  EXPECT_TRUE(throws_with([] { make_crystal(Crystal::NaCl, 0); }, ErrorCode::InvalidArgument,
                          "n = 0"));
}

TEST(EwaldCrystals, RandomSystemIsTheSameForAnyRankCount) {
  const System all = make_random_system(1000, 0.5, 42);
  EXPECT_NEAR(all.box.L[0], std::cbrt(2000.0), 1e-12);
  double Q = 0;
  for (double v : all.q) Q += v;
  EXPECT_EQ(Q, 0.0);
  std::int64_t at = 0;
  double zmax_prev = 0;
  for (int r = 0; r < 4; ++r) {
    const System s = make_random_system(1000, 0.5, 42, r, 4);
    for (std::int64_t i = 0; i < s.size(); ++i, ++at) {
      EXPECT_EQ(s.y[i], all.y[at]);
      EXPECT_EQ(s.z[i], all.z[at]);
    }
    // A z-slab per rank.
    EXPECT_GE(*std::min_element(s.z.begin(), s.z.end()), zmax_prev);
    zmax_prev = *std::max_element(s.z.begin(), s.z.end());
  }
  EXPECT_TRUE(throws_with([] { make_random_system(7, 1, 1); }, ErrorCode::InvalidArgument,
                          "must be even"));
}

}  // namespace
}  // namespace nufftmp::ewald
