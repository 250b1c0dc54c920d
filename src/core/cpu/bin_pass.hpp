// The per-point loops of the bin sort (sorted_points.cpp), compiled once per instruction set
// like the spreading loops (isa.hpp): both passes fold a block of points into fine-grid units
// and find their bins with 64-byte vectors, then pass 1 counts each bin and pass 2 writes each
// point to its bin's next slot. Per point that arithmetic is most of pass 1's time on
// 2-lane SSE2 vectors; AVX-512 does it four times as wide.
#pragma once

#include <cstdint>

namespace nufftmp::detail::cpu {

// Plain data for the passes over the user's coordinates (either precision).
template <typename T>
struct BinPass {
  int dim = 1;
  const T* in[3] = {nullptr, nullptr, nullptr};
  double nf[3] = {1, 1, 1};
  double inv_size[3] = {1, 1, 1};  // 2^-log_size: scaling by it is exact
  double top[3] = {0, 0, 0};       // last bin along each axis
  double stride[3] = {1, 1, 1};    // bins between neighbours along each axis
  double size[3] = {1, 1, 1};      // 2^log_size: a bin's cells along each axis
  double fscale[3] = {1, 1, 1};    // 2^(32 - log_size): the packed layout's fixed point
};

// Words of place_points_streamed's scratch per bin: a group of 8 points' coordinates, a line
// of indices and the bin's first position.
constexpr std::int64_t streamed_words_per_bin(int dim) { return 8 * dim + 8 + 1; }
// The same for place_packed_streamed: a group of packed_group(dim) records of dim + 1 32-bit
// words (whole lines), and the first position.
constexpr std::int64_t packed_group(int dim) { return dim == 1 ? 8 : 16; }
constexpr std::int64_t packed_streamed_words_per_bin(int dim) {
  return packed_group(dim) * (dim + 1) / 2 + 1;
}

}  // namespace nufftmp::detail::cpu

// Count is the counters' type: uint32 while M < 2^32 (the counters of 2^13 bins then fit in
// L1), int64 beyond.
#define NUFFTMP_CPU_DECLARE_BIN_PASS_ISA(ns)                                                    \
  namespace nufftmp::detail::cpu::ns {                                                         \
  /* ++count[bin] for the points [j0, j1); returns how many coordinates are not             */ \
  /* in_fold_range (the test of check_points_host).                                          */ \
  template <typename T, typename Count>                                                        \
  std::int64_t count_bins(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* count); \
  /* Point j of [j0, j1) goes to p = next[bin]++: g[p * dim + d] and perm[p] = j (Index:    */ \
  /* int32 or int64).                                                                        */ \
  template <typename T, typename Count, typename Index>                                        \
  void place_points(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next,        \
                    double* g, Index* perm);                                                   \
  /* The same through buffers per bin (8 points, a line of indices), written out with     */ \
  /* streaming stores (the same result); scratch: streamed_words_per_bin(dim) * nbins     */ \
  /* words, 64-byte aligned.                                                               */ \
  template <typename T, typename Count, typename Index>                                        \
  void place_points_streamed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1,            \
                             std::int64_t nbins, Count* next, double* g, Index* perm,          \
                             std::uint64_t* scratch);                                          \
  /* The packed layout (sorted_points.hpp; M < 2^31, so uint32 counts): record p is        */ \
  /* rec[p * (dim + 1) + d], the fixed-point position in the bin, and the user index at d = */ \
  /* dim. Streamed: scratch of packed_streamed_words_per_bin(dim) * nbins words.            */ \
  template <typename T, typename Count>                                                        \
  void place_packed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next,        \
                    std::uint32_t* rec);                                                       \
  template <typename T, typename Count>                                                        \
  void place_packed_streamed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1,            \
                             std::int64_t nbins, Count* next, std::uint32_t* rec,              \
                             std::uint64_t* scratch);                                          \
  }

NUFFTMP_CPU_DECLARE_BIN_PASS_ISA(generic)
#if defined(NUFFTMP_CPU_X86_VARIANTS)
NUFFTMP_CPU_DECLARE_BIN_PASS_ISA(avx2)
NUFFTMP_CPU_DECLARE_BIN_PASS_ISA(avx512)
#endif
