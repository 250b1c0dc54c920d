// Solver: one Ewald evaluation per compute() (see ewald.hpp for the terms and the layout).
//   1. this rank's ions checked and wrapped (input_ions.hpp); the global sums (count, net
//      charge, sum q^2) by one all-reduce;
//   2. the parameters (choose_parameters, the same on every rank) and, when they change, the
//      two distributed plans (reciprocal_space.hpp);
//   3. the ions to their z-slabs with their halos (slab_exchange.hpp);
//   4. real space at the owned ions (real_space_host.hpp, or the GPU with the CUDA engine);
//   5. the reciprocal part: S(k), the mode array, the type 2 at the owned ions;
//   6. potentials and forces assembled with the self and background terms, the energies
//      reduced, the results sent back to the ranks and order the ions came in.
// Every local step that can fail runs inside dist's status agreement, so an error on one
// rank is thrown on all of them and none is left waiting in a collective.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "dist/agree.hpp"
#include "dist/collectives.hpp"
#include "gpu/gpu_ewald.hpp"
#include "input_ions.hpp"
#include "nufftmp/ewald.hpp"
#include "number_text.hpp"
#include "parameters.hpp"
#include "real_space_host.hpp"
#include "reciprocal_space.hpp"
#include "slab_exchange.hpp"
#include "stopwatch.hpp"

namespace nufftmp::ewald {

using dist::detail::agreed;
using dist::detail::Param;
using detail::Clock;
using detail::ms_since;
using detail::num;

namespace {


// A net charge this small against sum |q| is rounding of a neutral system.
constexpr double kNeutralRelative = 1e-8;
// Share of the free device memory (CUDA engine) or of the physical memory (CPU engine) the
// solver may hold by default (Options::memory_budget_bytes): the device's rest covers what
// the model leaves out (CUDA context and library handles, the pool's rounding, cuFFT's
// plan-internal memory); the host's, the caller's arrays and everything else running.
constexpr double kDefaultDeviceShare = 0.8;
constexpr double kDefaultHostShare = 0.5;
// Default min_distance, in units of the mean spacing d.
constexpr double kMinDistanceRelative = 1e-6;


double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

}  // namespace

struct Solver::Impl {
  dist::Context* ctx = nullptr;
  Box box;
  Options opts;
  bool gpu = false;
  Parameters params;
  std::int64_t planned_for = -1;
  detail::ReciprocalSpace recip;
  std::unique_ptr<detail::GpuEwald> dev;

  MPI_Comm comm() const { return ctx->comm(); }

  void plan(std::int64_t n_total, Timings& tm);
  Result compute(std::int64_t n, const double* x, const double* y, const double* z,
                 const double* q);
  // Step 4; with the CUDA engine the sums stay on the device (rs is then empty).
  detail::RealSpaceResult real_space(const detail::SlabExchange& ex, Timings& tm);
  // Step 6 on the host: potentials and forces of the owned ions; returns sum q_i phi_real,i.
  double assemble_host(const detail::SlabExchange& ex, const detail::RealSpaceResult& rs,
                       double self, double background, double inv_s,
                       std::vector<double>* out) const;
  std::string close_pair_message(const detail::SlabExchange& ex, std::int64_t i) const;
};

Solver::Solver(dist::Context& ctx, const Box& box, const Options& opts)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.ctx = &ctx;
  s.box = box;
  s.opts = opts;
  s.gpu = ctx.backend() == Backend::Cuda;
  const auto& o = opts;
  dist::detail::require_same_parameters(
      ctx.comm(), "ewald::Solver",
      {Param{"box", {box.L[0], box.L[1], box.L[2]}}, Param{"accuracy", {o.accuracy}},
       Param{"rcut", {o.rcut}}, Param{"alpha", {o.alpha}},
       Param{"modes", {double(o.modes[0]), double(o.modes[1]), double(o.modes[2])}},
       Param{"nufft_tol", {o.nufft_tol}}, Param{"forces", {o.forces ? 1.0 : 0.0}},
       Param{"neutralize", {o.neutralize ? 1.0 : 0.0}}, Param{"min_distance", {o.min_distance}},
       Param{"memory_budget_bytes", {o.memory_budget_bytes}},
       Param{"upsampfac", {o.nufft.upsampfac}},
       Param{"maxbatchsize", {double(o.nufft.maxbatchsize)}},
       Param{"real_space_on_gpu", {o.real_space_on_gpu ? 1.0 : 0.0}}});
  agreed(ctx.comm(), [&] {
    detail::validate_box_and_options(box, opts);
    if (s.gpu) s.dev = std::make_unique<detail::GpuEwald>(ctx.device(), ctx.stream());
  });
}

Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

