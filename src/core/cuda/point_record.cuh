// The packed record of a point (its coordinates - float as given, double folded - and its user
// index) and where a coordinate lies on the fine grid (i0 and s): what set_points' sort writes
// and, in the records layout (sort_strategy.hpp PointLayout), what every execute kernel reads.
// One home for both, so that the execute kernels' i0/s equal the sort's bit for bit. Included by
// .cu/.cuh files only.
#pragma once

#include <cstdint>

#include "common/grid.hpp"
#include "cuda/sort_strategy.hpp"

namespace nufftmp::detail {

// i0 (the first cell the kernel touches) and s (its Horner argument in [-1, 1)) of a folded
// position g in [0, nf); returns g.
template <typename T>
__device__ __forceinline__ double cell_of_folded(double g, int w, std::int32_t& i0, T& s) {
  const double first = ceil(g - 0.5 * w);
  i0 = static_cast<std::int32_t>(first);
  // (first + w/2) - g in [0, 1): exact for g >= 1 (Sterbenz), where (first - g) + w/2 rounded
  // at the ulp of w/2 for every g below w. Where g - w/2 itself rounds onto an integer (g < w/4
  // only), s can fall below -1 by an ulp of w/2: the kernel's edge, harmless to the Horner fit.
  s = static_cast<T>(2.0 * ((first + 0.5 * w) - g) - 1.0);
  return g;
}

// Folded position g of one coordinate as given, computed in double so float inputs on grids
// past 2^24 cells keep their exact cell (double inputs: to half an ulp, common/grid.hpp
// fold_rescale_exact), with its i0 and s.
template <typename T>
__device__ __forceinline__ double locate_cell(T v, int nf, int w, std::int32_t& i0, T& s) {
  double g;
  if constexpr (sizeof(T) == sizeof(double)) {
    g = fold_rescale_exact(v, nf);
  } else {
    g = fold_rescale<double>(static_cast<double>(v), nf);
  }
  return cell_of_folded(g, w, i0, s);
}

// What a record keeps of a coordinate. Float: the coordinate as given, bit for bit (its folded
// position in float would lose cells on grids past 2^24). Double: its folded position g, the
// double locate_cell computes, so that every reader of the record - each execute kernel, at
// every execute - takes i0 and s with a ceil and two operations instead of the exact fold's
// ~20 FP64 operations per axis, and gets the same bits.
template <typename T>
inline constexpr bool kRecordHoldsFolded = sizeof(T) == sizeof(double);

// The record's value of a coordinate v whose folded position is g.
template <typename T>
__device__ __forceinline__ T record_value(T v, double g) {
  if constexpr (kRecordHoldsFolded<T>) {
    return g;
  } else {
    return v;
  }
}

// i0 and s from a record's value r (record_value above); returns the folded position.
template <typename T>
__device__ __forceinline__ double locate_record(T r, int nf, int w, std::int32_t& i0, T& s) {
  if constexpr (kRecordHoldsFolded<T>) {
    return cell_of_folded(r, w, i0, s);
  } else {
    return locate_cell(r, nf, w, i0, s);
  }
}

// One point's coordinates as given (D of them).
template <typename T, int D>
struct PointCoords {
  T v[D];
};

// A packed record (packed and bucket scatters, records layout): the D record values of the
// coordinates (record_value: float bit for bit, double folded), then the user index, in kWords
// 32-bit words (sort_strategy.hpp), stored and loaded with whole 16- or 8-byte accesses.
template <typename T, int D, typename I>
struct Record {
  static constexpr int kCoordWords = D * int(sizeof(T) / 4);
  static constexpr int kWords = packed_record_words(D, int(sizeof(T)), int(sizeof(I)));
  static_assert(kCoordWords + int(sizeof(I) / 4) <= kWords, "record too small");

  // A whole record's words to or from p, in 16-byte accesses (8-byte where kWords is not a
  // multiple of four): the one place that picks the access width.
  __device__ __forceinline__ static void write_words(unsigned* p, const unsigned (&wd)[kWords]) {
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
  __device__ __forceinline__ static void read_words(const unsigned* p, unsigned (&wd)[kWords]) {
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
  }

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
    write_words(records + pos * kWords, wd);
  }

  // Record t of src to record pos of dst, whole (any memory space: the bucket scatter stages
  // records in shared memory).
  __device__ __forceinline__ static void copy(unsigned* dst, std::int64_t pos,
                                              const unsigned* src, std::int64_t t) {
    unsigned wd[kWords];
    read_words(src + t * kWords, wd);
    write_words(dst + pos * kWords, wd);
  }

  __device__ __forceinline__ static void load(const unsigned* records, std::int64_t q,
                                              PointCoords<T, D>& c, std::int64_t& j) {
    unsigned wd[kWords];
    read_words(records + q * kWords, wd);
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

  // One field of record q alone (the execute kernels' per-axis staging and strength reads).
  __device__ __forceinline__ static T load_coord(const unsigned* records, std::int64_t q, int d) {
    const unsigned* p = records + q * kWords;
    if constexpr (sizeof(T) == 4) {
      return __uint_as_float(p[d]);
    } else {
      const uint2 v = reinterpret_cast<const uint2*>(p)[d];
      return __hiloint2double(static_cast<int>(v.y), static_cast<int>(v.x));
    }
  }
  __device__ __forceinline__ static std::int64_t load_index(const unsigned* records,
                                                            std::int64_t q) {
    const unsigned* p = records + q * kWords + kCoordWords;
    unsigned long long uj = p[0];
    if constexpr (sizeof(I) == 8) uj |= static_cast<unsigned long long>(p[1]) << 32;
    return static_cast<std::int64_t>(uj);
  }
};

}  // namespace nufftmp::detail
