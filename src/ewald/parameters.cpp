// choose_parameters: alpha, rcut, the mode counts and the NUFFT tolerance from the requested
// accuracy (error_estimates.hpp), and a cost model for rcut when the caller fixes neither it
// nor alpha.
//
// The accuracy budget: the real-space and the reciprocal truncation each get accuracy / 2,
// the NUFFTs accuracy / 2, so that the three independent errors add up (in RMS) to 0.87 x the
// accuracy requested.
//
// The cost model (only the parts that depend on rcut; the NUFFTs' spreading and interpolation
// do not): candidate pairs N * rho * 4/3 pi (rcut + h)^3 (cells of edge h = rcut / reach, the
// cells nearer than rcut to a target; one unit each) against the FFTs of the type 1 and the
// type 2's vectors, kGridCost units per fine-grid point and log2 of the grid size. kGridCost
// = 0.5 comes from operation counts (a complex FFT ~5 flops per point and log2; a candidate
// pair ~10 flops, erfc and exp for the third of them within rcut), not from a measurement; a
// wrong ratio moves the chosen rcut by its sixth root only. The rcut with the least cost among
// 64 candidates from d to L/2 is taken, among those that fit the memory budget
// (memory_model.hpp) in their lightest configuration; the one taken then gets the fastest
// configuration that fits: every buffer kept between steps and the type 2's vectors in one
// batch; else (CUDA) the phases' buffers freed after each phase; else the type 2 one vector
// at a time.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "cell_grid.hpp"
#include "error_estimates.hpp"
#include "memory_model.hpp"
#include "mode_array.hpp"
#include "nufftmp/errors.hpp"
#include "nufftmp/ewald.hpp"
#include "number_text.hpp"
#include "parameters.hpp"

namespace nufftmp::ewald {

using detail::num;

namespace {

constexpr double kGridCost = 0.5;
constexpr int kRcutCandidates = 64;

[[noreturn]] void bad(const std::string& msg) {
  throw Error(ErrorCode::InvalidArgument, "ewald: " + msg);
}


std::string modes_str(const std::array<std::int64_t, 3>& m) {
  return std::to_string(m[0]) + "x" + std::to_string(m[1]) + "x" + std::to_string(m[2]);
}

// Smallest x in [lo, hi] with f(x) <= target for f decreasing in x; hi when none is.
template <typename F>
double smallest_meeting(F f, double lo, double hi, double target) {
  if (f(lo) <= target) return lo;
  if (f(hi) > target) return hi;
  for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; ++it) {
    const double mid = std::sqrt(lo * hi);
    (f(mid) <= target ? hi : lo) = mid;
  }
  return hi;
}

struct Trial {
  double rcut = 0, alpha = 0;
  std::array<std::int64_t, 3> modes{0, 0, 0};
  double nufft_tol = 0, cost = 0;
  int type2_batch = 1;
  bool phased = false, fits = false;
  MemoryEstimate memory;
};

double real_error(double a, double rc, double d) {
  return std::max(detail::est_real_potential(a, rc, d), detail::est_real_force(a, rc, d));
}
double recip_error(double a, double kc, double d) {
  return std::max(detail::est_recip_potential(a, kc, d), detail::est_recip_force(a, kc, d));
}

// The radius of the ball of k vectors the mode box keeps whole.
double kc_of_modes(const std::array<std::int64_t, 3>& modes, const Box& box) {
  double kc = 1e300;
  for (int d = 0; d < 3; ++d)
    kc = std::min(kc, 2.0 * M_PI * static_cast<double>((modes[d] - 1) / 2 + 1) / box.L[d]);
  return kc;
}

std::array<std::int64_t, 3> modes_for(double kc, const Box& box) {
  std::array<std::int64_t, 3> m{};
  for (int d = 0; d < 3; ++d) {
    const auto K = static_cast<std::int64_t>(std::ceil(kc * box.L[d] / (2.0 * M_PI)));
    m[d] = 2 * std::max<std::int64_t>(K, 1) + 1;
  }
  return m;
}

double grid_cost(const std::array<std::int64_t, 3>& modes, const Options& o) {
  const double sigma = o.nufft.upsampfac > 0 ? o.nufft.upsampfac : 2.0;
  const double nf = double(modes[0]) * modes[1] * modes[2] * sigma * sigma * sigma;
  return kGridCost * (1 + detail::type2_vectors(o.forces)) * nf * std::log2(std::max(nf, 2.0));
}

double pair_cost(double rc, double n_total, double volume) {
  const double h = rc / detail::kCellReach;
  return n_total * (n_total / volume) * 4.0 / 3.0 * M_PI * std::pow(rc + h, 3);
}

// The NUFFT tolerance matched to the accuracy: its share `part` of the error for N ions and
// modes up to nc per axis.
double matched_nufft_tol(const Options& o, double part, double N,
                         const std::array<std::int64_t, 3>& modes) {
  if (o.nufft_tol > 0) return o.nufft_tol;
  double nc = 0;
  for (int d = 0; d < 3; ++d) nc = std::max(nc, double((modes[d] - 1) / 2));
  return std::clamp(std::min(part / detail::est_nufft_potential(1.0, N),
                             part / detail::est_nufft_force(1.0, N, nc)),
                    1e-14, 1e-1);
}

// The fastest configuration of t (modes, tolerance and rcut set) within the budget, or the
// lightest one with fits = false: the buffers kept, else phased (CUDA), then the type 2 one
// vector at a time (unless the caller fixed its batch).
void configure(Trial& t, const Box& box, double N, int ranks, const Options& o, double budget) {
  detail::MemoryQuery q;
  q.cuda = o.nufft.backend == Backend::Cuda;
  q.modes = t.modes;
  q.nufft_tol = t.nufft_tol;
  q.forces = o.forces;
  q.nufft = o.nufft;
  detail::ions_per_rank(static_cast<std::int64_t>(N), ranks, box.L[2], t.rcut, q.n_owned,
                        q.n_all);
  q.cells = detail::make_cell_grid(box.L.data(), t.rcut,
                                   std::max<std::int64_t>(64, 8 * q.n_all)).count();
  detail::fine_grids_of(q);
  const int nt = detail::type2_vectors(o.forces);
  const int full = o.nufft.maxbatchsize > 0 ? std::min(o.nufft.maxbatchsize, nt) : nt;
  struct Variant {
    bool phased;
    int batch;
  };
  std::vector<Variant> variants{{false, full}};
  if (q.cuda) variants.push_back({true, full});
  if (full > 1 && o.nufft.maxbatchsize == 0) variants.push_back({q.cuda, 1});
  for (const Variant& v : variants) {
    q.phased = v.phased;
    q.type2_batch = v.batch;
    t.memory = detail::estimate_memory(q);
    t.phased = v.phased;
    t.type2_batch = v.batch;
    t.fits = t.memory.peak() <= budget;
    if (t.fits) return;
  }
}

}  // namespace

