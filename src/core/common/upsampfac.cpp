#include "common/upsampfac.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/grid.hpp"
#include "common/kernel.hpp"
#include "common/rounding_floor.hpp"

namespace nufftmp::detail {

namespace {

// Calibration (model ns). See docs/performance.md, "Upsampling factor: the cost model".
struct CostConstants {
  double per_point;  // reading the point and its strength, kernel values, index arithmetic
  double per_cell;   // CPU: per 64-byte row vector updated; CUDA: per grid cell touched
  double fft;        // per fine-grid cell and log2 of the grid size (FFT and the grid passes)
  double grid;       // per fine-grid cell, beyond the FFT term: zeroing, copies, deconvolution
};

CostConstants constants(Backend backend, bool single) {
  // CUDA (H200): from the device runs of ../shared/benchmarks.md (2026-12-01): P1/P3 give
  // about 1 ps per cell touched and 0.05 ns per point (float; double ~1.3 ps), cuFFT about
  // 0.5 ps (float) / 1 ps (double) per cell and log2, the grid passes 4 / 8 ps per cell
  // (memory-bound at ~4 TB/s). Checked on the device by scripts/device_pswf.sh calib.
  if (backend == Backend::Cuda)
    return single ? CostConstants{0.05, 0.0010, 0.0005, 0.004}
                  : CostConstants{0.06, 0.0013, 0.0010, 0.008};
  // CPU: least-squares fit of one-thread execute times (96 problems x sigma 1.25 / 1.5 / 2,
  // 1D-3D, types 1-2, densities 0.1 and 1; the 2-core AVX-512 Xeon of the development machine,
  // 2026-12-01, scripts/calibrate_upsampfac.py); the fit puts the grid passes into the FFT term.
  return single ? CostConstants{15.5, 0.68, 0.30, 0.0} : CostConstants{18.6, 0.80, 0.57, 0.0};
}

int max_width_for(const UpsampfacProblem& p) { return p.single ? kMaxWidthFloat : kMaxWidth; }

double cells_per_point(const UpsampfacProblem& p, int w) {
  double rows = 1;
  for (int d = 1; d < p.dim; ++d) rows *= w;
  if (p.backend == Backend::Cuda) return rows * w;
  const double bytes_per_row = 2.0 * w * (p.single ? 4 : 8);
  return rows * std::ceil(bytes_per_row / 64.0);
}


}  // namespace

namespace {

UpsampfacChoice cost_at_width(const UpsampfacProblem& p, double sigma, int w, bool reachable) {
  UpsampfacChoice c;
  c.sigma = sigma;
  c.w = w;
  c.reachable = reachable;
  double G = 1, M = p.points;
  for (int d = 0; d < p.dim; ++d) {
    // The plan's FFT-friendly size; past 2^24 modes the search for it takes long and changes
    // the estimate by little.
    const double n = static_cast<double>(p.N[d]);
    G *= n <= 16777216.0 ? static_cast<double>(fine_grid_size(p.N[d], sigma, w))
                         : std::max(std::ceil(sigma * n), 2.0 * w);
  }
  if (M <= 0) {
    M = 1;
    for (int d = 0; d < p.dim; ++d) M *= 2.0 * static_cast<double>(p.N[d]);
  }
  const CostConstants k = constants(p.backend, p.single);
  c.point_cost = M * (k.per_point + k.per_cell * cells_per_point(p, w));
  c.grid_cost = G * (k.fft * std::log2(std::max(G, 2.0)) + k.grid);
  return c;
}

}  // namespace

// The rule's error of a width is its boundary: the rule's ceil() asked for exactly that error
// may give the next width by one ulp of log / exp (PSWF w = 15, ES w = 7, 13, 14 with glibc).
// A relative 1e-9 above it lands on the width itself. (CPU only: the CUDA target is evaluated
// below sigma 2, where no candidate has sigma 2's width.)
constexpr double kOnWidth = 1 + 1e-9;

double width_target(Backend backend, Kernel kind, double tol, int dim, bool single) {
  const int wmax = single ? kMaxWidthFloat : kMaxWidth;
  if (backend == Backend::Cuda) {
    const int need = kernel_width_needed(kind, tol, kMaxUpsampfac, dim);
    if (need > wmax) return tol;
    const int w2 = std::max(need, kMinWidth);  // sigma 2's width (the rule's, clamped below)
    return std::min(tol, kernel_tolerance_at_width(kind, w2, kMaxUpsampfac, dim));
  }
  const double eps = single ? 0x1p-23 : 0x1p-52;
  if (tol <= 1e-9 || tol <= 100 * eps) return tol;  // FINUFFT: sigma 2 there
  const int w = kernel_width_needed(kind, tol, kMinUpsampfac, dim);
  if (w > wmax) return tol;
  return std::min(tol, kernel_tolerance_at_width(kind, w, kMinUpsampfac, dim) * kOnWidth);
}

namespace {

// Half a cell of slack below each width: exactly at the rule's boundary (no slack from its
// ceil()) the error sits at 1.3-1.8 tol (measured against the direct sum, 1D-3D); half a
// cell, the ceil()'s average, brings it to about 0.6 tol.
constexpr double kSlack = 0.5;

// The error the width at sigma aims at. CUDA: tol at sigma 2 (cuFINUFFT's width), width_target
// below 2. CPU: width_target, and under a target below tol, less at sigma 2. Measured against
// FINUFFT 2.5.1 on the same data (docs/performance.md, section 10), our error per rule error at
// sigma 2 runs up to 1.35x FINUFFT's at sigma 1.25 in 2D/3D and up to 3x in 1D on clustered points,
// where sigma 2's ceil() alone may leave no margin: 2D/3D aim at 0.75 of the target, 1D at half a
// cell below it (as the candidates below 2 have by construction; a 1D width costs w, not w^dim).
double target_at(const UpsampfacProblem& p, double sigma) {
  if (p.backend == Backend::Cuda && sigma == kMaxUpsampfac) return p.tol;  // cuFINUFFT's own
  const double t = width_target(p.backend, p.kernel, p.tol, p.dim, p.single);
  if (p.backend == Backend::Cuda) return t;
  if (!(t < p.tol && sigma == kMaxUpsampfac)) return t;
  if (p.dim > 1) return 0.75 * t;
  return t * std::exp(-kSlack * M_PI * std::sqrt(1 - 1 / kMaxUpsampfac));
}

}  // namespace

UpsampfacChoice upsampfac_cost(const UpsampfacProblem& p, double sigma) {
  // The width the plan would use (when the target is out of reach, tol's as set_kernel in
  // plan_config.cpp falls back to; when tol is too, the best one: the fallback's cost).
  double t = target_at(p, sigma);
  const WidthChoice wc =
      choose_width_toward(p.kernel, &t, p.tol, sigma, p.dim, p.single, max_width_for(p));
  UpsampfacChoice c = cost_at_width(p, sigma, wc.w, !wc.limited);
  c.target = t;
  return c;
}

UpsampfacChoice choose_upsampfac(const UpsampfacProblem& p) {
  const double target = width_target(p.backend, p.kernel, p.tol, p.dim, p.single);
  std::vector<double> candidates{kMaxUpsampfac};
  const int w_lo = kernel_width_needed(p.kernel, target, kMaxUpsampfac, p.dim);
  const int w_hi = kernel_width_needed(p.kernel, target, kMinUpsampfac, p.dim);
  for (int w = w_lo; w <= w_hi; ++w) {
    double s = min_upsampfac_for_width(p.kernel, target, p.dim, w - kSlack);
    if (!(s < kMaxUpsampfac)) continue;
    s = std::max(s, kMinUpsampfac);
    // The rule's ceil() must land on w at s itself, not just above it: nudge past rounding.
    for (int it = 0; it < 8 && kernel_width_needed(p.kernel, target, s, p.dim) > w; ++it)
      s = std::min(kMaxUpsampfac, s * (1 + 1e-12 * (1 << (3 * it))));
    candidates.push_back(s);
  }
  // From the largest sigma down, a smaller one must save kMargin: the model is good to about
  // that, and a larger sigma at the same tolerance leaves more accuracy margin (the width rule's
  // ceil() rounds the error down further from tol).
  constexpr double kMargin = 1.1;
  UpsampfacChoice best;
  bool found = false;
  for (double s : candidates) {  // decreasing
    const double t = target_at(p, s);
    const WidthChoice wc = choose_width(p.kernel, t, s, p.dim, p.single, max_width_for(p), true);
    if (wc.limited) continue;  // cannot reach the target at s (width or rounding)
    UpsampfacChoice c = cost_at_width(p, s, wc.w, true);
    c.target = t;
    if (!found || c.cost() * kMargin < best.cost()) {
      best = c;
      found = true;
    }
  }
  return found ? best : upsampfac_cost(p, kMaxUpsampfac);
}

}  // namespace nufftmp::detail
