#include "reciprocal_space.hpp"

#include <chrono>
#include <cmath>

#include "dist/agree.hpp"
#include "reciprocal_host.hpp"
#include "stopwatch.hpp"

namespace nufftmp::ewald::detail {

using dist::detail::agreed;

namespace {


void add_times(const dist::DistPlan<double>& plan, Timings& t) {
  t.nufft_ms += plan.last_timings().compute_ms;
  t.comm_ms += plan.last_timings().comm_ms;
}

}  // namespace

void ReciprocalSpace::reset() {
  type1_.reset();
  type2_.reset();
}

void ReciprocalSpace::plan(dist::Context& ctx, const Parameters& p, const Options& opts) {
  reset();
  nt_ = type2_vectors(opts.forces);
  nufftmp::Options no = opts.nufft;
  no.backend = Backend::Auto;  // the context's
  no.modeord = 0;              // mode_array.hpp's order
  no.maxbatchsize = 1;
  const std::vector<std::int64_t> modes(p.modes.begin(), p.modes.end());
  dist::DistOptions d1;
  d1.reduction = dist::Reduction::AllReduce;  // S(k) on every rank
  type1_ = std::make_unique<dist::DistPlan<double>>(ctx, 1, modes, +1, 1, p.nufft_tol, no, d1);
  dist::DistOptions d2;
  d2.modes_on_all = true;  // every rank made the same mode array from S
  no.maxbatchsize = p.type2_batch;  // as the memory estimate has it
  type2_ = std::make_unique<dist::DistPlan<double>>(ctx, 2, modes, -1, nt_, p.nufft_tol, no, d2);
}

double ReciprocalSpace::run_host(dist::Context& ctx, const Ion* owned, std::int64_t n,
                                 const Box& box, const ModeGrid& m, Timings& t) {
  const std::int64_t nm = m.count();
  agreed(ctx.comm(), [&] {
    x_.resize(n);
    y_.resize(n);
    z_.resize(n);
    charges_.resize(n);
    f_.resize(nt_ * nm);
    values_.resize(nt_ * n);
    const double s0 = 2 * M_PI / box.L[0], s1 = 2 * M_PI / box.L[1], s2 = 2 * M_PI / box.L[2];
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      x_[i] = s0 * owned[i].x;
      y_[i] = s1 * owned[i].y;
      z_[i] = s2 * owned[i].z;
      charges_[i] = owned[i].q;
    }
  });
  auto t0 = Clock::now();
  type1_->set_points_host(n, x_.data(), y_.data(), z_.data());
  t.nufft_ms += ms_since(t0);
  type1_->execute_host(charges_.data(), f_.data());  // S into block 0
  add_times(*type1_, t);
  t0 = Clock::now();
  const double green = apply_green_host(m, f_.data(), f_.data(), nt_ == 2);
  t.modes_ms += ms_since(t0);
  t0 = Clock::now();
  type2_->set_points_host(n, x_.data(), y_.data(), z_.data());
  t.nufft_ms += ms_since(t0);
  type2_->execute_host(values_.data(), f_.data());
  add_times(*type2_, t);
  return green;
}

double ReciprocalSpace::run_device(dist::Context& ctx, GpuEwald& dev, std::int64_t n,
                                   const ModeGrid& m, Timings& t) {
  std::complex<double>* f = nullptr;
  agreed(ctx.comm(), [&] { f = dev.modes(nt_ * m.count()); });
  // Both plans take their points first: the coordinates can then go (phased buffers).
  auto t0 = Clock::now();
  type1_->set_points(n, dev.nufft_x(), dev.nufft_y(), dev.nufft_z());
  type2_->set_points(n, dev.nufft_x(), dev.nufft_y(), dev.nufft_z());
  t.nufft_ms += ms_since(t0);
  type1_->execute(dev.charges(), f);  // S into block 0
  add_times(*type1_, t);
  t0 = Clock::now();
  double green = 0;
  std::complex<double>* v = nullptr;
  agreed(ctx.comm(), [&] {
    dev.release_nufft_inputs();
    green = dev.apply_green(m, nt_ == 2);
    v = dev.values(nt_ * n);
  });
  t.modes_ms += ms_since(t0);
  type2_->execute(v, f);
  add_times(*type2_, t);
  agreed(ctx.comm(), [&] { dev.release_modes(); });
  return green;
}

double ReciprocalSpace::type1_bytes() const {
  return type1_ ? static_cast<double>(type1_->local_plan().memory_bytes()) : 0.0;
}
double ReciprocalSpace::type2_bytes() const {
  return type2_ ? static_cast<double>(type2_->local_plan().memory_bytes()) : 0.0;
}

}  // namespace nufftmp::ewald::detail
