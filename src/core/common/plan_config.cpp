#include "common/plan_config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <sstream>

#include "common/cufft_sizes.hpp"
#include "common/grid.hpp"
#include "common/rounding_floor.hpp"
#include "common/upsampfac.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

// Float rounding in the FFT and the spread sums sets a floor near 1e-6 relative l2 error for
// the sizes users run; below that a wider kernel buys nothing.
template <> double precision_floor<float>() { return 1e-6; }
template <> double precision_floor<double>() { return 1e-14; }

namespace {

[[noreturn]] void bad(const std::string& what) { throw Error(ErrorCode::InvalidArgument, what); }

template <typename V>
std::string str(V v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Physical memory of this host (0 when unknown).
double host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

std::string gigabytes(double bytes) {
  std::ostringstream os;
  os.precision(3);
  os << bytes / 1e9 << " GB";
  return os.str();
}

std::string modes_string(const PlanConfig& cfg) {
  std::string s;
  for (int d = 0; d < cfg.dim; ++d) s += (d ? " x " : "") + std::to_string(cfg.N[d]);
  return s;
}

// sigma of upsampfac = 0 and the error its width aims at: the cost model of common/upsampfac,
// or 2 and tol where there is no FFT to trade the kernel width against (spread_interp_only:
// the grid is the caller's).
template <typename T>
UpsampfacChoice chosen_upsampfac(const PlanConfig& cfg, const Options& opts, bool no_fft) {
  if (no_fft) {
    UpsampfacChoice c;
    c.sigma = kMaxUpsampfac;
    c.target = cfg.tol;
    return c;
  }
  UpsampfacProblem up;
  up.backend = opts.backend;
  up.single = sizeof(T) == 4;
  up.type = cfg.type;
  up.dim = cfg.dim;
  up.N = cfg.N;
  up.tol = cfg.tol;
  up.kernel = opts.kernel;
  return choose_upsampfac(up);
}

// cfg.kernel at sigma: the width rule's width for cfg.tol, unless tol is out of reach at sigma
// (only a fixed upsampfac gets there; the choice avoids it): then the best width, a warning, and
// cfg.tol raised to what the plan reaches.
// target (<= cfg.tol): the error the width aims at (upsampfac = 0: width_target).
template <typename T>
void set_kernel(PlanConfig& cfg, double sigma, double target) {
  const Kernel kind = cfg.opts.kernel;
  const WidthChoice wc = choose_width_toward(kind, &target, cfg.tol, sigma, cfg.dim,
                                             sizeof(T) == 4, max_width<T>());
  cfg.kernel = make_kernel(kind, target, sigma, cfg.dim, wc.w);
  if (wc.limited) {
    if (!cfg.warning.empty()) cfg.warning += "; ";
    cfg.warning += "tol = " + str(cfg.tol) + " is out of reach at upsampfac = " + str(sigma) +
                   " in " + (sizeof(T) == 4 ? std::string("float") : std::string("double")) +
                   "; using kernel width " + str(wc.w) + ", error about " + str(wc.error) +
                   " (upsampfac = 0 or a larger one reaches further)";
    cfg.tol = std::max(cfg.tol, wc.error);
  }
}

}  // namespace

template <typename T>
PlanConfig make_plan_config(int type, const std::vector<std::int64_t>& modes, int isign,
                            int ntransf, double tol, const Options& opts) {
  PlanConfig cfg;
  if (type == 3)
    bad("type = 3 takes the dimension, not modes: Plan(3, dim, isign, ntransf, tol, opts)");
  if (type != 1 && type != 2) bad("type = " + str(type) + " (must be 1, 2 or 3)");
  if (modes.empty() || modes.size() > 3)
    bad("modes has " + str(modes.size()) + " entries (dimension must be 1, 2 or 3)");
  if (isign != 1 && isign != -1) bad("isign = " + str(isign) + " (must be +1 or -1)");
  if (ntransf < 1) bad("ntransf = " + str(ntransf) + " (must be >= 1)");
  if (!(tol >= 1e-14 && tol <= 1e-1))
    bad("tol = " + str(tol) + " (must be in [1e-14, 1e-1])");
  if (opts.modeord != 0 && opts.modeord != 1)
    bad("modeord = " + str(opts.modeord) + " (must be 0 or 1)");
  if (!(opts.upsampfac == 0.0 ||
        (opts.upsampfac >= kMinUpsampfac && opts.upsampfac <= kMaxUpsampfac)))
    bad("upsampfac = " + str(opts.upsampfac) + " (must be 0 = choose, or in [1.25, 2.0])");
  if (opts.kernel != Kernel::PSWF && opts.kernel != Kernel::ES)
    bad("kernel = " + str(static_cast<int>(opts.kernel)) + " (must be Kernel::PSWF or Kernel::ES)");
  if (opts.maxbatchsize < 0) bad("maxbatchsize = " + str(opts.maxbatchsize) + " (must be >= 0)");
  if (opts.nthreads < 0) bad("nthreads = " + str(opts.nthreads) + " (must be >= 0)");

  cfg.type = type;
  cfg.dim = static_cast<int>(modes.size());
  cfg.isign = isign;
  cfg.ntransf = ntransf;
  cfg.opts = opts;
  cfg.tol_requested = tol;
  cfg.tol = tol;
  const double floor = precision_floor<T>();
  if (tol < floor) {
    cfg.tol = floor;
    cfg.warning = "tol = " + str(tol) + " is below what " +
                  (sizeof(T) == 4 ? std::string("float") : std::string("double")) +
                  " can reach; using " + str(floor);
  }
  for (int d = 0; d < cfg.dim; ++d) {
    const auto n = modes[d];
    if (n < 1 || n > kMaxModesPerDim)
      bad("modes[" + str(d) + "] = " + str(n) + " (must be in [1, 2^40])");
    cfg.N[d] = n;
  }
  UpsampfacChoice choice;
  if (opts.upsampfac != 0.0) {
    choice.sigma = opts.upsampfac;
    choice.target = cfg.tol;
  } else {
    choice = chosen_upsampfac<T>(cfg, opts, opts.spread_interp_only);
  }
  const double sigma = choice.sigma;
  set_kernel<T>(cfg, sigma, choice.target);
  // Every size check before the first allocation: the kernel's Fourier tables hold
  // N[d]/2 + 1 doubles each (half a terabyte per 2^36 modes of one axis).
  double fine_total = 1, table_bytes = 0;
  for (int d = 0; d < 3; ++d) {
    if (d < cfg.dim) {
      if (opts.spread_interp_only) {
        // The modes are the fine grid itself; the engines need room for two kernel widths.
        if (cfg.N[d] < 2 * cfg.kernel.w)
          bad("spread_interp_only: modes[" + str(d) + "] = " + str(cfg.N[d]) +
              " (the grid must hold at least 2 w = " + str(2 * cfg.kernel.w) +
              " cells for the kernel width w of tol = " + str(cfg.tol) + ")");
        cfg.nf[d] = cfg.N[d];
      } else {
        cfg.nf[d] = fine_grid_size(cfg.N[d], sigma, cfg.kernel.w);
        // A CUDA plan's one axis: the size cuFFT transforms fastest, up to 10% larger.
        if (cfg.dim == 1 && cfg.opts.backend == Backend::Cuda)
          cfg.nf[d] = cufft_1d_size(cfg.nf[d], sizeof(T) == sizeof(float));
        table_bytes += (static_cast<double>(cfg.N[d] / 2) + 1) * sizeof(double);
      }
    } else {
      cfg.nf[d] = 1;
    }
    fine_total *= static_cast<double>(cfg.nf[d]);
  }
  if (fine_total > static_cast<double>(kMaxFineTotal))
    throw Error(ErrorCode::OutOfMemory, "fine grid of " + str(fine_total) +
                                            " cells is beyond any memory (modes too large)");
  const double host_bytes = host_memory_bytes();
  if (host_bytes > 0 && table_bytes > host_bytes)
    throw Error(ErrorCode::OutOfMemory, "modes " + modes_string(cfg) +
                                            ": the kernel's Fourier tables need " +
                                            gigabytes(table_bytes) + ", more than this host's " +
                                            gigabytes(host_bytes));
  return cfg;
}

template <typename T>
PlanConfig make_type3_plan_config(int dim, int isign, int ntransf, double tol,
                                  const Options& opts) {
  if (dim < 1 || dim > 3) bad("dim = " + str(dim) + " (must be 1, 2 or 3)");
  if (opts.spread_interp_only)
    bad("spread_interp_only is for types 1 and 2 (type 3 spreads internally)");
  // Placeholder modes of 1: everything but the grids is decided as for types 1/2. Its grids
  // follow from the points (set_points), so upsampfac = 0 spreads at sigma 2; the inner type 2
  // plan, whose grid is known by then, still chooses its own (cfg.opts keeps the 0).
  Options o = opts;
  if (o.upsampfac == 0.0) o.upsampfac = kMaxUpsampfac;
  PlanConfig cfg = make_plan_config<T>(1, std::vector<std::int64_t>(dim, 1), isign, ntransf,
                                       tol, o);
  cfg.opts.upsampfac = opts.upsampfac;
  cfg.type = 3;
  cfg.N = {1, 1, 1};
  cfg.nf = {1, 1, 1};
  return cfg;
}

template PlanConfig make_plan_config<float>(int, const std::vector<std::int64_t>&, int, int,
                                            double, const Options&);
template PlanConfig make_plan_config<double>(int, const std::vector<std::int64_t>&, int, int,
                                             double, const Options&);
template PlanConfig make_type3_plan_config<float>(int, int, int, double, const Options&);
template PlanConfig make_type3_plan_config<double>(int, int, int, double, const Options&);

}  // namespace nufftmp::detail