void detail::validate_box_and_options(const Box& box, const Options& o) {
  for (int d = 0; d < 3; ++d)
    if (!(std::isfinite(box.L[d]) && box.L[d] > 0))
      bad("box L[" + std::to_string(d) + "] = " + num(box.L[d]) + " (must be finite and > 0)");
  if (!(o.accuracy >= 1e-14 && o.accuracy <= 1e-1))
    bad("accuracy = " + num(o.accuracy) + " (must be in [1e-14, 1e-1])");
  if (!(std::isfinite(o.rcut) && o.rcut >= 0))
    bad("rcut = " + num(o.rcut) + " (must be finite and >= 0; 0 = choose)");
  if (!(std::isfinite(o.alpha) && o.alpha >= 0))
    bad("alpha = " + num(o.alpha) + " (must be finite and >= 0; 0 = choose)");
  const bool any = o.modes[0] || o.modes[1] || o.modes[2];
  for (int d = 0; d < 3; ++d) {
    const auto m = o.modes[d];
    if (any && (m < 1 || m % 2 == 0))
      bad("modes[" + std::to_string(d) + "] = " + std::to_string(m) +
          " (modes are all 0 = choose, or all odd and >= 1: a symmetric set of k)");
  }
  if (o.nufft_tol != 0 && !(o.nufft_tol >= 1e-14 && o.nufft_tol <= 1e-1))
    bad("nufft_tol = " + num(o.nufft_tol) + " (must be 0 = matched, or in [1e-14, 1e-1])");
  if (!(std::isfinite(o.min_distance) && o.min_distance >= 0))
    bad("min_distance = " + num(o.min_distance) + " (must be finite and >= 0; 0 = 1e-6 d)");
  if (!(std::isfinite(o.memory_budget_bytes) && o.memory_budget_bytes >= 0))
    bad("memory_budget_bytes = " + num(o.memory_budget_bytes) + " (must be >= 0; 0 = choose)");
  const double lmin = std::min({box.L[0], box.L[1], box.L[2]});
  if (o.rcut > 0 && 2 * o.rcut > lmin) {
    int d = 0;
    for (int e = 1; e < 3; ++e)
      if (box.L[e] < box.L[d]) d = e;
    bad("box L[" + std::to_string(d) + "] = " + num(box.L[d]) + " is smaller than 2 rcut = " +
        num(2 * o.rcut) + " (the cell list takes each pair within rcut once: rcut <= L / 2)");
  }
}

std::string Parameters::describe() const {
  std::ostringstream os;
  os.precision(4);
  os << "alpha " << alpha << ", rcut " << rcut << ", modes " << modes[0] << "x" << modes[1]
     << "x" << modes[2] << ", nufft tol " << nufft_tol << "; estimated errors (relative) "
     << "potential real " << est_real_potential << " recip " << est_recip_potential << " nufft "
     << est_nufft_potential << ", force real " << est_real_force << " recip " << est_recip_force
     << " nufft " << est_nufft_force << "; type 2 batch " << type2_batch
     << (phase_buffers ? ", phase buffers freed" : "")
     << (memory_capped ? ", modes capped by the memory budget of " : "");
  if (memory_capped) os << memory_budget / 1e9 << " GB";
  return os.str();
}

