// Device helpers shared by the kernels of set_points' sort (bin_sort.cu, bucket_scatter.cu):
// the status words, where a point lies (bin, i0, s - one function, so every pass of every
// variant locates a point alike) and the packed record of a point (its coordinates bit for bit
// and its user index). Included by .cu files only.
#pragma once

#include <climits>
#include <cstdint>
#include <type_traits>

#include "common/checks.hpp"
#include "common/grid.hpp"
#include "cuda/device_views.hpp"
#include "cuda/sort_strategy.hpp"

namespace nufftmp::detail::sort_device {

constexpr unsigned long long kNone = ULLONG_MAX;
// status[] words.
//   kNumItems, kNextItem: the bucket scatter's work items made and taken (bucket_scatter.cu),
//   zero before its pass 3.
constexpr int kFirstBad = 0, kFirstInconsistent = 1, kNumSubproblems = 2, kNumItems = 3,
              kNextItem = 4, kStatusWords = 5;

template <typename I>
using Atomic = std::conditional_t<sizeof(I) == 4, unsigned int, unsigned long long>;

struct Coords3 {
  const void* c[3];
};

// Folded position of one coordinate, computed in double so float inputs on grids past 2^24
// cells keep their exact cell: returns the bin coordinate, writes i0 and s.
template <typename T>
__device__ __forceinline__ int locate_axis(T v, int nf, int w, int binsize, int nbins,
                                           std::int32_t& i0, T& s) {
  const double g = fold_rescale<double>(static_cast<double>(v), nf);
  const double first = ceil(g - 0.5 * w);
  i0 = static_cast<std::int32_t>(first);
  s = static_cast<T>(2.0 * (first - g + 0.5 * w) - 1.0);
  const int b = static_cast<int>(floor(g)) / binsize;
  return b < nbins ? b : nbins - 1;
}

template <typename T>
struct Located {
  int bin;
  bool ok;
  std::int32_t i0[3];
  T s[3];
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

// One point's coordinates as given (D of them).
template <typename T, int D>
struct PointCoords {
  T v[D];
};

template <typename T, int D>
__device__ __forceinline__ PointCoords<T, D> load_coords(const Coords3& coords, std::int64_t j) {
  PointCoords<T, D> c;
#pragma unroll
  for (int d = 0; d < D; ++d) c.v[d] = static_cast<const T*>(coords.c[d])[j];
  return c;
}

// Legality, bin, i0 and s per axis of one point. Illegal coordinates are located as 0, so both
// passes of the sort see the same bin for every point even when the call will be refused.
// Every kernel below locates through this one function (the packed scatter's unpack too, from
// the bit-exact coordinates of its record): the scatter's bins are the count's.
template <typename T, int D>
__device__ __forceinline__ Located<T> locate_values(const PointCoords<T, D>& c,
                                                    const GridView& grid, const BinView& bins,
                                                    int w) {
  Located<T> p;
  p.ok = true;
  int bc[3] = {0, 0, 0};
#pragma unroll
  for (int d = 0; d < D; ++d) {
    const T v = c.v[d];
    const bool ok = in_fold_range(v);  // common/checks.hpp: the rule of both engines
    p.ok = p.ok && ok;
    bc[d] = locate_axis(ok ? v : T(0), grid.nf[d], w, bins.size[d], bins.count[d], p.i0[d],
                        p.s[d]);
  }
  p.bin = bc[0] + bins.count[0] * (bc[1] + bins.count[1] * bc[2]);
  return p;
}

template <typename T, int D>
__device__ __forceinline__ Located<T> locate_point(const Coords3& coords, std::int64_t j,
                                                   const GridView& grid, const BinView& bins,
                                                   int w) {
  return locate_values<T, D>(load_coords<T, D>(coords, j), grid, bins, w);
}

// A packed record (packed and bucket variants): the D coordinates bit for bit, then the user index, in
// kWords 32-bit words (sort_strategy.hpp), stored and loaded with whole 16- or 8-byte accesses.
template <typename T, int D, typename I>
struct Record {
  static constexpr int kCoordWords = D * int(sizeof(T) / 4);
  static constexpr int kWords = packed_record_words(D, int(sizeof(T)), int(sizeof(I)));
  static_assert(kCoordWords + int(sizeof(I) / 4) <= kWords, "record too small");

