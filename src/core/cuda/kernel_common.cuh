// Device helpers shared by the spreaders and interpolators: complex type, kernel evaluation,
// periodic wrap and complex atomics.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/device_views.hpp"

namespace nufftmp::detail {

template <typename T> struct Complex2;
template <> struct Complex2<float> { using type = float2; };
template <> struct Complex2<double> { using type = double2; };
template <typename T> using cplx = typename Complex2<T>::type;

// The W kernel values at the point whose Horner argument is s (no exp, no sqrt).
template <int W, typename T>
__device__ __forceinline__ void eval_kernel(const KernelCoeffs<T>& k, T s, T* out) {
#pragma unroll
  for (int j = 0; j < W; ++j) out[j] = k.c[j];
  for (int p = 1; p <= k.degree; ++p) {
#pragma unroll
    for (int j = 0; j < W; ++j) out[j] = fma(out[j], s, k.c[p * W + j]);
  }
}

// i in [-n, 2n) -> [0, n).
__device__ __forceinline__ int wrap_once(int i, int n) {
  return i < 0 ? i + n : (i >= n ? i - n : i);
}

__device__ __forceinline__ void atomic_add_cplx(float2* p, float re, float im) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicAdd(p, make_float2(re, im));  // one vector atomic on Hopper
#else
  atomicAdd(&p->x, re);
  atomicAdd(&p->y, im);
#endif
}
__device__ __forceinline__ void atomic_add_cplx(double2* p, double re, double im) {
  atomicAdd(&p->x, re);
  atomicAdd(&p->y, im);
}

// Decomposes a flat bin index into per-dim bin coordinates.
__device__ __forceinline__ void bin_coords(const BinView& b, std::int32_t bin, int* out) {
  out[0] = bin % b.count[0];
  out[1] = (bin / b.count[0]) % b.count[1];
  out[2] = bin / (b.count[0] * b.count[1]);
}

}  // namespace nufftmp::detail
