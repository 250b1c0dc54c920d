// Solver: one Ewald evaluation per compute() (see ewald.hpp for the terms and the layout).
//   1. this rank's ions checked (finite) and wrapped into the box; global sums (count, net
//      charge, sum q^2) by one all-reduce;
//   2. the parameters (choose_parameters, the same on every rank) and, when they change, the
//      two distributed plans: type 1 (S(k), all-reduced) and type 2 (modes on every rank);
//   3. the ions to their z-slabs with their halos (SlabExchange);
//   4. real space at the owned ions (host, or the GPU with the CUDA engine);
//   5. type 1 of the owned charges -> S on every rank -> the mode array (Green's function and
//      gradient) -> type 2 at the owned ions;
//   6. potentials and forces assembled with the self and background terms, the energies
//      reduced, the results sent back to the ranks and order the ions came in.
// Every local step that can fail runs inside dist's status agreement, so an error on one
// rank is thrown on all of them and none is left waiting in a collective.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>

#include "agree.hpp"
#include "context_impl.hpp"
#include "gpu/gpu_ewald.hpp"
#include "nufftmp/ewald.hpp"
#include "parameters.hpp"
#include "real_space_host.hpp"
#include "reciprocal_host.hpp"
#include "slab_exchange.hpp"

namespace nufftmp::ewald {

using dist::detail::agreed;
using dist::detail::Param;

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A net charge this small against sum |q| is rounding of a neutral system.
constexpr double kNeutralRelative = 1e-8;
// Share of the free memory the NUFFT grids may take by default (Options::memory_budget_bytes).
constexpr double kDefaultBudgetShare = 0.4;
// Default min_distance, in units of the mean spacing d.
constexpr double kMinDistanceRelative = 1e-6;

std::string num(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? double(pages) * double(page) : 0.0;
}

// Wraps into [0, L): the cell list and the slabs need it; the NUFFT takes 2 pi x / L.
double wrap(double x, double L) {
  double w = x - L * std::floor(x / L);
  if (w >= L) w -= L;
  return w < 0 ? 0.0 : w;
}

}  // namespace

struct Solver::Impl {
  dist::Context* ctx = nullptr;
  Box box;
  Options opts;
  bool gpu = false;
  Parameters params;
  std::int64_t planned_for = -1;
  std::unique_ptr<dist::DistPlan<double>> type1, type2;
  std::unique_ptr<detail::GpuEwald> dev;
  // Host path buffers, kept between calls.
  std::vector<double> xs, ys, zs;
  std::vector<std::complex<double>> charges, S, f, values;

  MPI_Comm comm() const { return ctx->comm(); }
  dist::detail::Communicator& host_comm() const {
    return ctx->impl().communicator(MemorySpace::Host);
  }
  int nt() const { return opts.forces ? 4 : 1; }

