// The reciprocal part of one evaluation: type 1 of the owned charges -> S(k) on every rank
// (all-reduced by the distributed plan) -> the mode array (mode_array.hpp) -> type 2 of 4
// vectors (1 without forces) at the owned ions. Owns the two DistPlans, made again when the
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
  // Collective: the plans for these parameters (modes, tolerance) and nt vectors of type 2.
  void plan(dist::Context& ctx, const Parameters& p, const Options& opts);
  void reset();

  // Host arrays (CPU engine): the owned ions' values afterwards in values() (nt blocks of
  // n_owned). Returns sum_k g |S|^2.
  double run_host(dist::Context& ctx, const Ion* owned, std::int64_t n_owned, const Box& box,
                  const ModeGrid& m, Timings& t);
  const std::complex<double>* values() const { return values_.data(); }
  // Device arrays (CUDA engine): inputs and outputs in dev. Returns sum_k g |S|^2.
  double run_device(dist::Context& ctx, GpuEwald& dev, std::int64_t n_owned, const ModeGrid& m,
                    Timings& t);

 private:
  int nt_ = 1;
  std::unique_ptr<dist::DistPlan<double>> type1_, type2_;
  std::vector<double> x_, y_, z_;
  std::vector<std::complex<double>> charges_, S_, f_, values_;
};

}  // namespace nufftmp::ewald::detail