Result Solver::compute(std::int64_t n_local, const double* x, const double* y, const double* z,
                       const double* q) {
  return impl_->compute(n_local, x, y, z, q);
}

void Solver::Impl::plan(std::int64_t n_total, Timings& tm) {
  // The old plans go first: their memory counts as free for the new ones.
  recip.reset();
  planned_for = -1;
  double budget = opts.memory_budget_bytes;
  agreed(comm(), [&] {
    if (budget > 0) return;
    // Ranks sharing a GPU (or a host) share its memory: each takes its part of the share.
    const int devices = gpu ? std::max(1, cuda_device_count()) : 1;
    const int sharers = gpu ? (ctx->gpu_shared() ? (ctx->local_size() + devices - 1) / devices : 1)
                            : ctx->local_size();
    budget = gpu ? kDefaultDeviceShare / sharers *
                       (detail::GpuEwald::free_memory(ctx->device()) + dev->held_bytes())
                 : kDefaultHostShare / sharers * physical_memory_bytes();
  });
  // The root's budget for all: the parameters must be the same everywhere.
  const auto t0 = Clock::now();
  dist::detail::bcast(comm(), &budget, 1, 0);
  tm.comm_ms += ms_since(t0);
  Options o = opts;
  o.nufft.backend = gpu ? Backend::Cuda : Backend::Cpu;  // the memory model's engine
  agreed(comm(), [&] { params = choose_parameters(box, n_total, o, budget, ctx->size()); });
  if (gpu) dev->set_phased(params.phase_buffers);
  recip.plan(*ctx, params, opts);
  planned_for = n_total;
}

std::string Solver::Impl::close_pair_message(const detail::SlabExchange& ex,
                                             std::int64_t i) const {
  const auto& ions = ex.ions();
  const detail::Ion& a = ions[i];
  const double rmin = opts.min_distance > 0 ? opts.min_distance
                                            : kMinDistanceRelative * params.spacing;
  std::int64_t partner = -1;
  double best = 0;
  for (std::size_t j = 0; j < ions.size(); ++j) {
    if (static_cast<std::int64_t>(j) == i) continue;
    double r2 = 0;
    const double dd[3] = {a.x - ions[j].x, a.y - ions[j].y, a.z - ions[j].z};
    for (int d = 0; d < 3; ++d) {
      const double m = dd[d] - box.L[d] * std::round(dd[d] / box.L[d]);  // nearest image
      r2 += m * m;
    }
    if (partner < 0 || r2 < best) {
      partner = static_cast<std::int64_t>(j);
      best = r2;
    }
  }
  std::string msg = "ewald: ion " + std::to_string(ex.origin_index(i)) + " of rank " +
                    std::to_string(ex.origin_rank(i)) + " at (" + num(a.x) + ", " + num(a.y) +
                    ", " + num(a.z) + ")";
  if (partner >= 0)
    msg += " and ion " + std::to_string(ex.origin_index(partner)) + " of rank " +
           std::to_string(ex.origin_rank(partner)) + " are " + num(std::sqrt(best)) + " apart";
  return msg + ", closer than min_distance = " + num(rmin) + " (ions on top of each other)";
}

