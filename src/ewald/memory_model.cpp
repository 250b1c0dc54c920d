#include "memory_model.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "common/plan_config.hpp"
#include "mode_array.hpp"

namespace nufftmp::ewald {

namespace {

// Bytes per point of one plan's sorted points (see memory_model.hpp for where they come from).
constexpr double kCudaPointBytes = 76;
constexpr double kCpuPointBytes = 32;
constexpr double kComplex = 16;
// A random draw puts up to ~sqrt(n) more ions in one slab; 2% covers it for n >= 1e4 and
// leaves small systems (where memory does not matter) an overestimate.
constexpr double kSlabImbalance = 1.02;

// The plan's own rule (PlanConfig: upsampling factor, kernel width, FFT-friendly sizes), so
// the estimate's grid is the one the plan makes.
void fine_grid(int type, const detail::MemoryQuery& q, double& nf, double& sigma) {
  nufftmp::Options o = q.nufft;
  o.backend = q.cuda ? Backend::Cuda : Backend::Cpu;
  const std::vector<std::int64_t> modes(q.modes.begin(), q.modes.end());
  const nufftmp::detail::PlanConfig cfg = nufftmp::detail::make_plan_config<double>(
      type, modes, type == 1 ? +1 : -1, 1, q.nufft_tol, o);
  nf = static_cast<double>(cfg.num_fine());
  sigma = cfg.kernel.upsampfac;
}

}  // namespace

void detail::fine_grids_of(MemoryQuery& q) {
  fine_grid(1, q, q.nf1, q.sigma1);
  fine_grid(2, q, q.nf2, q.sigma2);
}

double MemoryEstimate::peak() const {
  const double base = fine_grids + fft_work + plan_points + held;
  return phased ? base + std::max(real_space, reciprocal + modes)
                : base + modes + real_space + reciprocal;
}

std::string MemoryEstimate::describe() const {
  std::ostringstream os;
  os.precision(3);
  os << "peak " << peak() / 1e9 << " GB (" << (phased ? "phased" : "kept")
     << "; upsampfac " << upsampfac_type1 << ", " << upsampfac_type2 << "): fine grids " << fine_grids / 1e9 << " (type 1 " << grid_type1 / 1e9 << ", type 2 "
     << grid_type2 / 1e9 << "), FFT work " << fft_work / 1e9 << ", plan points "
     << plan_points / 1e9 << ", modes " << modes / 1e9 << ", ions held " << held / 1e9
     << ", real space " << real_space / 1e9 << ", reciprocal " << reciprocal / 1e9;
  return os.str();
}

MemoryEstimate detail::estimate_memory(const MemoryQuery& q) {
  MemoryEstimate m;
  const int nt = type2_vectors(q.forces);
  const int b2 = std::clamp(q.type2_batch, 1, nt);
  const double nm = double(q.modes[0]) * double(q.modes[1]) * double(q.modes[2]);
  const double own = double(q.n_owned), all = double(q.n_all);
  MemoryQuery g = q;
  if (g.nf1 <= 0 || g.nf2 <= 0) fine_grids_of(g);
  m.grid_type1 = kComplex * g.nf1;
  m.grid_type2 = kComplex * b2 * g.nf2;
  m.upsampfac_type1 = g.sigma1;
  m.upsampfac_type2 = g.sigma2;
  m.fine_grids = m.grid_type1 + m.grid_type2;
  m.fft_work = q.cuda ? m.fine_grids : 0.0;
  m.plan_points = 2 * own * (q.cuda ? kCudaPointBytes : kCpuPointBytes);  // both plans
  const double points_per_plan = own * (q.cuda ? kCudaPointBytes : kCpuPointBytes);
  m.plan_type1 = m.grid_type1 * (q.cuda ? 2 : 1) + points_per_plan;
  m.plan_type2 = m.grid_type2 * (q.cuda ? 2 : 1) + points_per_plan;
  m.modes = nt * kComplex * nm + (q.cuda ? 8 * nm : 0.0);
  m.held = 32 * all + 32 * own + (q.cuda ? 0.0 : 16 * all);
  m.real_space = q.cuda ? 56 * all + 4.0 * double(q.cells) : 48 * all + 8.0 * double(q.cells);
  m.reciprocal = own * (40 + kComplex * nt + 8 + (q.cuda ? 0 : 32));
  m.phased = q.phased && q.cuda;
  return m;
}

void detail::ions_per_rank(std::int64_t n_total, int ranks, double Lz, double rcut,
                           std::int64_t& n_owned, std::int64_t& n_all) {
  const int p = std::max(ranks, 1);
  if (p == 1) {
    n_owned = n_all = n_total;
    return;
  }
  const double own = std::min(double(n_total), kSlabImbalance * double(n_total) / p);
  const double halo_share = std::min(double(p - 1), 2 * rcut * p / Lz);
  n_owned = static_cast<std::int64_t>(std::ceil(own));
  n_all = static_cast<std::int64_t>(std::ceil(std::min(double(n_total), own * (1 + halo_share))));
}

}  // namespace nufftmp::ewald
