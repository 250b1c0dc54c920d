#include "common/plan_config.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

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

// Largest single-axis mode count and fine grid we accept: keeps every product in int64 and
// every per-axis index in the range the engines address.
constexpr std::int64_t kMaxModesPerDim = std::int64_t(1) << 40;
constexpr std::int64_t kMaxFineTotal = std::int64_t(1) << 46;

}  // namespace

template <typename T>
PlanConfig make_plan_config(int type, const std::vector<std::int64_t>& modes, int isign,
                            int ntransf, double tol, const Options& opts) {
  PlanConfig cfg;
  if (type != 1 && type != 2) bad("type = " + str(type) + " (must be 1 or 2)");
  if (modes.empty() || modes.size() > 3)
    bad("modes has " + str(modes.size()) + " entries (dimension must be 1, 2 or 3)");
  if (isign != 1 && isign != -1) bad("isign = " + str(isign) + " (must be +1 or -1)");
  if (ntransf < 1) bad("ntransf = " + str(ntransf) + " (must be >= 1)");
  if (!(tol >= 1e-14 && tol <= 1e-1))
    bad("tol = " + str(tol) + " (must be in [1e-14, 1e-1])");
  if (opts.modeord != 0 && opts.modeord != 1)
    bad("modeord = " + str(opts.modeord) + " (must be 0 or 1)");
  if (!(opts.upsampfac == 0.0 || (opts.upsampfac >= kMinUpsampfac && opts.upsampfac <= kMaxUpsampfac)))
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
  double sigma = opts.upsampfac;
  if (sigma == 0.0) {
    UpsampfacProblem up;
    up.backend = opts.backend;
    up.single = sizeof(T) == 4;
    up.type = type;
    up.dim = cfg.dim;
    up.N = cfg.N;
    up.tol = cfg.tol;
    up.kernel = opts.kernel;
    sigma = choose_upsampfac(up).sigma;
  }
  const WidthChoice wc =
      choose_width(opts.kernel, cfg.tol, sigma, cfg.dim, sizeof(T) == 4, max_width<T>());
  cfg.kernel = make_kernel(opts.kernel, cfg.tol, sigma, cfg.dim, wc.w);
  if (wc.limited) {
    // Only a fixed upsampfac gets here (the choice avoids it): say what the plan will reach.
    if (!cfg.warning.empty()) cfg.warning += "; ";
    cfg.warning += "tol = " + str(cfg.tol) + " is out of reach at upsampfac = " + str(sigma) +
                   " in " + (sizeof(T) == 4 ? std::string("float") : std::string("double")) +
                   "; using kernel width " + str(wc.w) + ", error about " + str(wc.error) +
                   " (upsampfac = 0 or a larger one reaches further)";
    cfg.tol = std::max(cfg.tol, wc.error);
  }
  double fine_total = 1;
  for (int d = 0; d < 3; ++d) {
    if (d < cfg.dim) {
      cfg.nf[d] = fine_grid_size(cfg.N[d], sigma, cfg.kernel.w);
      fine_total *= static_cast<double>(cfg.nf[d]);
    } else {
      cfg.nf[d] = 1;
    }
  }
  if (fine_total > static_cast<double>(kMaxFineTotal))
    throw Error(ErrorCode::OutOfMemory, "fine grid of " + str(fine_total) +
                                            " cells is beyond any memory (modes too large)");
  return cfg;
}

template PlanConfig make_plan_config<float>(int, const std::vector<std::int64_t>&, int, int,
                                            double, const Options&);
template PlanConfig make_plan_config<double>(int, const std::vector<std::int64_t>&, int, int,
                                             double, const Options&);

}  // namespace nufftmp::detail
