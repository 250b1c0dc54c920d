#include "common/rounding_floor.hpp"

#include <algorithm>
#include <cmath>

#include "common/kernel.hpp"
#include "common/kernel_ft.hpp"

namespace nufftmp::detail {

double rounding_floor(Kernel kind, int w, double upsampfac, int dim, bool single) {
  const KernelSpec k = kernel_of_width(kind, w, upsampfac);
  constexpr int kSamples = 64;
  double mean = 0;
  if (kind == Kernel::PSWF) {
    // psi_0 is an eigenfunction of the band-limited Fourier transform on [-1, 1], so
    // phihat(xi) / phihat(0) = psi_0(c, xi w / (2c)) / psi_0(c, 0) = phi(xi w^2 / (4c)): the
    // kernel's own values, no quadrature.
    for (int i = 0; i < kSamples; ++i) {
      const double xi = M_PI / upsampfac * (i + 0.5) / kSamples;
      mean += 1.0 / kernel_value(k, xi * w * w / (4.0 * k.shape));
    }
  } else {
    const KernelFtQuadrature q = kernel_ft_quadrature(k);
    const double at0 = kernel_ft(q, 0.0);
    for (int i = 0; i < kSamples; ++i)
      mean += at0 / kernel_ft(q, M_PI / upsampfac * (i + 0.5) / kSamples);
  }
  mean /= kSamples;
  const double u = single ? 0x1p-24 : 0x1p-53;
  return 4.0 * u * std::pow(mean, dim);
}

WidthChoice choose_width(Kernel kind, double tol, double upsampfac, int dim, bool single,
                         int max_width, bool feasibility_only) {
  const int w_rule = kernel_width_for(kind, tol, upsampfac, dim, max_width);
  const bool fits = kernel_width_needed(kind, tol, upsampfac, dim) <= max_width;
  if (!fits && feasibility_only) return {w_rule, 0, true};
  auto error_at = [&](int w) {
    return std::max(tol, kernel_tolerance_at_width(kind, w, upsampfac, dim)) +
           rounding_floor(kind, w, upsampfac, dim, single);
  };
  WidthChoice best{w_rule, 0, false};
  const double floor_rule = rounding_floor(kind, w_rule, upsampfac, dim, single);
  if (fits && floor_rule <= tol) {
    best.error = tol;
    return best;
  }
  // Out of reach: from the rule's width down, keep the width of least total error (the
  // truncation error grows and the floor shrinks as w falls).
  best.limited = true;
  if (feasibility_only) return best;
  best.error = error_at(w_rule);
  for (int w = w_rule - 1; w >= kMinWidth; --w) {
    const double e = error_at(w);
    if (e >= best.error) break;
    best = {w, e, true};
  }
  return best;
}

WidthChoice choose_width_toward(Kernel kind, double* target, double tol, double upsampfac,
                                int dim, bool single, int max_width) {
  WidthChoice wc = choose_width(kind, *target, upsampfac, dim, single, max_width);
  if (wc.limited && *target < tol) {
    *target = tol;
    wc = choose_width(kind, tol, upsampfac, dim, single, max_width);
  }
  return wc;
}

}  // namespace nufftmp::detail
