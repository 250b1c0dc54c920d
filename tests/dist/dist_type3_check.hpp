// A distributed type 3 case, for any context (CPU or GPU): the whole problem drawn identically
// on every rank, uneven shares of the sources (one rank empty) and, for scattered targets, of
// the targets; every rank checks its values against the single-rank plan on all the points
// (the same grid, as the bounds are agreed: rounding apart) and against the direct sum.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <complex>
#include <string>
#include <vector>

#include "common/type3_behaviour.hpp"
#include "dist/dist_test_util.hpp"
#include "nufftmp/dist.hpp"
#include "nufftmp/reference.hpp"

namespace nufftmp::test {

struct DistType3Case {
  int dim;
  dist::Type3Targets targets;
  dist::Reduction reduction;
  int ntransf, reduce_batch;
  bool host_api;  // set_points_host / execute_host (else the plan's memory space)
};

inline std::string dist_type3_name(const DistType3Case& c) {
  return std::to_string(c.dim) + "d_" +
         (c.targets == dist::Type3Targets::Shared ? "shared" : "scattered") +
         (c.reduction == dist::Reduction::AllReduce ? "_allreduce" : "_reduce") + "_nt" +
         std::to_string(c.ntransf) + "_rb" + std::to_string(c.reduce_batch) +
         (c.host_api ? "_host" : "_plan");
}

// This rank's slice [off, off + n) of every used axis of p.
template <typename T>
Points<T> slice_of(const Points<T>& p, std::int64_t off, std::int64_t n) {
  Points<T> s;
  s.dim = p.dim;
  s.M = n;
  for (int d = 0; d < p.dim; ++d)
    s.xyz[d].assign(p.xyz[d].begin() + off, p.xyz[d].begin() + off + n);
  return s;
}

// place(plan, sources, targets, c, f): set_points and execute with the arrays in the plan's
// memory space (the GPU test copies them to the device and back; the CPU test passes them).
template <typename T, typename Place>
void check_dist_type3(dist::Context& ctx, const DistType3Case& k, Place&& place) {
  using C = std::complex<T>;
  const int P = ctx.size(), me = ctx.rank();
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-9;
  const std::string name = dist_type3_name(k) + (sizeof(T) == 4 ? "_f" : "_d");
  auto rng = make_rng(salt_of(name));
  Points<T> src, tgt;
  type3_inputs<T>(k.dim, 900, 500, rng, src, tgt);
  const auto c_all = random_complex<T>(k.ntransf * src.M, rng);

  // The single-rank answer at every target (CPU engine).
  Plan<T> single(3, k.dim, 1, k.ntransf, tol, cpu_options());
  single.set_points_host(src.M, src.x(), src.y(), src.z(), tgt.M, tgt.x(), tgt.y(), tgt.z());
  std::vector<C> ref(static_cast<size_t>(k.ntransf * tgt.M));
  auto c_copy = c_all;
  single.execute_host(c_copy.data(), ref.data());

  dist::DistOptions d;
  d.targets = k.targets;
  d.reduction = k.reduction;
  d.reduce_batch = k.reduce_batch;
  const int root = P - 1;
  d.root = root;
  dist::DistPlan<T> plan(ctx, 3, k.dim, 1, k.ntransf, tol, Options(), d);

  const auto counts = uneven_counts(src.M, P);
  const std::int64_t off = offset_of(counts, me), Ml = counts[me];
  const Points<T> mine = slice_of(src, off, Ml);
  const bool shared = k.targets == dist::Type3Targets::Shared;
  const auto tcounts = uneven_counts(tgt.M, P);
  // Scattered targets: the other way round (the rank without sources has targets).
  const int tme = P - 1 - me;
  const std::int64_t toff = shared ? 0 : offset_of(tcounts, tme);
  const std::int64_t Nl = shared ? tgt.M : tcounts[tme];
  const Points<T> my_tgt = slice_of(tgt, toff, Nl);
  std::vector<C> c(static_cast<size_t>(k.ntransf * Ml));
  for (int v = 0; v < k.ntransf; ++v)
    std::copy(c_all.begin() + v * src.M + off, c_all.begin() + v * src.M + off + Ml,
              c.begin() + v * Ml);
  std::vector<C> f(static_cast<size_t>(k.ntransf * Nl), C(7, 7));
  if (k.host_api) {
    plan.set_points_host(Ml, mine.x(), mine.y(), mine.z(), Nl, my_tgt.x(), my_tgt.y(),
                         my_tgt.z());
    plan.execute_host(c.data(), f.data());
  } else {
    place(plan, mine, my_tgt, c, f);
  }
  EXPECT_EQ(plan.num_points_local(), Ml);
  EXPECT_EQ(plan.num_points_total(), src.M);
  const bool holds_sum = !shared || k.reduction == dist::Reduction::AllReduce || me == root;
  if (!holds_sum) return;  // a non-root rank's partial sums under Reduce
  std::vector<std::int64_t> idx(static_cast<size_t>(Nl));
  for (std::int64_t i = 0; i < Nl; ++i) idx[i] = i;
  for (int v = 0; v < k.ntransf; ++v) {
    EXPECT_LE(rel_l2(f.data() + v * Nl, ref.data() + v * tgt.M + toff, Nl), rounding_tol<T>())
        << name << " vector " << v << " rank " << me;
    const auto exact = reference::type3<T>(k.dim, src.M, src.x(), src.y(), src.z(),
                                           c_all.data() + v * src.M, 1, my_tgt.x(), my_tgt.y(),
                                           my_tgt.z(), idx);
    if (Nl > 0)
      EXPECT_LE(reference::rel_l2_error<T>(exact, f.data() + v * Nl, idx), 10 * tol)
          << name << " vector " << v << " rank " << me;
  }
}

inline std::vector<DistType3Case> dist_type3_cases() {
  using dist::Reduction;
  using dist::Type3Targets;
  std::vector<DistType3Case> cases;
  for (int dim : {1, 2, 3}) {
    cases.push_back({dim, Type3Targets::Shared, Reduction::AllReduce, 1, 0, true});
    cases.push_back({dim, Type3Targets::Scattered, Reduction::AllReduce, 1, 0, true});
  }
  cases.push_back({2, Type3Targets::Shared, Reduction::Reduce, 3, 0, false});
  cases.push_back({3, Type3Targets::Shared, Reduction::AllReduce, 4, 1, false});  // steps
  cases.push_back({2, Type3Targets::Scattered, Reduction::AllReduce, 3, 0, false});
  cases.push_back({1, Type3Targets::Scattered, Reduction::Reduce, 2, 0, true});
  return cases;
}

}  // namespace nufftmp::test
