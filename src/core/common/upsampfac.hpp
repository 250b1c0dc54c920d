// The upsampling factor sigma of Options::upsampfac = 0: the sigma in [1.25, 2] that a cost
// model of one transform says is fastest for the plan's sizes, type, precision, tolerance,
// kernel and backend. Pure logic (no engine, no device): both engines' plans call it through
// make_plan_config, and every rank of a distributed plan reaches the same answer.
//
// Trade-off: a smaller sigma shrinks the fine grid (FFT and grid passes, memory) by sigma^dim
// but needs a wider kernel (spreading / interpolation cost ~ w^dim per point). Candidates are
// sigma = 2 and, for each width between w(2) and w(1.25), the smallest sigma at which the width
// rule gives that width with half a cell to spare (a larger sigma at the same width only costs
// grid; at no spare the error would sit above the target, width_target). The fine grid of
// each candidate is the FFT-friendly size the plan would use (common/grid.hpp).
//
// Cost per transform, in nanoseconds on the machines it was calibrated on:
//   points M x (per-point cost + per-cell cost x cells touched)
//   + fine grid G x (FFT cost x log2 G + per-cell cost of the grid passes)
// CPU (OpenMP + FFTW, one thread of an AVX-512 Xeon): a point touches w^(dim-1) rows of
// ceil(2 w sizeof(T) / 64) vectors. CUDA (H200): a point touches w^dim cells (atomics or
// gathers), the FFT and the grid passes are memory-bound. The constants and where they come
// from are in upsampfac.cpp; docs/performance.md has the measurements. (With many threads
// FFTW scales worse than spreading, which would favour a smaller sigma a little more; not
// modelled.)
//
// M is not known when the plan is made (set_points comes later), so the plan passes 0 and the
// model assumes density 1 (M = prod(2 N_i), the density of the benchmarks); for much sparser
// problems a fixed upsampfac of 1.25 may be faster.
#pragma once

#include <array>
#include <cstdint>

#include "nufftmp/options.hpp"

namespace nufftmp::detail {

constexpr double kMinUpsampfac = 1.25;
constexpr double kMaxUpsampfac = 2.0;

struct UpsampfacProblem {
  Backend backend = Backend::Cpu;  // Cpu or Cuda (Auto is costed as Cpu)
  bool single = false;             // float (else double)
  int type = 1;
  int dim = 1;
  std::array<std::int64_t, 3> N{1, 1, 1};
  double points = 0;  // nonuniform points per transform; 0: density 1 assumed
  double tol = 1e-6;  // effective tolerance
  Kernel kernel = Kernel::PSWF;
};

struct UpsampfacChoice {
  double sigma = kMaxUpsampfac;
  int w = 0;                // kernel width at sigma
  bool reachable = true;    // the target reachable at sigma (width, rounding_floor.hpp)
  double point_cost = 0;    // model ns: spreading / interpolation
  double grid_cost = 0;     // model ns: FFT and the passes over the fine grid
  double target = 0;        // the error the width aims at (width_target: tol or less)
  double cost() const { return point_cost + grid_cost; }
};

// The error the width of upsampfac = 0 aims at: tol, or less where FINUFFT's default may land
// further below tol. FINUFFT 2.5 may run sigma 1.25 where tol > 1e-9 and > 100 eps of the precision
// (its heuristics.hpp picks 1.25 or 2 by tolerance, type, dimension and density; the sweep of
// docs/performance.md section 10 saw 1.25 in most such cases) with the same width rule, whose
// ceil() there leaves up to one cell (a factor up to 4) of margin; sigma 2's ceil() may leave
// little. Aiming at the rule's error of 1.25's width wherever 1.25 is allowed keeps the CPU
// engine's error at or below FINUFFT's whichever of the two it picks. The CUDA engine's reference
// is cuFINUFFT 2.6, which runs sigma 2 with the rule's width: at sigma 2 it aims at tol (the same
// width, the same error); a sigma below 2 must reach the rule's error of that width (returned
// here), not merely tol: at tol 1e-1 in double the smallest width at sigma 1.25-1.53 had 2-3x
// cuFINUFFT's error (H200, 2026-12-03). A target below tol at sigma 2 would widen the GPU kernels
// (3D 1e-3: w 4 -> 5, ~1.4x the spreading) for an accuracy cuFINUFFT does not give either.
double width_target(Backend backend, Kernel kind, double tol, int dim, bool single);

// The model's cost of one transform at a given sigma in [1.25, 2].
UpsampfacChoice upsampfac_cost(const UpsampfacProblem& p, double sigma);

// The cheapest candidate whose width the precision can reach (sigma = 2 when none can: the
// width is then clamped there, where it loses the least).
UpsampfacChoice choose_upsampfac(const UpsampfacProblem& p);

}  // namespace nufftmp::detail