  void plan(std::int64_t n_total, Timings& tm);
  Result compute(std::int64_t n, const double* x, const double* y, const double* z,
                 const double* q);
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
  double budget = opts.memory_budget_bytes;
  agreed(comm(), [&] {
    if (budget <= 0)
      budget = kDefaultBudgetShare *
               (gpu ? detail::GpuEwald::free_memory(ctx->device()) : physical_memory_bytes());
  });
  // The root's budget for all: the parameters must be the same everywhere.
  const auto t0 = Clock::now();
  host_comm().bcast(&budget, 1, dist::detail::Scalar::F64, 0);
  tm.comm_ms += ms_since(t0);
  type1.reset();
  type2.reset();
  planned_for = -1;
  agreed(comm(), [&] { params = choose_parameters(box, n_total, opts, budget); });
  nufftmp::Options no = opts.nufft;
  no.backend = Backend::Auto;  // the context's
  no.modeord = 0;
  const std::vector<std::int64_t> modes(params.modes.begin(), params.modes.end());
  dist::DistOptions d1;
  d1.reduction = dist::Reduction::AllReduce;
  type1 = std::make_unique<dist::DistPlan<double>>(*ctx, 1, modes, +1, 1, params.nufft_tol, no, d1);
  dist::DistOptions d2;
  d2.modes_on_all = true;
  type2 =
      std::make_unique<dist::DistPlan<double>>(*ctx, 2, modes, -1, nt(), params.nufft_tol, no, d2);
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

Result Solver::Impl::compute(std::int64_t n, const double* x, const double* y, const double* z,
                             const double* q) {
  const auto t_start = Clock::now();
  Result res;
  Timings& tm = res.timings;
  const int rank = ctx->rank();

  // 1. This rank's ions, checked and wrapped; the global sums.
  std::vector<detail::Ion> mine;
  double sums[4] = {0, 0, 0, 0};  // count, sum q, sum q^2, sum |q|
  agreed(comm(), [&] {
    if (n < 0)
      throw Error(ErrorCode::InvalidArgument,
                  "ewald: n_local = " + std::to_string(n) + " on rank " + std::to_string(rank));
    if (n > 0 && !(x && y && z && q))
      throw Error(ErrorCode::InvalidArgument, "ewald: a null position or charge array with " +
                                                  std::to_string(n) + " ions on rank " +
                                                  std::to_string(rank));
    mine.resize(static_cast<std::size_t>(n));
    const double* c[3] = {x, y, z};
    // One parallel pass (wrap, sums, a count of bad values); the first bad one is looked up
    // only when there is one.
    std::int64_t bad = 0;
    double s1 = 0, s2 = 0, s3 = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad, s1, s2, s3)
    for (std::int64_t i = 0; i < n; ++i) {
      bad += !(std::isfinite(x[i]) && std::isfinite(y[i]) && std::isfinite(z[i]) &&
               std::isfinite(q[i]));
      mine[i] = {wrap(x[i], box.L[0]), wrap(y[i], box.L[1]), wrap(z[i], box.L[2]), q[i]};
      s1 += q[i];
      s2 += q[i] * q[i];
      s3 += std::abs(q[i]);
    }
    for (std::int64_t i = 0; bad > 0 && i < n; ++i) {
      for (int d = 0; d < 3; ++d)
        if (!std::isfinite(c[d][i]))
          throw Error(ErrorCode::BadPoints, "ewald: ion " + std::to_string(i) + " of rank " +
                                                std::to_string(rank) + ": " + "xyz"[d] + " = " +
                                                num(c[d][i]) + " is not a finite position");
      if (!std::isfinite(q[i]))
        throw Error(ErrorCode::InvalidArgument, "ewald: ion " + std::to_string(i) + " of rank " +
                                                    std::to_string(rank) + ": charge = " +
                                                    num(q[i]) + " is not finite");
    }
    // Sums in a fixed order would need a serial pass; these feed only the neutrality test
    // (relative 1e-8), the self energy and sum_q2, where rounding at 1e-16 is harmless.
    sums[0] = static_cast<double>(n);
    sums[1] = s1;
    sums[2] = s2;
    sums[3] = s3;
  });
  auto t0 = Clock::now();
  host_comm().allreduce(sums, 4, dist::detail::Scalar::F64);
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
                                std::move(mine));
  tm.comm_ms += ms_since(t0);
  const std::int64_t n_own = ex.n_owned(), n_all = static_cast<std::int64_t>(ex.ions().size());

  // 4. Real space.
  const double rmin = opts.min_distance > 0 ? opts.min_distance : kMinDistanceRelative * p.spacing;
  const detail::PairParams pp{p.alpha, p.rcut * p.rcut, rmin * rmin};
  const detail::CellGrid grid =
      detail::make_cell_grid(box.L.data(), p.rcut, std::max<std::int64_t>(64, 8 * n_all));
  const bool real_on_gpu = gpu && opts.real_space_on_gpu;
  detail::RealSpaceResult rs;
  if (gpu) {
    t0 = Clock::now();
    agreed(comm(), [&] { dev->upload(ex.ions().data(), n_all, n_own, box.L.data()); });
    tm.transfer_ms += ms_since(t0);
  }
  t0 = Clock::now();
  agreed(comm(), [&] {
    const std::int64_t bad = real_on_gpu ? dev->real_space(grid, pp, opts.forces)
                                         : (rs = detail::real_space_host(ex.ions().data(), n_all,
                                                                         n_own, grid, pp,
                                                                         opts.forces))
                                               .too_close;
    if (bad >= 0) throw Error(ErrorCode::InvalidArgument, close_pair_message(ex, bad));
  });
  tm.real_ms += ms_since(t0);
  if (gpu && !real_on_gpu) {
    t0 = Clock::now();
    agreed(comm(), [&] {
      dev->upload_real_space(rs.phi.data(), rs.fx.data(), rs.fy.data(), rs.fz.data(),
                             opts.forces);
    });
    tm.transfer_ms += ms_since(t0);
  }

  // 5. Reciprocal space: S(k) by type 1, the mode array, type 2 at the owned ions.
  const std::int64_t nmodes = p.modes[0] * p.modes[1] * p.modes[2];
  detail::ModeGrid mg;
  for (int d = 0; d < 3; ++d) {
    mg.N[d] = p.modes[d];
    mg.kscale[d] = 2.0 * M_PI / box.L[d];
  }
  mg.inv4a2 = 1.0 / (4.0 * p.alpha * p.alpha);
  mg.prefactor = 4.0 * M_PI / box.volume();
  double green_sum = 0;
  auto add_nufft_times = [&](const dist::DistPlan<double>& plan) {
    tm.nufft_ms += plan.last_timings().compute_ms;
    tm.comm_ms += plan.last_timings().comm_ms;
  };
  if (gpu) {
    std::complex<double>* dS = nullptr;
    std::complex<double>* df = nullptr;
    std::complex<double>* dv = nullptr;
    agreed(comm(), [&] {
      dS = dev->structure_factor(nmodes);
      df = dev->mode_input(nt() * nmodes);
      dv = dev->values(nt() * n_own);
    });
    t0 = Clock::now();
    type1->set_points(n_own, dev->nufft_x(), dev->nufft_y(), dev->nufft_z());
    tm.nufft_ms += ms_since(t0);
    type1->execute(dev->charges(), dS);
    add_nufft_times(*type1);
    t0 = Clock::now();
    agreed(comm(), [&] { green_sum = dev->apply_green(mg, opts.forces); });
    tm.modes_ms += ms_since(t0);
    t0 = Clock::now();
    type2->set_points(n_own, dev->nufft_x(), dev->nufft_y(), dev->nufft_z());
    tm.nufft_ms += ms_since(t0);
    type2->execute(dv, df);
    add_nufft_times(*type2);
  } else {
    agreed(comm(), [&] {
      xs.resize(n_own);
      ys.resize(n_own);
      zs.resize(n_own);
      charges.resize(n_own);
      S.resize(nmodes);
      f.resize(nt() * nmodes);
      values.resize(nt() * n_own);
      const auto& ions = ex.ions();
      const double s0 = 2 * M_PI / box.L[0], s1 = 2 * M_PI / box.L[1], s2 = 2 * M_PI / box.L[2];
      for (std::int64_t i = 0; i < n_own; ++i) {
        xs[i] = s0 * ions[i].x;
        ys[i] = s1 * ions[i].y;
        zs[i] = s2 * ions[i].z;
        charges[i] = ions[i].q;
      }
    });
    t0 = Clock::now();
    type1->set_points_host(n_own, xs.data(), ys.data(), zs.data());
    tm.nufft_ms += ms_since(t0);
    type1->execute_host(charges.data(), S.data());
    add_nufft_times(*type1);
    t0 = Clock::now();
    green_sum = detail::apply_green_host(mg, S.data(), f.data(), opts.forces);
    tm.modes_ms += ms_since(t0);
    t0 = Clock::now();
    type2->set_points_host(n_own, xs.data(), ys.data(), zs.data());
    tm.nufft_ms += ms_since(t0);
    type2->execute_host(values.data(), f.data());
    add_nufft_times(*type2);
  }

  // 6. Assembly: potentials and forces of the owned ions, the energies.
  const double self = -2.0 * p.alpha / std::sqrt(M_PI);
  const double background = -M_PI * Q / (box.volume() * p.alpha * p.alpha);
  std::vector<double> phi, fx, fy, fz;
  double local_real = 0;  // sum_i q_i phi_real,i over the owned ions
  agreed(comm(), [&] {
    phi.resize(n_own);
    if (opts.forces) {
      fx.resize(n_own);
      fy.resize(n_own);
      fz.resize(n_own);
    }
    if (gpu) {
      t0 = Clock::now();
      local_real = dev->assemble(self, background, opts.forces, phi.data(), fx.data(), fy.data(),
                                 fz.data());
      tm.transfer_ms += ms_since(t0);
      return;
    }
    const auto& ions = ex.ions();
    for (std::int64_t i = 0; i < n_own; ++i) {
      const double qi = ions[i].q;
      local_real += qi * rs.phi[i];
      phi[i] = rs.phi[i] + values[i].real() + self * qi + background;
      if (opts.forces) {
        fx[i] = rs.fx[i] + qi * values[n_own + i].real();
        fy[i] = rs.fy[i] + qi * values[2 * n_own + i].real();
        fz[i] = rs.fz[i] + qi * values[3 * n_own + i].real();
      }
    }
  });
  t0 = Clock::now();
  host_comm().allreduce(&local_real, 1, dist::detail::Scalar::F64);
  res.energy_real = 0.5 * local_real;
  res.energy_recip = 2.0 * M_PI / box.volume() * green_sum;
  res.energy_self = -p.alpha / std::sqrt(M_PI) * sums[2];
  res.energy_background = -M_PI * Q * Q / (2.0 * box.volume() * p.alpha * p.alpha);
  res.energy = res.energy_real + res.energy_recip + res.energy_self + res.energy_background;

  // The results home (on one rank they are there already, in the given order).
  if (ctx->size() == 1) {
    res.potential = std::move(phi);
    res.fx = std::move(fx);
    res.fy = std::move(fy);
    res.fz = std::move(fz);
    tm.comm_ms += ms_since(t0);
    tm.total_ms = ms_since(t_start);
    return res;
  }
  agreed(comm(), [&] {
    res.potential.resize(static_cast<std::size_t>(n));
    if (opts.forces) {
      res.fx.resize(static_cast<std::size_t>(n));
      res.fy.resize(static_cast<std::size_t>(n));
      res.fz.resize(static_cast<std::size_t>(n));
    }
  });
  if (opts.forces)
    ex.return_values({phi.data(), fx.data(), fy.data(), fz.data()},
                     {res.potential.data(), res.fx.data(), res.fy.data(), res.fz.data()});
  else
    ex.return_values({phi.data()}, {res.potential.data()});
  tm.comm_ms += ms_since(t0);
  tm.total_ms = ms_since(t_start);
  return res;
}

}  // namespace nufftmp::ewald
