// Kernel values for one point along one axis, in the engine's precision: the Horner fit of
// common/kernel (default) or direct exp/sqrt. Inline so the W-loop vectorizes in the caller.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/kernel.hpp"
#include "nufftmp/options.hpp"

namespace nufftmp::detail::cpu {

template <typename T>
struct KernelEvaluator {
  std::vector<T> coef;  // coef[p * w + j], highest power first (as KernelSpec::horner)
  int degree = 0;
  int w = 0;
  T beta = 0;
  bool horner = true;

  KernelEvaluator() = default;
  KernelEvaluator(const KernelSpec& k, KernelEval how)
      : coef(k.horner.begin(), k.horner.end()),
        degree(k.degree),
        w(k.w),
        beta(static_cast<T>(k.beta)),
        horner(how == KernelEval::Horner) {}

  // out[j] = phi(x1 + j), j < W, for x1 = i0 - x in [-W/2, -W/2 + 1).
  template <int W>
  inline void eval(T x1, T* __restrict out) const {
    if (horner) {
      const T s = T(2) * x1 + T(W - 1);  // position within the cell, in [-1, 1)
      const T* __restrict c = coef.data();
      for (int j = 0; j < W; ++j) out[j] = c[j];
      for (int p = 1; p <= degree; ++p)
        for (int j = 0; j < W; ++j) out[j] = out[j] * s + c[p * W + j];
    } else {
      for (int j = 0; j < W; ++j) {
        const T z = T(2) * (x1 + T(j)) / T(W);
        const T arg = T(1) - z * z;
        out[j] = arg >= T(0) ? std::exp(beta * (std::sqrt(arg) - T(1))) : T(0);
      }
    }
  }
};

// First fine-grid cell touched by a point at g (grid units) for width w: ceil(g - w/2). The one
// formula used for bounding boxes and hot loops alike, so they agree to the last bit.
template <typename T>
inline std::int64_t first_cell(T g, int w) {
  return static_cast<std::int64_t>(std::ceil(g - T(0.5) * T(w)));
}

}  // namespace nufftmp::detail::cpu
