// Helpers of the Ewald tests: the ranks, a random system drawn identically on every rank,
// this rank's interleaved share of it (ion i on rank i % P: nothing is in its slab, so the
// solver's exchange moves almost every ion), and MPI sums of the errors.
#pragma once

#include <mpi.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "direct_ewald.hpp"
#include "dist/dist_test_util.hpp"
#include "nufftmp/dist.hpp"
#include "nufftmp/ewald.hpp"

namespace nufftmp::ewald::test {

using nufftmp::test::cpu_context;
using nufftmp::test::world_rank;
using nufftmp::test::world_size;

// n ions uniform in the box, no two closer than min_sep (rejection), charges +1/-1
// alternating (neutral for even n) unless random_charges: uniform in [-1, 1].
inline System random_ions(const std::array<double, 3>& L, int n, double min_sep,
                          unsigned seed, bool random_charges = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  System s;
  s.box.L = L;
  while (s.size() < n) {
    const double p[3] = {L[0] * u(rng), L[1] * u(rng), L[2] * u(rng)};
    bool ok = true;
    for (std::int64_t j = 0; ok && j < s.size(); ++j) {
      double r2 = 0;
      const double o[3] = {s.x[j], s.y[j], s.z[j]};
      for (int d = 0; d < 3; ++d) {
        const double dd = p[d] - o[d] - L[d] * std::round((p[d] - o[d]) / L[d]);
        r2 += dd * dd;
      }
      ok = r2 >= min_sep * min_sep;
    }
    if (!ok) continue;
    s.x.push_back(p[0]);
    s.y.push_back(p[1]);
    s.z.push_back(p[2]);
    s.q.push_back(random_charges ? 2 * u(rng) - 1 : (s.size() % 2 == 0 ? 1.0 : -1.0));
  }
  return s;
}

// Ions i with i % size == rank, and their global indices.
inline System interleaved_share(const System& all, int rank, int size,
                                std::vector<std::int64_t>& global) {
  System s;
  s.box = all.box;
  global.clear();
  for (std::int64_t i = rank; i < all.size(); i += size) {
    s.x.push_back(all.x[i]);
    s.y.push_back(all.y[i]);
    s.z.push_back(all.z[i]);
    s.q.push_back(all.q[i]);
    global.push_back(i);
  }
  return s;
}

inline double sum_all(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return v;
}
inline double max_all(double v) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

// The direct sum of the whole system, computed on rank 0 and broadcast (the same numbers
// everywhere, and the other ranks' cores stay free).
inline DirectResult shared_reference(const System& all) {
  DirectResult d;
  if (world_rank() == 0)
    d = direct_ewald(all.box.L, all.x, all.y, all.z, all.q, reference_parameters(all.box.L));
  const auto n = static_cast<std::size_t>(all.size());
  for (auto* v : {&d.phi, &d.fx, &d.fy, &d.fz}) {
    v->resize(n);
    MPI_Bcast(v->data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
  MPI_Bcast(&d.energy, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return d;
}

struct Errors {
  double energy = 0, potential = 0, force = 0, force_sum = 0;  // relative, see below
};

// Errors of r (this rank's ions, global indices `global`) against the reference d:
// energy / (N q_rms^2 / d), RMS potential / (q_rms / d), RMS force / (q_rms^2 / d^2), and
// |sum F| / (sqrt(N) q_rms^2 / d^2).
inline Errors errors_of(const Result& r, const DirectResult& d, const std::vector<std::int64_t>& global,
                 bool forces) {
  const double N = static_cast<double>(r.n_total), q2 = r.sum_q2 / N;
  const double sp = r.parameters.spacing;
  double ep = 0, ef = 0, sf[3] = {0, 0, 0};
  for (std::size_t k = 0; k < global.size(); ++k) {
    const auto i = global[k];
    ep += std::pow(r.potential[k] - d.phi[i], 2);
    if (!forces) continue;
    ef += std::pow(r.fx[k] - d.fx[i], 2) + std::pow(r.fy[k] - d.fy[i], 2) +
          std::pow(r.fz[k] - d.fz[i], 2);
    sf[0] += r.fx[k];
    sf[1] += r.fy[k];
    sf[2] += r.fz[k];
  }
  Errors e;
  e.energy = std::abs(r.energy - d.energy) / (N * q2 / sp);
  e.potential = std::sqrt(sum_all(ep) / N) / (std::sqrt(q2) / sp);
  e.force = std::sqrt(sum_all(ef) / N) / (q2 / (sp * sp));
  e.force_sum = std::hypot(sum_all(sf[0]), sum_all(sf[1]), sum_all(sf[2])) /
                (std::sqrt(N) * q2 / (sp * sp));
  return e;
}

// A random system, its direct sum, and this rank's interleaved share of it.
struct TestSystem {
  System all, mine;
  DirectResult ref;
  std::vector<std::int64_t> global;  // global index of each of this rank's ions
};
inline TestSystem test_system(const dist::Context& ctx, const std::array<double, 3>& L, int n,
                              unsigned seed, bool random_charges = false) {
  TestSystem t;
  t.all = random_ions(L, n, 0.3, seed, random_charges);
  t.ref = shared_reference(t.all);
  t.mine = interleaved_share(t.all, ctx.rank(), ctx.size(), t.global);
  return t;
}

inline Result run(dist::Context& ctx, const System& s, const Options& o) {
  Solver solver(ctx, s.box, o);
  return solver.compute(s.size(), s.x.data(), s.y.data(), s.z.data(), s.q.data());
}

}  // namespace nufftmp::ewald::test
