// How every execute kernel reads a point: i0 and s per axis and the user index, from the split
// arrays or from the sorted record. A kernel is compiled for one layout (its points' type P:
// SplitPoints or RecordPoints, device_views.hpp), so each overload below is branch-free, and
// the compiler drops what a call site does not use (an unused s costs no load in split, no
// arithmetic in records). Records are decoded with the sort's own arithmetic (point_record.cuh
// locate_record: a double record holds the folded position, so no fold here), so both layouts
// give the same i0 and s bit for bit.
#pragma once

#include <cstdint>

#include "cuda/device_views.hpp"
#include "cuda/point_record.cuh"

namespace nufftmp::detail {

// The records layout's record: always 32-bit user indices (sort_strategy.hpp sorted_layout).
template <typename T, int D>
using PointRecord = Record<T, D, std::int32_t>;

// i0 and s per axis. The user index is not in it: a kernel reads it with user_index (below)
// where it needs it, as today's kernels read the permutation - type 2 after its gather, so it
// is not held across the stencil loop.
template <typename T, int D>
struct PointAt {
  std::int32_t i0[D];
  T s[D];
};

// The user index of point i (processing position) alone: strength reads and result writes.
template <int D, typename T>
__device__ __forceinline__ std::int64_t user_index(const SplitPoints<T>& p, std::int64_t i) {
  return p.perm32 ? std::int64_t(p.perm32[i]) : (p.perm64 ? p.perm64[i] : i);
}
template <int D, typename T>
__device__ __forceinline__ std::int64_t user_index(const RecordPoints<T>& p, std::int64_t i) {
  return PointRecord<T, D>::load_index(p.records, i);
}

// Point i: one load per split array, or one vector load of its record.
template <int D, typename T>
__device__ __forceinline__ PointAt<T, D> point_at(const SplitPoints<T>& p, std::int64_t i) {
  PointAt<T, D> a;
#pragma unroll
  for (int d = 0; d < D; ++d) {
    a.i0[d] = p.i0[d][i];
    a.s[d] = p.s[d][i];
  }
  return a;
}
template <int D, typename T>
__device__ __forceinline__ PointAt<T, D> point_at(const RecordPoints<T>& p, std::int64_t i) {
  PointAt<T, D> a;
  PointCoords<T, D> c;
  std::int64_t j;  // unused: user_index reads it
  PointRecord<T, D>::load(p.records, i, c, j);
#pragma unroll
  for (int d = 0; d < D; ++d) locate_record(c.v[d], p.nf[d], p.w, a.i0[d], a.s[d]);
  return a;
}

// Axis d alone of point i, d known at run time only (the per-(point, axis) staging of the
// output-driven spreaders): one coordinate of the record is read, not the whole record.
template <typename T>
struct AxisAt {
  std::int32_t i0;
  T s;
};
// Split indexes the view's arrays by the run-time d as today's kernels did (ptxas copies the
// view to the stack for it: 96-120 bytes); records selects its nf instead (24 bytes). A select
// in split too trades the stack for up to 22 more registers (spread_rows w 7 3D 96 -> 120):
// left as it was, so that split is today's.
template <int D, typename T>
__device__ __forceinline__ AxisAt<T> point_axis(const SplitPoints<T>& p, std::int64_t i, int d) {
  return AxisAt<T>{p.i0[d][i], p.s[d][i]};
}
template <int D, typename T>
__device__ __forceinline__ AxisAt<T> point_axis(const RecordPoints<T>& p, std::int64_t i, int d) {
  AxisAt<T> a;
  const int nf = d == 0 ? p.nf[0] : (d == 1 ? p.nf[1] : p.nf[2]);
  locate_record(PointRecord<T, D>::load_coord(p.records, i, d), nf, p.w, a.i0, a.s);
  return a;
}

}  // namespace nufftmp::detail
