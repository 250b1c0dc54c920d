// Type 2 interpolation by lane groups: W consecutive lanes of a warp work on one point, lane dx
// owning stencil column dx. Each stencil row is then read by W lanes at W consecutive cells -
// one contiguous segment per point - instead of one thread reading the whole stencil at an
// address unrelated to its neighbours'. With a thread per point the 32 lanes of a shared-memory
// load hit random banks (about 3.5 wavefronts per load for random points in a tile); a group
// per point turns them into floor(32 / W) contiguous segments (1-2 wavefronts), and in global
// memory into few sectors per load. The kernel value of the lane's own column is evaluated by
// the lane (Horner coefficients of that column in registers); the y and z values of the point
// are shared in the group by shuffles; the W partial sums are added by shuffles at the end.
#pragma once

#include "cuda/kernel_common.cuh"

namespace nufftmp::detail {

template <int W>
struct LaneGroup {
  static constexpr int kPerWarp = 32 / W;  // points a warp works on at once
  int grp;                                 // group in the warp (kPerWarp: lane left idle)
  int dx;                                  // the lane's stencil column
  __device__ __forceinline__ LaneGroup() {
    const int lane = threadIdx.x & 31;
    grp = lane / W;
    dx = lane - grp * W;
  }
  __device__ __forceinline__ bool used() const { return grp < kPerWarp; }
  __device__ __forceinline__ int lane_of(int t) const { return grp * W + t; }
};

// Column dx of the piecewise Horner fit, held in registers for the whole kernel (rows
// right-aligned as in KernelCoeffs: those below `first` are zero and skipped).
template <typename T>
struct TapCoeffs {
  T c[kMaxHornerDegree + 1];
  int first;
  template <int W>
  __device__ __forceinline__ void load(const KernelCoeffs<T>& k, int dx) {
    first = k.first;
#pragma unroll
    for (int r = 0; r <= kMaxHornerDegree; ++r) c[r] = r >= first ? k.c[r * W + dx] : T(0);
  }
  __device__ __forceinline__ T operator()(T s) const {
    T v = 0;  // fma(0, s, c[first]) = c[first] exactly
#pragma unroll
    for (int r = 0; r <= kMaxHornerDegree; ++r)
      if (r >= first) v = fma(v, s, c[r]);
    return v;
  }
};

// The sum over point's stencil of value * k_x k_y k_z, by the lane group. `tap[d]` is this
// lane's kernel value on axis d (its column dx for x, row dx for y and z), `at(dz, dy)` the
// grid value at this lane's column of stencil row (dy, dz). Every lane of the warp must call
// it (shuffles); lanes with active == false read nothing. The total is valid on column 0.
template <int W, int D, typename T, typename At>
__device__ __forceinline__ cplx<T> group_gather(const LaneGroup<W>& g, bool active,
                                                const T (&tap)[3], At&& at) {
  constexpr unsigned kAll = 0xffffffffu;
  T ky[W], kz[W];
#pragma unroll
  for (int t = 0; t < W; ++t) {
    ky[t] = D >= 2 ? __shfl_sync(kAll, tap[1], g.lane_of(t)) : T(1);
    kz[t] = D == 3 ? __shfl_sync(kAll, tap[2], g.lane_of(t)) : T(1);
  }
  T re = 0, im = 0;
  if (active) {
#pragma unroll 1
    for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
      T rz = 0, iz = 0;
#pragma unroll
      for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy) {
        const cplx<T> v = at(dz, dy);
        rz = fma(v.x, ky[dy], rz);
        iz = fma(v.y, ky[dy], iz);
      }
      re = fma(rz, kz[dz], re);
      im = fma(iz, kz[dz], im);
    }
    re *= tap[0];
    im *= tap[0];
  }
  T sr = re, si = im;
#pragma unroll
  for (int t = 1; t < W; ++t) {
    sr += __shfl_sync(kAll, re, g.lane_of(t));
    si += __shfl_sync(kAll, im, g.lane_of(t));
  }
  cplx<T> out;
  out.x = sr;
  out.y = si;
  return out;
}

// Loop over a range of `count` points by lane groups: every lane of the warp makes the same
// number of trips (the shuffles need the whole warp); f(p, active) with p the group's point.
// Warps of the block (or of the grid) interleave: first = warp index, stride = warps.
template <int W, typename F>
__device__ __forceinline__ void for_each_point_by_group(const LaneGroup<W>& g, std::int64_t count,
                                                        std::int64_t first_warp,
                                                        std::int64_t warps, F&& f) {
  constexpr int P = LaneGroup<W>::kPerWarp;
  for (std::int64_t base = first_warp * P; base < count; base += warps * P) {
    const std::int64_t p = base + g.grp;
    f(p, g.used() && p < count);
  }
}

// The lane's kernel values for point pt on each axis (1 on unused axes).
template <int D, typename T>
__device__ __forceinline__ void group_taps(const TapCoeffs<T>& tc, const PointAt<T, D>& pt,
                                           bool active, T (&tap)[3]) {
#pragma unroll
  for (int d = 0; d < 3; ++d) tap[d] = (d < D && active) ? tc(pt.s[d < D ? d : 0]) : T(1);
}

}  // namespace nufftmp::detail