detail::RealSpaceResult Solver::Impl::real_space(const detail::SlabExchange& ex, Timings& tm) {
  const Parameters& p = params;
  const double rmin = opts.min_distance > 0 ? opts.min_distance : kMinDistanceRelative * p.spacing;
  const detail::PairParams pp{p.alpha, p.rcut * p.rcut, rmin * rmin};
  const std::int64_t n_own = ex.n_owned(), n_all = static_cast<std::int64_t>(ex.ions().size());
  // At most 8 cells per ion: a sparse system does not pay for a fine empty grid.
  const detail::CellGrid grid =
      detail::make_cell_grid(box.L.data(), p.rcut, std::max<std::int64_t>(64, 8 * n_all));
  const bool on_gpu = gpu && opts.real_space_on_gpu;
  detail::RealSpaceResult rs;
  auto t0 = Clock::now();
  if (gpu) agreed(comm(), [&] { dev->upload(ex.ions().data(), n_all, n_own, box.L.data()); });
  tm.transfer_ms += ms_since(t0);
  t0 = Clock::now();
  agreed(comm(), [&] {
    if (on_gpu)
      rs.too_close = dev->real_space(grid, pp, opts.forces);
    else
      rs = detail::real_space_host(ex.ions().data(), n_all, n_own, grid, pp, opts.forces);
    if (rs.too_close >= 0)
      throw Error(ErrorCode::InvalidArgument, close_pair_message(ex, rs.too_close));
  });
  tm.real_ms += ms_since(t0);
  if (gpu && !on_gpu) {
    t0 = Clock::now();
    agreed(comm(), [&] {
      dev->upload_real_space(rs.phi.data(), rs.fx.data(), rs.fy.data(), rs.fz.data(),
                             opts.forces);
    });
    tm.transfer_ms += ms_since(t0);
  }
  return rs;
}

double Solver::Impl::assemble_host(const detail::SlabExchange& ex,
                                   const detail::RealSpaceResult& rs, double self,
                                   double background, double inv_s,
                                   std::vector<double>* out) const {
  const std::int64_t n = ex.n_owned();
  const auto& ions = ex.ions();
  const double* v = reinterpret_cast<const double*>(recip.values());
  double local_real = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double q = ions[i].q;
    double r[4];
    if (opts.forces)
      detail::recip_values<true>(v, n, i, inv_s, r);
    else
      detail::recip_values<false>(v, n, i, inv_s, r);
    local_real += q * rs.phi[i];
    out[0][i] = rs.phi[i] + r[0] + self * q + background;
    if (opts.forces) {
      out[1][i] = rs.fx[i] + q * r[1];
      out[2][i] = rs.fy[i] + q * r[2];
      out[3][i] = rs.fz[i] + q * r[3];
    }
  }
  return local_real;
}