  __device__ __forceinline__ static void store(unsigned* records, std::int64_t pos,
                                               const PointCoords<T, D>& c, std::int64_t j) {
    unsigned wd[kWords];
#pragma unroll
    for (int i = 0; i < kWords; ++i) wd[i] = 0u;
#pragma unroll
    for (int d = 0; d < D; ++d) {
      if constexpr (sizeof(T) == 4) {
        wd[d] = __float_as_uint(c.v[d]);
      } else {
        const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(c.v[d]));
        wd[2 * d] = static_cast<unsigned>(b);
        wd[2 * d + 1] = static_cast<unsigned>(b >> 32);
      }
    }
    const unsigned long long uj = static_cast<unsigned long long>(j);
    wd[kCoordWords] = static_cast<unsigned>(uj);
    if constexpr (sizeof(I) == 8) wd[kCoordWords + 1] = static_cast<unsigned>(uj >> 32);
    unsigned* p = records + pos * kWords;
    if constexpr (kWords % 4 == 0) {
#pragma unroll
      for (int i = 0; i < kWords / 4; ++i)
        reinterpret_cast<uint4*>(p)[i] = make_uint4(wd[4 * i], wd[4 * i + 1], wd[4 * i + 2],
                                                    wd[4 * i + 3]);
    } else {
#pragma unroll
      for (int i = 0; i < kWords / 2; ++i)
        reinterpret_cast<uint2*>(p)[i] = make_uint2(wd[2 * i], wd[2 * i + 1]);
    }
  }

  // Record t of src to record pos of dst, whole (any memory space: the bucket scatter stages
  // records in shared memory).
  __device__ __forceinline__ static void copy(unsigned* dst, std::int64_t pos,
                                              const unsigned* src, std::int64_t t) {
    if constexpr (kWords % 4 == 0) {
#pragma unroll
      for (int i = 0; i < kWords / 4; ++i)
        reinterpret_cast<uint4*>(dst + pos * kWords)[i] =
            reinterpret_cast<const uint4*>(src + t * kWords)[i];
    } else {
#pragma unroll
      for (int i = 0; i < kWords / 2; ++i)
        reinterpret_cast<uint2*>(dst + pos * kWords)[i] =
            reinterpret_cast<const uint2*>(src + t * kWords)[i];
    }
  }

  __device__ __forceinline__ static void load(const unsigned* records, std::int64_t q,
                                              PointCoords<T, D>& c, std::int64_t& j) {
    unsigned wd[kWords];
    const unsigned* p = records + q * kWords;
    if constexpr (kWords % 4 == 0) {
#pragma unroll
      for (int i = 0; i < kWords / 4; ++i) {
        const uint4 v = reinterpret_cast<const uint4*>(p)[i];
        wd[4 * i] = v.x;
        wd[4 * i + 1] = v.y;
        wd[4 * i + 2] = v.z;
        wd[4 * i + 3] = v.w;
      }
    } else {
#pragma unroll
      for (int i = 0; i < kWords / 2; ++i) {
        const uint2 v = reinterpret_cast<const uint2*>(p)[i];
        wd[2 * i] = v.x;
        wd[2 * i + 1] = v.y;
      }
    }
#pragma unroll
    for (int d = 0; d < D; ++d) {
      if constexpr (sizeof(T) == 4) {
        c.v[d] = __uint_as_float(wd[d]);
      } else {
        c.v[d] = __hiloint2double(static_cast<int>(wd[2 * d + 1]), static_cast<int>(wd[2 * d]));
      }
    }
    unsigned long long uj = wd[kCoordWords];
    if constexpr (sizeof(I) == 8) uj |= static_cast<unsigned long long>(wd[kCoordWords + 1]) << 32;
    j = static_cast<std::int64_t>(uj);
  }
};

}  // namespace nufftmp::detail::sort_device