Parameters choose_parameters(const Box& box, std::int64_t n_total, const Options& o,
                             double memory_budget_bytes, int ranks) {
  detail::validate_box_and_options(box, o);
  if (n_total < 1) bad("no ions (the total over all ranks is " + std::to_string(n_total) + ")");
  if (ranks < 1) bad("ranks = " + std::to_string(ranks) + " (must be >= 1)");
  const double V = box.volume(), N = static_cast<double>(n_total);
  const double d = std::cbrt(V / N);
  const double lmin = std::min({box.L[0], box.L[1], box.L[2]});
  const double rc_max = 0.5 * lmin;
  const double part = 0.5 * o.accuracy;  // each of real, reciprocal, NUFFT
  const bool fixed_modes = o.modes[0] > 0;
  const double budget = memory_budget_bytes > 0 ? memory_budget_bytes : 1e300;

  // alpha for a given rcut (real-space budget), and the modes for a given alpha.
  auto alpha_for = [&](double rc) {
    return smallest_meeting([&](double a) { return real_error(a, rc, d); }, 1e-3 / rc,
                            1e3 / rc, part);
  };
  auto trial = [&](double rc, double a) {
    Trial t;
    t.rcut = rc;
    t.alpha = a;
    t.modes = fixed_modes ? o.modes
                          : modes_for(smallest_meeting([&](double kc) {
                                        return recip_error(a, kc, d);
                                      }, 1e-3 * a, 1e3 * a, part),
                                      box);
    t.nufft_tol = matched_nufft_tol(o, part, N, t.modes);
    t.cost = pair_cost(rc, N, V) + grid_cost(t.modes, o);
    configure(t, box, N, ranks, o, budget);
    return t;
  };
  auto too_big = [&](const Trial& t) {
    return Error(ErrorCode::OutOfMemory,
                 "ewald: modes " + modes_str(t.modes) + " at rcut " + num(t.rcut) +
                     " need an estimated " + num(t.memory.peak() / 1e9) +
                     " GB per rank, more than the memory budget of " + num(budget / 1e9) +
                     " GB (" + t.memory.describe() +
                     "; raise rcut or the accuracy, use more ranks, or raise the budget)");
  };

  Trial best;
  bool capped = false;
  if (o.rcut > 0) {
    best = trial(o.rcut, o.alpha > 0 ? o.alpha : alpha_for(o.rcut));
  } else if (o.alpha > 0) {
    const double rc = smallest_meeting([&](double r) { return real_error(o.alpha, r, d); },
                                       1e-6 * rc_max, rc_max, part);
    if (real_error(o.alpha, rc, d) > part)
      bad("alpha = " + num(o.alpha) + ": the real-space part cannot reach accuracy " +
          num(o.accuracy) + " with rcut <= L/2 = " + num(rc_max) + " (raise alpha)");
    best = trial(rc, o.alpha);
  } else {
    // From d (not L/64 as before: at 1e8 ions that floor was 7.25 d, above the optimum near
    // 5 d; the memory model now bounds the mode count that small cut-offs ask for).
    const double rc_min = std::min(rc_max, d);
    bool found = false;
    Trial cheapest, lightest;  // regardless of the budget; the least memory
    for (int i = 0; i < kRcutCandidates; ++i) {
      const double f = kRcutCandidates == 1 ? 1.0 : double(i) / (kRcutCandidates - 1);
      const double rc = rc_min * std::pow(rc_max / rc_min, f);
      const Trial t = trial(rc, alpha_for(rc));
      if (i == 0 || t.cost < cheapest.cost) cheapest = t;
      if (i == 0 || t.memory.peak() < lightest.memory.peak()) lightest = t;
      if (!t.fits) continue;
      if (!found || t.cost < best.cost) best = t;
      found = true;
    }
    if (!found) throw too_big(lightest);
    capped = best.rcut != cheapest.rcut;
  }
  if (!best.fits) throw too_big(best);

  Parameters p;
  p.alpha = best.alpha;
  p.rcut = best.rcut;
  p.modes = best.modes;
  p.spacing = d;
  p.nufft_tol = best.nufft_tol;
  p.memory_budget = memory_budget_bytes > 0 ? memory_budget_bytes : 0;
  p.type2_batch = best.type2_batch;
  p.phase_buffers = best.phased;
  p.memory_capped = capped;
  p.memory = best.memory;
  const double kc = kc_of_modes(p.modes, box);
  double nc = 0;
  for (int dd = 0; dd < 3; ++dd) nc = std::max(nc, double((p.modes[dd] - 1) / 2));
  p.est_real_potential = detail::est_real_potential(p.alpha, p.rcut, d);
  p.est_real_force = detail::est_real_force(p.alpha, p.rcut, d);
  p.est_recip_potential = detail::est_recip_potential(p.alpha, kc, d);
  p.est_recip_force = detail::est_recip_force(p.alpha, kc, d);
  p.est_nufft_potential = detail::est_nufft_potential(p.nufft_tol, N);
  p.est_nufft_force = detail::est_nufft_force(p.nufft_tol, N, nc);
  return p;
}

}  // namespace nufftmp::ewald
