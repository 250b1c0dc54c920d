// Device helpers shared by the spreaders and interpolators: complex type, kernel evaluation,
// periodic wrap and complex atomics.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/device_views.hpp"
#include "cuda/point_access.cuh"

namespace nufftmp::detail {

template <typename T> struct Complex2;
template <> struct Complex2<float> { using type = float2; };
template <> struct Complex2<double> { using type = double2; };
template <typename T> using cplx = typename Complex2<T>::type;

// One Horner step with the coefficients of row r (a compile-time r after unrolling:
// constant-bank operands; a run-time r loads each one).
template <int W, typename T>
__device__ __forceinline__ void horner_row(const KernelCoeffs<T>& k, int r, T s, T* out) {
#pragma unroll
  for (int j = 0; j < W; ++j) out[j] = fma(out[j], s, k.c[r * W + j]);
}

// The W kernel values at the point whose Horner argument is s (no exp, no sqrt). The rows are
// right-aligned (device_views.hpp), so the steps from any row on have compile-time rows and
// each coefficient is an FMA operand; a loop from a run-time row loads each one first (LDC +
// FFMA, twice the instructions). The PSWF fits take degree w - 1 .. w + 1 at every tolerance
// and sigma (ES: up to 20 at w <= 9), so a switch on the uniform k.first enters the unrolled
// steps at degree W + 2 .. W - 1 and falls through the rest; other degrees take the loop.
// The first step, fma(0, s, c), is c exactly: the values are bit for bit the loop's.
template <int W, typename T>
__device__ __forceinline__ void eval_kernel(const KernelCoeffs<T>& k, T s, T* out) {
  constexpr int F = kMaxHornerDegree - (W + 2) > 0 ? kMaxHornerDegree - (W + 2) : 0;
#pragma unroll
  for (int j = 0; j < W; ++j) out[j] = T(0);
  switch (k.first) {
    case F: horner_row<W>(k, F, s, out); [[fallthrough]];
    case F + 1: horner_row<W>(k, F + 1, s, out); [[fallthrough]];
    case F + 2: horner_row<W>(k, F + 2, s, out); [[fallthrough]];
    case F + 3:
#pragma unroll
      for (int r = F + 3; r <= kMaxHornerDegree; ++r) horner_row<W>(k, r, s, out);
      break;
    default:
      for (int r = k.first; r <= kMaxHornerDegree; ++r) horner_row<W>(k, r, s, out);
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

// Batches run on gridDim.y: block row y works on vector y of the per-point array c (M each)
// and of the fine grid fw (total cells each).
template <typename C, typename F>
__device__ __forceinline__ void select_vector(C*& c, std::int64_t M, F*& fw, std::int64_t total) {
  c += std::int64_t(blockIdx.y) * M;
  fw += std::int64_t(blockIdx.y) * total;
}

// Grid-stride loop over the points in processing order: f(i) for each.
template <typename F>
__device__ __forceinline__ void for_each_point(std::int64_t M, F&& f) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < M;
       i += std::int64_t(gridDim.x) * blockDim.x)
    f(i);
}

// Point pt's kernel values k[d][t] and the wrapped fine-grid indices idx[d][t] of its stencil.
template <int W, int D, typename T>
__device__ __forceinline__ void point_stencil(const KernelCoeffs<T>& kc, const PointAt<T, D>& pt,
                                              const GridView& grid, T (&k)[D][W],
                                              int (&idx)[D][W]) {
#pragma unroll
  for (int d = 0; d < D; ++d) {
    eval_kernel<W>(kc, pt.s[d], k[d]);
#pragma unroll
    for (int t = 0; t < W; ++t) idx[d][t] = wrap_once(pt.i0[d] + t, grid.nf[d]);
  }
}

// Point pt's kernel values and its first stencil cell relative to a tile origin (no wrap:
// the tile holds the whole stencil).
template <int W, int D, typename T>
__device__ __forceinline__ void point_in_tile(const KernelCoeffs<T>& kc, const PointAt<T, D>& pt,
                                              const int* origin, T (&k)[D][W], int (&l0)[3]) {
#pragma unroll
  for (int d = 0; d < 3; ++d) l0[d] = 0;
#pragma unroll
  for (int d = 0; d < D; ++d) {
    eval_kernel<W>(kc, pt.s[d], k[d]);
    l0[d] = pt.i0[d] - origin[d];
  }
}

// The sum over a stencil of value * k_x k_y k_z (type 2). row(dz, dy) returns a callable
// dx -> cplx<T> for the stencil row (dy, dz): per-row address work stays out of the x loop.
template <int W, int D, typename T, typename Row>
__device__ __forceinline__ cplx<T> gather_stencil(const T (&k)[D][W], Row&& row) {
  T re = 0, im = 0;
  for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
    T rz = 0, iz = 0;
    for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy) {
      const auto at = row(dz, dy);
      T ry = 0, iy = 0;
#pragma unroll
      for (int dx = 0; dx < W; ++dx) {
        const cplx<T> g = at(dx);
        ry = fma(g.x, k[0][dx], ry);
        iy = fma(g.y, k[0][dx], iy);
      }
      const T ky = D >= 2 ? k[1][dy] : T(1);
      rz = fma(ry, ky, rz);
      iz = fma(iy, ky, iz);
    }
    const T kz = D == 3 ? k[D - 1][dz] : T(1);
    re = fma(rz, kz, re);
    im = fma(iz, kz, im);
  }
  cplx<T> out;
  out.x = re;
  out.y = im;
  return out;
}

// Adds cv * k_x k_y k_z over a stencil (type 1). row(dz, dy) returns a callable
// (dx, re, im) that adds to the cell dx of stencil row (dy, dz).
template <int W, int D, typename T, typename Row>
__device__ __forceinline__ void scatter_stencil(const T (&k)[D][W], cplx<T> cv, Row&& row) {
  for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
    const T kz = D == 3 ? k[D - 1][dz] : T(1);
    for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy) {
      const T wy = (D >= 2 ? k[1][dy] : T(1)) * kz;
      const T r = cv.x * wy, m = cv.y * wy;
      const auto add = row(dz, dy);
#pragma unroll
      for (int dx = 0; dx < W; ++dx) add(dx, r * k[0][dx], m * k[0][dx]);
    }
  }
}

// Decomposes a flat bin index into per-dim bin coordinates.
__device__ __forceinline__ void bin_coords(const BinView& b, std::int32_t bin, int* out) {
  out[0] = bin % b.count[0];
  out[1] = (bin / b.count[0]) % b.count[1];
  out[2] = bin / (b.count[0] * b.count[1]);
}

}  // namespace nufftmp::detail
