// Kernel values for one point along one axis, in the engine's precision: the Horner fit of
// common/kernel (default) or the kernel's formula (Direct: exp/sqrt for ES, the Legendre
// series of psi_0 for PSWF; a reference path, several times slower).
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
#include "cpu/vec.hpp"
#include "nufftmp/options.hpp"

#ifndef NUFFTMP_CPU_ISA
#define NUFFTMP_CPU_ISA generic
#endif

namespace nufftmp::detail::cpu {

// Plain data, shared by every instruction-set variant.
template <typename T>
struct KernelEvaluator {
  std::vector<T> coef;  // coef[p * w + j], highest power first (as KernelSpec::horner)
  // The same with rows of wpad (w rounded up to whole 64-byte vectors), zero-padded: the
  // vector Horner of kernel_values_axes reads whole vectors.
  std::vector<T> coef_pad;
  int degree = 0;
  int w = 0;
  int wpad = 0;
  bool horner = true;
  // Direct evaluation: ES exp(beta (sqrt(1 - z^2) - 1)), or PSWF sum_j cheb[j] T_j(2 z^2 - 1).
  Kernel kind = Kernel::PSWF;
  T beta = 0;
  std::vector<T> cheb;

  KernelEvaluator() = default;
  KernelEvaluator(const KernelSpec& k, KernelEval how)
      : coef(k.horner.begin(), k.horner.end()),
        degree(k.degree),
        w(k.w),
        wpad(padded_width(k.w)),
        horner(how == KernelEval::Horner),
        kind(k.kind),
        beta(static_cast<T>(k.shape)),
        cheb(k.chebyshev.begin(), k.chebyshev.end()) {
    coef_pad.assign(static_cast<size_t>((degree + 1) * wpad), T(0));
    for (int p = 0; p <= degree; ++p)
      for (int j = 0; j < w; ++j) coef_pad[p * wpad + j] = coef[p * w + j];
  }

  static constexpr int padded_width(int w) {
    constexpr int lanes = 64 / sizeof(T);
    return (w + lanes - 1) / lanes * lanes;
  }
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
  } else if (k.kind == Kernel::ES) {
    for (int j = 0; j < W; ++j) {
      const T z = T(2) * (x1 + T(j)) / T(W);
      const T arg = T(1) - z * z;
      out[j] = arg >= T(0) ? std::exp(k.beta * (std::sqrt(arg) - T(1))) : T(0);
    }
  } else {
    const int n = static_cast<int>(k.cheb.size());
    for (int j = 0; j < W; ++j) {
      const T z = T(2) * (x1 + T(j)) / T(W);
      if (!(std::abs(z) <= T(1))) {
        out[j] = T(0);
        continue;
      }
      // Clenshaw's recurrence in y = 2 z^2 - 1.
      const T y = T(2) * z * z - T(1);
      T b1 = 0, b2 = 0;
      for (int m = n - 1; m >= 1; --m) {
        const T b0 = k.cheb[m] + T(2) * y * b1 - b2;
        b2 = b1;
        b1 = b0;
      }
      out[j] = k.cheb[0] + y * b1 - b2;
    }
  }
}

// out[d][j] = phi(x1[d] + j), j < W, for the D axes of one point; out[d][j] = 0 for
// W <= j < WP (WP = padded_width(W)). The Horner fit runs on whole vectors, the D axes
// interleaved: D * WP / lanes independent chains hide the multiply-add latency that a
// single chain of degree steps would wait on.
template <int D, int W, typename T>
inline void kernel_values_axes(const KernelEvaluator<T>& k, const T* x1,
                               T (*__restrict out)[KernelEvaluator<T>::padded_width(W)]) {
  constexpr int WP = KernelEvaluator<T>::padded_width(W);
  constexpr int L = Vec<T>::lanes, NV = WP / L;
  if (k.horner) {
    using V = vec_t<T>;
    const T* __restrict c = k.coef_pad.data();
    T s[D];
    for (int d = 0; d < D; ++d) s[d] = T(2) * x1[d] + T(W - 1);
    V acc[D][NV];
    for (int i = 0; i < NV; ++i) {
      V c0;
      vload(c0, c + i * L);
      for (int d = 0; d < D; ++d) acc[d][i] = c0;
    }
    for (int p = 1; p <= k.degree; ++p)
      for (int i = 0; i < NV; ++i) {
        V cp;
        vload(cp, c + p * WP + i * L);
        for (int d = 0; d < D; ++d) acc[d][i] = acc[d][i] * s[d] + cp;
      }
    for (int d = 0; d < D; ++d)
      for (int i = 0; i < NV; ++i) vstore(out[d] + i * L, acc[d][i]);
  } else {
    for (int d = 0; d < D; ++d) {
      kernel_values<W>(k, x1[d], out[d]);
      for (int j = W; j < WP; ++j) out[d][j] = T(0);
    }
  }
}

// Points evaluated together by kernel_values_points: one point's D axes are D * WP / lanes
// Horner chains, too few in 1D and 2D to hide the multiply-add latency (in 1D double at
// 1e-9, two chains of 14 steps: the chain was the spreading loop's largest stall). Enough
// points for about half as many chains as there are vector registers, the rest left to the
// coefficients and the loops around.
template <int D, int W, typename T>
constexpr int kernel_group() {
  constexpr int kChains = kVecRegisters / 2;
  constexpr int chains = D * KernelEvaluator<T>::padded_width(W) / Vec<T>::lanes;
  return chains >= kChains ? 1 : kChains / chains;
}

// The kernel values and first cells of G consecutive points, their G * D axes evaluated
// together (kernel_values_axes): out[q * D + d] and i0[q][d] for point q < n <= G; points
// n..G-1 repeat point n - 1. g: the first point's coordinates (D per point, fine-grid units).
template <int G, int D, int W, typename T>
inline void kernel_values_points(const KernelEvaluator<T>& k, const double* g, int n,
                                 std::int64_t (*i0)[3],
                                 T (*__restrict out)[KernelEvaluator<T>::padded_width(W)]) {
  T x1[G * D];
  for (int q = 0; q < G; ++q)
    for (int d = 0; d < D; ++d) {
      const double gq = g[(q < n ? q : n - 1) * D + d];
      const std::int64_t i = first_cell(gq, W);
      i0[q][d] = i;
      x1[q * D + d] = static_cast<T>(static_cast<double>(i) - gq);
    }
  kernel_values_axes<G * D, W>(k, x1, out);
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
