// The error floor that floating-point rounding sets under a kernel, and the width that balances
// it against the kernel's own (truncation and aliasing) error.
//
// Rounding in spreading, the FFT and interpolation leaves a relative error of about the unit
// roundoff u on the fine grid, spread evenly over its frequencies; the deconvolution divides
// frequency k by phihat(k), so the output keeps u x mean(phihat(0) / phihat(k)) per axis. That
// mean grows fast as sigma falls (phihat at the band edge pi/sigma decays) and as w grows, so a
// wider kernel at low sigma can be less accurate: measured (CPU, 2026-12-01), 3D float at sigma
// 1.25 reaches 4.4e-5 with w = 8, 1.3e-4 with w = 9 and 4.7e-4 with w = 10, and 3D double at
// sigma 1.25, w = 16 stops near 1e-9; the model below predicts 5e-5, 1.3e-4, 3.7e-4 and 7e-10.
// (FINUFFT 2.6 caps float at w = 8 below sigma 1.4 for the same reason.)
#pragma once

#include "nufftmp/options.hpp"

namespace nufftmp::detail {

// 4 u mean_{|xi| <= pi/sigma}(phihat(0) / phihat(xi))^dim, u = 2^-24 (float) or 2^-53.
double rounding_floor(Kernel kind, int w, double upsampfac, int dim, bool single);

struct WidthChoice {
  int w = 0;
  double error = 0;   // the rule's error at w plus the rounding floor: what the plan reaches
  bool limited = false;  // true when tol is out of reach at this sigma (w is then the best)
};

// The rule's width for tol when its rounding floor stays below tol (and it fits max_width);
// otherwise the width up to that one with the least rule error + rounding floor.
// feasibility_only: stop once tol is known to be out of reach (w and error then unset).
WidthChoice choose_width(Kernel kind, double tol, double upsampfac, int dim, bool single,
                         int max_width, bool feasibility_only = false);

// choose_width for *target (<= tol: the error upsampfac = 0 aims at), or, where the target is
// out of reach at this sigma, for tol itself (*target is then set to tol).
WidthChoice choose_width_toward(Kernel kind, double* target, double tol, double upsampfac,
                                int dim, bool single, int max_width);

}  // namespace nufftmp::detail
