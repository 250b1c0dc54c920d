// The reciprocal part of one evaluation: type 1 of the owned charges -> S(k) on every rank
// (all-reduced by the distributed plan) -> the mode array (mode_array.hpp, in place of S) ->
// type 2 of 2 vectors (potential and gradient packed; 1 without forces) at the owned ions. Owns the two DistPlans, made again when the
// parameters change, and the host buffers of the CPU engine; with the CUDA engine every array
// lives in GpuEwald. Collective calls.
#pragma once

#include <complex>
#include <memory>
#include <vector>

#include "gpu/gpu_ewald.hpp"
#include "mode_array.hpp"
#include "nufftmp/dist.hpp"
#include "nufftmp/ewald.hpp"
#include "real_space_pairs.hpp"

namespace nufftmp::ewald::detail {

class ReciprocalSpace {
 public:
  // Collective: the plans for these parameters (modes, tolerance, the type 2's batch).
  void plan(dist::Context& ctx, const Parameters& p, const Options& opts);
  void reset();

  // Host arrays (CPU engine): the owned ions' values afterwards in values()
  // (type2_vectors blocks of n_owned, mode_array.hpp). Returns sum_k g |S|^2.
  double run_host(dist::Context& ctx, const Ion* owned, std::int64_t n_owned, const Box& box,
                  const ModeGrid& m, Timings& t);
  const std::complex<double>* values() const { return values_.data(); }
  // The plans' working memory now (Plan::memory_bytes; 0 before plan).
  double type1_bytes() const;
  double type2_bytes() const;
  // Device arrays (CUDA engine): inputs and outputs in dev (its NUFFT inputs are released
  // after the type 1 when dev frees its phase buffers). Returns sum_k g |S|^2.
  double run_device(dist::Context& ctx, GpuEwald& dev, std::int64_t n_owned, const ModeGrid& m,
                    Timings& t);

 private:
  int nt_ = 1;
  std::unique_ptr<dist::DistPlan<double>> type1_, type2_;
  std::vector<double> x_, y_, z_;
  std::vector<std::complex<double>> charges_, f_, values_;  // f_: S, then the type 2 input
};

}  // namespace nufftmp::ewald::detail
