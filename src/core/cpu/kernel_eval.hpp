// Kernel values for one point along one axis, in the engine's precision: the Horner fit of
// common/kernel (default) or direct exp/sqrt.
//
// The hot helpers live in the namespace NUFFTMP_CPU_ISA (generic, avx2, avx512): the spreading
// and interpolation loops are compiled once per instruction set (isa_*.cpp) and an inline
// function shared by name between those files would let the linker keep the AVX-512 copy for
// all of them. Each translation unit defines NUFFTMP_CPU_ISA (default generic) before including.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/kernel.hpp"
#include "nufftmp/options.hpp"

#ifndef NUFFTMP_CPU_ISA
#define NUFFTMP_CPU_ISA generic
#endif

namespace nufftmp::detail::cpu {

// Plain data, shared by every instruction-set variant.
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
};

namespace NUFFTMP_CPU_ISA {

// First fine-grid cell touched by a point at g (grid units) for width w: ceil(g - w/2). The one
// formula used for bounding boxes and hot loops alike, so they agree to the last bit. (An
// integer-cast ceil: std::ceil is a library call on baseline x86-64.)
template <typename T>
inline std::int64_t first_cell(T g, int w) {
  const T v = g - T(0.5) * T(w);
  const auto t = static_cast<std::int64_t>(v);  // truncates toward zero
  return t + (static_cast<T>(t) < v ? 1 : 0);
}

// out[j] = phi(x1 + j), j < W, for x1 = i0 - x in [-W/2, -W/2 + 1).
template <int W, typename T>
inline void kernel_values(const KernelEvaluator<T>& k, T x1, T* __restrict out) {
  if (k.horner) {
    const T s = T(2) * x1 + T(W - 1);  // position within the cell, in [-1, 1)
    const T* __restrict c = k.coef.data();
    // The j loop is the vector one (W independent polynomials); p is the dependent chain.
    T acc[W];
    for (int j = 0; j < W; ++j) acc[j] = c[j];
    for (int p = 1; p <= k.degree; ++p) {
      const T* __restrict cp = c + p * W;
#pragma omp simd
      for (int j = 0; j < W; ++j) acc[j] = acc[j] * s + cp[j];
    }
    for (int j = 0; j < W; ++j) out[j] = acc[j];
  } else {
    for (int j = 0; j < W; ++j) {
      const T z = T(2) * (x1 + T(j)) / T(W);
      const T arg = T(1) - z * z;
      out[j] = arg >= T(0) ? std::exp(k.beta * (std::sqrt(arg) - T(1))) : T(0);
    }
  }
}

// i mod n in [0, n) for any sign of i.
inline std::int64_t wrap_index(std::int64_t i, std::int64_t n) {
  const std::int64_t r = i % n;
  return r < 0 ? r + n : r;
}

// The same for i in [-n, 2n), without a division: cells a kernel touches are never further than
// one period out, since every fine grid has nf >= 2w.
inline std::int64_t wrap_near(std::int64_t i, std::int64_t n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

}  // namespace NUFFTMP_CPU_ISA
}  // namespace nufftmp::detail::cpu
