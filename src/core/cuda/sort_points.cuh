// Device helpers shared by the kernels of set_points' sort (bin_sort.cu, bucket_scatter.cu):
// the status words, where a point lies (bin, i0, s - one function, so every pass of every
// variant locates a point alike; point_record.cuh holds the packed record of a point and the
// i0/s arithmetic). Included by .cu files only.
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "common/checks.hpp"
#include "common/grid.hpp"
#include "cuda/device_views.hpp"
#include "cuda/point_record.cuh"
#include "cuda/sort_strategy.hpp"

namespace nufftmp::detail::sort_device {

constexpr unsigned long long kNone = ULLONG_MAX;
// status[] words.
//   kNumItems, kNextItem: the bucket scatter's work items made and taken (bucket_scatter.cu),
//   zero before its pass 3.
//   kRowBands: the bands of rows the points touch (PointPrepRequest::band_rows), zero before
//   row_bands_kernel; all ones (every band) where it does not run.
constexpr int kFirstBad = 0, kFirstInconsistent = 1, kNumSubproblems = 2, kNumItems = 3,
              kNextItem = 4, kRowBands = 5, kStatusWords = 6;

template <typename I>
using Atomic = std::conditional_t<sizeof(I) == 4, unsigned int, unsigned long long>;

struct Coords3 {
  const void* c[3];
};

// The bin of a folded position g on its axis. The cell floor(g) is in [0, nf), nf < 2^31:
// within IntDivider's range.
__device__ __forceinline__ int bin_of_folded(double g, const IntDivider& per_bin, int nbins) {
  const int b = per_bin.divide(static_cast<int>(floor(g)));
  return b < nbins ? b : nbins - 1;
}

template <typename T>
struct Located {
  int bin;
  bool ok;
  std::int32_t i0[3];
  T s[3];
  double g[3];  // the folded positions (what a double record keeps: record_value)
};

// The sorted point data the kernels write (i0 and s per axis; unused axes null).
template <typename T>
struct PointArrays {
  std::int32_t* i0[3];
  T* s[3];
};

// Point p's i0/s at position q.
template <typename T, int D>
__device__ __forceinline__ void store_located(const PointArrays<T>& a, std::int64_t q,
                                              const Located<T>& p) {
#pragma unroll
  for (int d = 0; d < D; ++d) {
    a.i0[d][q] = p.i0[d];
    a.s[d][q] = p.s[d];
  }
}

template <typename T, int D>
__device__ __forceinline__ PointCoords<T, D> load_coords(const Coords3& coords, std::int64_t j) {
  PointCoords<T, D> c;
#pragma unroll
  for (int d = 0; d < D; ++d) c.v[d] = static_cast<const T*>(coords.c[d])[j];
  return c;
}

// Legality, bin, i0 and s per axis of one point, from its coordinates as given or (FromRecord)
// from its record's values. Illegal coordinates are located as 0, so both passes of the sort see
// the same bin for every point even when the call will be refused (a double record holds the
// folded 0 then: legal by construction, the same bin). Every kernel below locates through this
// one function (the unpacks too, from the records): the scatter's bins are the count's.
template <typename T, int D, bool FromRecord = false>
__device__ __forceinline__ Located<T> locate_values(const PointCoords<T, D>& c,
                                                    const GridView& grid, const BinView& bins,
                                                    int w) {
  Located<T> p;
  p.ok = true;
  int bc[3] = {0, 0, 0};
#pragma unroll
  for (int d = 0; d < D; ++d) {
    const T v = c.v[d];
    if constexpr (FromRecord && kRecordHoldsFolded<T>) {
      p.g[d] = locate_record(v, grid.nf[d], w, p.i0[d], p.s[d]);
    } else {
      const bool ok = in_fold_range(v);  // common/checks.hpp: the rule of both engines
      p.ok = p.ok && ok;
      p.g[d] = locate_cell(ok ? v : T(0), grid.nf[d], w, p.i0[d], p.s[d]);
    }
    bc[d] = bin_of_folded(p.g[d], bins.per_size[d], bins.count[d]);
  }
  p.bin = bc[0] + bins.count[0] * (bc[1] + bins.count[1] * bc[2]);
  return p;
}

// The record values (point_record.cuh record_value) of a point located from coordinates c.
template <typename T, int D>
__device__ __forceinline__ PointCoords<T, D> record_values(const PointCoords<T, D>& c,
                                                           const Located<T>& p) {
  PointCoords<T, D> r;
#pragma unroll
  for (int d = 0; d < D; ++d) r.v[d] = record_value(c.v[d], p.g[d]);
  return r;
}

template <typename T, int D>
__device__ __forceinline__ Located<T> locate_point(const Coords3& coords, std::int64_t j,
                                                   const GridView& grid, const BinView& bins,
                                                   int w) {
  return locate_values<T, D>(load_coords<T, D>(coords, j), grid, bins, w);
}

}  // namespace nufftmp::detail::sort_device