Result Solver::Impl::compute(std::int64_t n, const double* x, const double* y, const double* z,
                             const double* q) {
  const auto t_start = Clock::now();
  Result res;
  Timings& tm = res.timings;

  // 1. This rank's ions and the global sums.
  detail::InputIons in;
  agreed(comm(), [&] { in = detail::input_ions(n, x, y, z, q, box, ctx->rank()); });
  double sums[4] = {static_cast<double>(n), in.sum_q, in.sum_q2, in.sum_abs_q};
  auto t0 = Clock::now();
  dist::detail::allreduce_sum(comm(), sums, 4);
  tm.comm_ms += ms_since(t0);
  const auto n_total = static_cast<std::int64_t>(std::llround(sums[0]));
  const double Q = sums[1];
  res.n_total = n_total;
  res.net_charge = Q;
  res.sum_q2 = sums[2];

  // 2. Neutrality (every rank has the same sums: all throw together), parameters and plans.
  if (!opts.neutralize && std::abs(Q) > kNeutralRelative * sums[3])
    throw Error(ErrorCode::InvalidArgument,
                "ewald: net charge Q = " + num(Q) + " (sum |q| = " + num(sums[3]) +
                    "): the system must be neutral, or set neutralize for a uniform "
                    "neutralising background");
  if (n_total != planned_for) plan(n_total, tm);
  const Parameters& p = params;
  res.parameters = p;

  // 3. Ions to their slabs.
  t0 = Clock::now();
  const detail::SlabExchange ex(*ctx, detail::SlabLayout(ctx->size(), box.L[2], p.rcut),
                                std::move(in.ions));
  tm.comm_ms += ms_since(t0);
  const std::int64_t n_own = ex.n_owned();

  // 4. Real space.
  const detail::RealSpaceResult rs = real_space(ex, tm);

  // 5. Reciprocal space.
  detail::ModeGrid mg;
  for (int d = 0; d < 3; ++d) {
    mg.N[d] = p.modes[d];
    mg.kscale[d] = 2.0 * M_PI / box.L[d];
  }
  mg.inv4a2 = 1.0 / (4.0 * p.alpha * p.alpha);
  mg.prefactor = 4.0 * M_PI / box.volume();
  double kmax = 0;
  for (int d = 0; d < 3; ++d)
    kmax = std::max(kmax, mg.kscale[d] * double(std::max<std::int64_t>(1, (p.modes[d] - 1) / 2)));
  mg.grad_scale = 1.0 / kmax;
  const double green_sum = gpu ? recip.run_device(*ctx, *dev, n_own, mg, tm)
                               : recip.run_host(*ctx, ex.ions().data(), n_own, box, mg, tm);

  // 6. Potentials and forces of the owned ions, the energies.
  const double self = -2.0 * p.alpha / std::sqrt(M_PI);
  const double background = -M_PI * Q / (box.volume() * p.alpha * p.alpha);
  std::vector<double> out[4];  // potential, fx, fy, fz
  double local_real = 0;       // sum_i q_i phi_real,i over the owned ions
  agreed(comm(), [&] {
    for (int v = 0; v < (opts.forces ? 4 : 1); ++v) out[v].resize(n_own);
    t0 = Clock::now();
    local_real = gpu ? dev->assemble(self, background, kmax, opts.forces, out[0].data(),
                                     out[1].data(), out[2].data(), out[3].data())
                     : assemble_host(ex, rs, self, background, kmax, out);
    if (gpu) tm.transfer_ms += ms_since(t0);
  });
  t0 = Clock::now();
  dist::detail::allreduce_sum(comm(), &local_real, 1);
  res.energy_real = 0.5 * local_real;
  res.energy_recip = 2.0 * M_PI / box.volume() * green_sum;
  res.energy_self = -p.alpha / std::sqrt(M_PI) * sums[2];
  res.energy_background = -M_PI * Q * Q / (2.0 * box.volume() * p.alpha * p.alpha);
  res.energy = res.energy_real + res.energy_recip + res.energy_self + res.energy_background;

  // The results home (on one rank they are there already, in the given order).
  std::vector<double>* home[4] = {&res.potential, &res.fx, &res.fy, &res.fz};
  const int nv = opts.forces ? 4 : 1;
  if (ctx->size() == 1) {
    for (int v = 0; v < nv; ++v) *home[v] = std::move(out[v]);
  } else {
    std::vector<const double*> from;
    std::vector<double*> to;
    agreed(comm(), [&] {
      for (int v = 0; v < nv; ++v) {
        home[v]->resize(static_cast<std::size_t>(n));
        from.push_back(out[v].data());
        to.push_back(home[v]->data());
      }
    });
    ex.return_values(from, to);
  }
  tm.comm_ms += ms_since(t0);
  res.memory_type1_plan = recip.type1_bytes();
  res.memory_type2_plan = recip.type2_bytes();
  if (gpu) res.memory_solver_peak = dev->peak_bytes();
  tm.total_ms = ms_since(t_start);
  return res;
}

}  // namespace nufftmp::ewald
