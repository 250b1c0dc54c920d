#include "common/rounding_floor.hpp"

#include <algorithm>
#include <cmath>

#include "common/kernel.hpp"
#include "common/kernel_ft.hpp"
#include "common/pswf.hpp"

namespace nufftmp::detail {

double rounding_floor(Kernel kind, int w, double upsampfac, int dim, bool single) {
  KernelSpec k;
  k.kind = kind;
  k.w = w;
  k.upsampfac = upsampfac;
  k.shape = kernel_shape_for(kind, w, upsampfac);
  if (kind == Kernel::PSWF) k.legendre = make_pswf0(k.shape).coef;
  const KernelFtQuadrature q = kernel_ft_quadrature(k);
  const double at0 = kernel_ft(q, 0.0);
  constexpr int kSamples = 64;
  double mean = 0;
  for (int i = 0; i < kSamples; ++i)
    mean += at0 / kernel_ft(q, M_PI / upsampfac * (i + 0.5) / kSamples);
  mean /= kSamples;
  const double u = single ? 0x1p-24 : 0x1p-53;
  return 4.0 * u * std::pow(mean, dim);
}

WidthChoice choose_width(Kernel kind, double tol, double upsampfac, int dim, bool single,
                         int max_width) {
  const int w_rule = kernel_width_for(kind, tol, upsampfac, dim, max_width);
  const bool fits = kernel_width_needed(kind, tol, upsampfac, dim) <= max_width;
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
  best.error = error_at(w_rule);
  for (int w = w_rule - 1; w >= kMinWidth; --w) {
    const double e = error_at(w);
    if (e >= best.error) break;
    best = {w, e, true};
  }
  return best;
}

}  // namespace nufftmp::detail
