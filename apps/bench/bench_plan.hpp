// The plan a benchmark asks for and its points: types 1/2 take the modes and the points,
// type 3 the dimension and the sources plus the targets.
#pragma once

#include <vector>

#include "bench_data.hpp"
#include "bench_options.hpp"
#include "nufftmp/plan.hpp"
#include "placed_data.hpp"

namespace nufftmp::bench {

template <typename T>
Plan<T> make_bench_plan(const BenchOptions& o, const Options& opts) {
  if (o.type == 3) return Plan<T>(3, o.dim(), o.isign, o.ntransf, o.tol, opts);
  const std::vector<std::int64_t> modes(o.N, o.N + o.dim());
  return Plan<T>(o.type, modes, o.isign, o.ntransf, o.tol, opts);
}

// Points in the plan's memory space (type 3: o.num_modes() targets).
template <typename T>
void set_bench_points(Plan<T>& plan, const BenchOptions& o, std::int64_t M, const Placed<T>& p) {
  if (plan.type() == 3)
    plan.set_points(M, p.px, p.py, p.pz, o.num_modes(), p.ps, p.pt, p.pu);
  else
    plan.set_points(M, p.px, p.py, p.pz);
}

template <typename T>
const T* data_or_null(const std::vector<T>& v) {
  return v.empty() ? nullptr : v.data();
}

// Host arrays (set_points_host).
template <typename T>
void set_bench_points_host(Plan<T>& plan, std::int64_t M, const BenchData<T>& d) {
  if (plan.type() == 3)
    plan.set_points_host(M, d.x.data(), data_or_null(d.y), data_or_null(d.z),
                         static_cast<std::int64_t>(d.s.size()), d.s.data(), data_or_null(d.t),
                         data_or_null(d.u));
  else
    plan.set_points_host(M, d.x.data(), data_or_null(d.y), data_or_null(d.z));
}

}  // namespace nufftmp::bench
