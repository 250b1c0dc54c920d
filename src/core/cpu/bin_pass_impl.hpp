// The bin sort's passes over the points (bin_pass.hpp), compiled once per instruction set:
// included only by isa_*.cpp, each of which defines NUFFTMP_CPU_ISA first.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "common/checks.hpp"
#include "cpu/bin_pass.hpp"
#include "cpu/vec.hpp"

#ifndef NUFFTMP_CPU_ISA
#define NUFFTMP_CPU_ISA generic
#endif

namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA {

namespace {

// Vectors of the instruction set's own width (vec.hpp; a wider GCC vector type is lowered by
// splitting, which for these selects and conversions fell back to scalar code): the points
// are folded and binned kLanes at a time. A block's coordinates and bins stay in L1 for the
// scalar count or placement that follows.
constexpr int kLanes = kVecBytes / static_cast<int>(sizeof(double));
constexpr int kBlock = 256;  // a multiple of kLanes

typedef double dvec __attribute__((vector_size(8 * kLanes)));
typedef std::int32_t ivec __attribute__((vector_size(4 * kLanes)));
typedef std::uint32_t uvec __attribute__((vector_size(4 * kLanes)));

#if defined(__SSE4_1__)
// floor of every lane: one rounding instruction (vroundpd / vrndscalepd).
inline dvec floor_of(dvec v) {
#if defined(__AVX512F__)
  // (_mm512_floor_pd: GCC 12's _mm512_roundscale_pd warns of its undefined pass-through)
  return reinterpret_cast<dvec>(_mm512_floor_pd(reinterpret_cast<__m512d>(v)));
#elif defined(__AVX__)
  return reinterpret_cast<dvec>(
      _mm256_round_pd(reinterpret_cast<__m256d>(v), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
#else
  return reinterpret_cast<dvec>(
      _mm_round_pd(reinterpret_cast<__m128d>(v), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
#endif
}
#endif

// kLanes coordinates in the user's precision, and the mask their comparisons give.
template <typename T>
struct Lanes;
template <>
struct Lanes<float> {
  typedef float type __attribute__((vector_size(4 * kLanes)));
  typedef std::int32_t mask __attribute__((vector_size(4 * kLanes)));
};
template <>
struct Lanes<double> {
  typedef double type __attribute__((vector_size(8 * kLanes)));
  typedef std::int64_t mask __attribute__((vector_size(8 * kLanes)));
};

// The points [j, j + n), n <= kBlock: bins in bin[i] and (when G) the coordinates in fine-grid
// units in g[d][i]; returns how many coordinates are not in_fold_range (the test of
// check_points_host, NaN included). A short last group of lanes is padded with zeros, so every point takes
// the same arithmetic in both passes (pass 2 must find the bins pass 1 counted).
//
// The fold: t = x / 2pi lies in [-1.5, 1.5] for legal x; t - floor(t) is exact for t >= -1
// and rounds once below (at most 2pi 2^-54 in x), the same bits as removing the integer part
// and adding 1 where negative. No branches: they mispredicted half the time on random points.
// (Adding 2 first, so that a cast would floor, rounded every point to 2pi 2^-52: a 2e-13
// error floor in 1D double at 1000 modes, where FINUFFT reaches 7e-14.) In double, so that a
// float x scaled to a large grid keeps its cell fraction. With SSE4.1 (the avx2 and avx512
// builds) floor is one rounding instruction and NaN or infinity fold to NaN, then to cell 0;
// plain SSE2 truncates through int32 casts, clamped first to keep them defined (NaN -> -2).
// Bad coordinates are reported before any result is used. g < nf <= 2^31 - 1 (FftPlan's
// limit), and the bin number is formed in double (exact below 2^53; SSE2 has no 32-bit vector
// multiply). The floor version took the pass from ~18 to ~11 vector operations per
// coordinate: GCC splits each int32 -> double conversion of a vector in two halves.
//
// P (the packed layout of float points, sorted_points.hpp): instead of g, the position within
// the point's bin in 32-bit fixed point, u[d][i] = floor((g - bin origin) 2^(32 - s)) for a
// bin of 2^s cells, truncated: an error below 2^(s - 32) cells.
template <int D, bool G, typename T, bool P = false>
int bin_block(const BinPass<T>& a, std::int64_t j, int n, double (*g)[kBlock],
              std::uint32_t* bin, std::uint32_t (*u)[kBlock] = nullptr) {
  using V = typename Lanes<T>::type;
  using Mask = typename Lanes<T>::mask;
  const V lo = V{} - fold_limit<T>(), hi = V{} + fold_limit<T>();
  // Scalars broadcast once (no function returns a vector: its ABI differs between the
  // instruction sets).
  [[maybe_unused]] const dvec zero = dvec{}, one = dvec{} + 1.0, two = dvec{} + 2.0;
  const dvec inv_two_pi = dvec{} + 0.159154943091895335768883763372514;
  dvec nf[D], inv_size[D], top[D], stride[D];
  for (int d = 0; d < D; ++d) {
    nf[d] = dvec{} + a.nf[d];
    inv_size[d] = dvec{} + a.inv_size[d];
    top[d] = dvec{} + a.top[d];
    stride[d] = dvec{} + a.stride[d];
  }
  Mask bad{};
  for (int i = 0; i < n; i += kLanes) {
    dvec key = zero;
    for (int d = 0; d < D; ++d) {
      V x;
      if (i + kLanes <= n) {
        std::memcpy(&x, a.in[d] + j + i, sizeof x);
      } else {
        T pad[kLanes] = {};
        std::memcpy(pad, a.in[d] + j + i, static_cast<std::size_t>(n - i) * sizeof(T));
        std::memcpy(&x, pad, sizeof x);
      }
      // in_fold_range (common/checks.hpp); masks are -1 where true: 0 where legal, 1 where not
      bad += ((x >= lo) & (x <= hi)) + 1;
      dvec t = __builtin_convertvector(x, dvec) * inv_two_pi;
#if defined(__SSE4_1__)
      t -= floor_of(t);  // [0, 1]; NaN for NaN or infinity
#else
      t = t > -two ? t : -two;
      t = t < two ? t : two;
      t -= __builtin_convertvector(__builtin_convertvector(t, ivec), dvec);  // (-1, 1), exact
      t = t < zero ? t + one : t;
#endif
      dvec gv = t * nf[d];
      gv = gv < nf[d] ? gv : zero;  // rounding landed on nf: the same point as 0 (NaN too)
      if constexpr (G) std::memcpy(&g[d][i], &gv, sizeof gv);
#if defined(__SSE4_1__)
      dvec c = floor_of(gv * inv_size[d]);
#else
      dvec c = __builtin_convertvector(__builtin_convertvector(gv * inv_size[d], ivec), dvec);
#endif
      c = c < top[d] ? c : top[d];
      key += c * stride[d];
      if constexpr (P) {
        // gv - c 2^s is exact (gv minus an integer at or below it, with gv's own last bit),
        // so is the scaling: r in [0, 2^32), truncated by the conversion (the same in every
        // instruction set; AVX-512 has it in one instruction).
        const dvec r = (gv - c * (dvec{} + a.size[d])) * (dvec{} + a.fscale[d]);
        const uvec s = __builtin_convertvector(r, uvec);
        std::memcpy(&u[d][i], &s, sizeof s);
      }
    }
    const ivec b = __builtin_convertvector(key, ivec);
    std::memcpy(bin + i, &b, sizeof b);
  }
  int nbad = 0;
  for (int l = 0; l < kLanes; ++l) nbad += static_cast<int>(bad[l]);
  return nbad;
}

template <int D, typename T, typename Count>
std::int64_t count_dim(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* count) {
  alignas(64) std::uint32_t bin[kBlock];
  std::int64_t bad = 0;
  for (std::int64_t j = j0; j < j1; j += kBlock) {
    const int n = static_cast<int>(j1 - j < kBlock ? j1 - j : kBlock);
    bad += bin_block<D, false>(a, j, n, nullptr, bin);
    for (int i = 0; i < n; ++i) ++count[bin[i]];
  }
  return bad;
}

template <int D, typename T, typename Count, typename Index>
void place_dim(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next, double* g,
               Index* perm) {
  alignas(64) double gb[D][kBlock];
  alignas(64) std::uint32_t bin[kBlock];
  for (std::int64_t j = j0; j < j1; j += kBlock) {
    const int n = static_cast<int>(j1 - j < kBlock ? j1 - j : kBlock);
    bin_block<D, true>(a, j, n, gb, bin);
    for (int i = 0; i < n; ++i) {
      const std::int64_t p = static_cast<std::int64_t>(next[bin[i]]++);
      perm[p] = static_cast<Index>(j + i);
      for (int d = 0; d < D; ++d) g[p * D + d] = gb[d][i];
    }
  }
}

// One 64-byte line from buf to dst (both 64-byte aligned), past the caches: the streamed
// place writes each line once, whole, so the read that an ordinary store miss makes first
// would be wasted (and, with thousands of lines open at once, it is what bounds the direct
// place: 16 ms per 1e6 points in 3D where streaming the same bytes takes under 2).
inline void stream_line(void* dst, const void* buf) {
#if defined(__AVX512F__)
  _mm512_stream_si512(static_cast<__m512i*>(dst), _mm512_load_si512(buf));
#elif defined(__AVX__)
  for (int i = 0; i < 2; ++i)
    _mm256_stream_si256(static_cast<__m256i*>(dst) + i,
                        _mm256_load_si256(static_cast<const __m256i*>(buf) + i));
#elif defined(__SSE2__)
  for (int i = 0; i < 4; ++i)
    _mm_stream_si128(static_cast<__m128i*>(dst) + i,
                     _mm_load_si128(static_cast<const __m128i*>(buf) + i));
#else
  std::memcpy(dst, buf, 64);
#endif
}

// Words [from, to) of a group or line buffer (buf holds the aligned group from word `base` on)
// to dst with ordinary stores: the partial groups at either end of a bin's segment, which
// share their lines with the neighbouring bin or chunk (possibly another thread's).
template <typename Word>
inline void store_words(Word* dst, const Word* buf, std::int64_t base, std::int64_t from,
                        std::int64_t to) {
  for (std::int64_t e = from; e < to; ++e) dst[e] = buf[e - base];
}

// place_dim's writes through buffers per bin, streamed out past the caches when whole: the
// coordinates in groups of 8 points (8 D words, D whole lines, as 8 D doubles start a line
// when the group's first position is a multiple of 8) and the permutation in lines (16 int32
// or 8 int64 indices). Per point D + 1 stores into the bin's buffers and one test, taken once
// in 8 points. (The first version had a line buffer per bin and array and a test per word,
// D + 1 tests a point, taken at random: the mispredictions and the reloads of lines just
// written word by word were most of the pass.) Scratch per bin: 8 D words of coordinates,
// 8 of indices and the segment's first position (streamed_words_per_bin).
template <int D, typename T, typename Count, typename Index>
void place_streamed_dim(const BinPass<T>& a, std::int64_t j0, std::int64_t j1,
                        std::int64_t nbins, Count* next, double* g, Index* perm,
                        std::uint64_t* scratch) {
  constexpr std::int64_t kGroup = 8;                               // points per coordinate group
  constexpr std::int64_t kPermLine = 64 / sizeof(Index);           // indices per line
  alignas(64) double gb[D][kBlock];
  alignas(64) std::uint32_t bin[kBlock];
  double* gbuf = reinterpret_cast<double*>(scratch);                       // nbins x 8 D
  Index* pbuf = reinterpret_cast<Index*>(scratch + nbins * kGroup * D);   // nbins x line
  std::int64_t* begin = reinterpret_cast<std::int64_t*>(scratch + nbins * (kGroup * D + 8));
  for (std::int64_t b = 0; b < nbins; ++b) begin[b] = static_cast<std::int64_t>(next[b]);
  for (std::int64_t j = j0; j < j1; j += kBlock) {
    const int n = static_cast<int>(j1 - j < kBlock ? j1 - j : kBlock);
    bin_block<D, true>(a, j, n, gb, bin);
    for (int i = 0; i < n; ++i) {
      const std::uint32_t b = bin[i];
      const std::int64_t p = static_cast<std::int64_t>(next[b]++);
      double* gg = gbuf + b * (kGroup * D);
      Index* pl = pbuf + b * kPermLine;
      for (int d = 0; d < D; ++d) gg[(p & (kGroup - 1)) * D + d] = gb[d][i];
      pl[p & (kPermLine - 1)] = static_cast<Index>(j + i);
      if ((p & (kGroup - 1)) != kGroup - 1) continue;
      const std::int64_t g0 = p - (kGroup - 1);
      if (g0 >= begin[b]) {
        for (int l = 0; l < D; ++l) stream_line(g + g0 * D + 8 * l, gg + 8 * l);
      } else {
        store_words(g, gg, g0 * D, begin[b] * D, (p + 1) * D);
      }
      if ((p & (kPermLine - 1)) != kPermLine - 1) continue;
      const std::int64_t l0 = p - (kPermLine - 1);
      if (l0 >= begin[b]) stream_line(perm + l0, pl);
      else store_words(perm, pl, l0, begin[b], p + 1);
    }
  }
  for (std::int64_t b = 0; b < nbins; ++b) {
    const std::int64_t end = static_cast<std::int64_t>(next[b]);
    const std::int64_t g0 = end & ~(kGroup - 1), l0 = end & ~(kPermLine - 1);
    store_words(g, gbuf + b * (kGroup * D), g0 * D, std::max(g0, begin[b]) * D, end * D);
    store_words(perm, pbuf + b * kPermLine, l0, std::max(l0, begin[b]), end);
  }
#if defined(__SSE2__)
  _mm_sfence();  // streamed lines are weakly ordered: visible before the threads part
#endif
}

// The packed layout's place (float points, fewer than 2^31): one record of D + 1 words a point,
// its fixed-point position in its bin (bin_block's u) and its user index, so that each point is
// one store of 4 (D + 1) bytes into one line (the double layout: 8 D bytes into one line and 4
// into another), 16 B a point in 3D where the double layout writes 28.
template <int D, typename T, typename Count>
void place_packed_dim(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next,
                      std::uint32_t* rec) {
  alignas(64) std::uint32_t ub[D][kBlock];
  alignas(64) std::uint32_t bin[kBlock];
  for (std::int64_t j = j0; j < j1; j += kBlock) {
    const int n = static_cast<int>(j1 - j < kBlock ? j1 - j : kBlock);
    bin_block<D, false, T, true>(a, j, n, nullptr, bin, ub);
    for (int i = 0; i < n; ++i) {
      std::uint32_t* r = rec + static_cast<std::int64_t>(next[bin[i]]++) * (D + 1);
      for (int d = 0; d < D; ++d) r[d] = ub[d][i];
      r[D] = static_cast<std::uint32_t>(j + i);
    }
  }
}

// The same through a buffer of one group per bin (packed_group: records that fill whole lines
// when the group starts at a multiple of its size: 16 in 3D, four lines; 16 in 2D, three; 8 in
// 1D, one), streamed out when full, as place_streamed_dim. (3D groups of 4, one line: place
// 7.0-8.7 ms at 1 thread, 1e6 points, against 5.1-6.5 with 16: a flush test taken every 4th
// point, mispredicted.) Scratch per bin: the group and the segment's first position
// (packed_streamed_words_per_bin).
template <int D, typename T, typename Count>
void place_packed_streamed_dim(const BinPass<T>& a, std::int64_t j0, std::int64_t j1,
                               std::int64_t nbins, Count* next, std::uint32_t* rec,
                               std::uint64_t* scratch) {
  constexpr std::int64_t kGroup = packed_group(D);
  constexpr std::int64_t R = D + 1;  // words a record
  static_assert(kGroup * R % 16 == 0, "a group fills whole lines");
  alignas(64) std::uint32_t ub[D][kBlock];
  alignas(64) std::uint32_t bin[kBlock];
  std::uint32_t* rbuf = reinterpret_cast<std::uint32_t*>(scratch);  // nbins x 16 R
  std::int64_t* begin = reinterpret_cast<std::int64_t*>(scratch + nbins * (kGroup * R / 2));
  for (std::int64_t b = 0; b < nbins; ++b) begin[b] = static_cast<std::int64_t>(next[b]);
  for (std::int64_t j = j0; j < j1; j += kBlock) {
    const int n = static_cast<int>(j1 - j < kBlock ? j1 - j : kBlock);
    bin_block<D, false, T, true>(a, j, n, nullptr, bin, ub);
    for (int i = 0; i < n; ++i) {
      const std::uint32_t b = bin[i];
      const std::int64_t p = static_cast<std::int64_t>(next[b]++);
      std::uint32_t* gr = rbuf + b * (kGroup * R);
      std::uint32_t* r = gr + (p & (kGroup - 1)) * R;
      for (int d = 0; d < D; ++d) r[d] = ub[d][i];
      r[D] = static_cast<std::uint32_t>(j + i);
      if ((p & (kGroup - 1)) != kGroup - 1) continue;
      const std::int64_t g0 = p - (kGroup - 1);
      if (g0 >= begin[b]) {
        for (int l = 0; l < kGroup * R / 16; ++l) stream_line(rec + g0 * R + 16 * l, gr + 16 * l);
      } else {
        store_words(rec, gr, g0 * R, begin[b] * R, (p + 1) * R);
      }
    }
  }
  for (std::int64_t b = 0; b < nbins; ++b) {
    const std::int64_t end = static_cast<std::int64_t>(next[b]);
    const std::int64_t g0 = end & ~(kGroup - 1);
    store_words(rec, rbuf + b * (kGroup * R), g0 * R, std::max(g0, begin[b]) * R, end * R);
  }
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace

template <typename T, typename Count, typename Index>
void place_points_streamed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1,
                           std::int64_t nbins, Count* next, double* g, Index* perm,
                           std::uint64_t* scratch) {
  switch (a.dim) {
    case 1: place_streamed_dim<1>(a, j0, j1, nbins, next, g, perm, scratch); break;
    case 2: place_streamed_dim<2>(a, j0, j1, nbins, next, g, perm, scratch); break;
    default: place_streamed_dim<3>(a, j0, j1, nbins, next, g, perm, scratch); break;
  }
}

template <typename T, typename Count>
void place_packed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next,
                  std::uint32_t* rec) {
  switch (a.dim) {
    case 1: place_packed_dim<1>(a, j0, j1, next, rec); break;
    case 2: place_packed_dim<2>(a, j0, j1, next, rec); break;
    default: place_packed_dim<3>(a, j0, j1, next, rec); break;
  }
}

template <typename T, typename Count>
void place_packed_streamed(const BinPass<T>& a, std::int64_t j0, std::int64_t j1,
                           std::int64_t nbins, Count* next, std::uint32_t* rec,
                           std::uint64_t* scratch) {
  switch (a.dim) {
    case 1: place_packed_streamed_dim<1>(a, j0, j1, nbins, next, rec, scratch); break;
    case 2: place_packed_streamed_dim<2>(a, j0, j1, nbins, next, rec, scratch); break;
    default: place_packed_streamed_dim<3>(a, j0, j1, nbins, next, rec, scratch); break;
  }
}

template <typename T, typename Count>
std::int64_t count_bins(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* count) {
  switch (a.dim) {
    case 1: return count_dim<1>(a, j0, j1, count);
    case 2: return count_dim<2>(a, j0, j1, count);
    default: return count_dim<3>(a, j0, j1, count);
  }
}

template <typename T, typename Count, typename Index>
void place_points(const BinPass<T>& a, std::int64_t j0, std::int64_t j1, Count* next,
                  double* g, Index* perm) {
  switch (a.dim) {
    case 1: place_dim<1>(a, j0, j1, next, g, perm); break;
    case 2: place_dim<2>(a, j0, j1, next, g, perm); break;
    default: place_dim<3>(a, j0, j1, next, g, perm); break;
  }
}

// Count: uint32 below 2^32 points, else int64; Index: int32 below 2^31 points (or int64 kept
// from an earlier, larger set_points), else int64 (int64 counts with int32 indices never run:
// instantiated because the caller's choice between the two is made at run time).
#define NUFFTMP_INSTANTIATE_PLACE(T, Count, Index)                                              \
  template void place_points<T, Count, Index>(const BinPass<T>&, std::int64_t, std::int64_t,   \
                                              Count*, double*, Index*);                       \
  template void place_points_streamed<T, Count, Index>(const BinPass<T>&, std::int64_t,        \
                                                       std::int64_t, std::int64_t, Count*,     \
                                                       double*, Index*, std::uint64_t*);
#define NUFFTMP_INSTANTIATE_BIN_PASS(T)                                                        \
  template std::int64_t count_bins<T, std::uint32_t>(const BinPass<T>&, std::int64_t,          \
                                                     std::int64_t, std::uint32_t*);            \
  template std::int64_t count_bins<T, std::int64_t>(const BinPass<T>&, std::int64_t,           \
                                                    std::int64_t, std::int64_t*);              \
  NUFFTMP_INSTANTIATE_PLACE(T, std::uint32_t, std::int32_t)                                    \
  NUFFTMP_INSTANTIATE_PLACE(T, std::uint32_t, std::int64_t)                                    \
  NUFFTMP_INSTANTIATE_PLACE(T, std::int64_t, std::int32_t)                                     \
  NUFFTMP_INSTANTIATE_PLACE(T, std::int64_t, std::int64_t)                                     \
  template void place_packed<T, std::uint32_t>(const BinPass<T>&, std::int64_t, std::int64_t,  \
                                               std::uint32_t*, std::uint32_t*);                \
  template void place_packed_streamed<T, std::uint32_t>(const BinPass<T>&, std::int64_t,       \
                                                        std::int64_t, std::int64_t,            \
                                                        std::uint32_t*, std::uint32_t*,        \
                                                        std::uint64_t*);
NUFFTMP_INSTANTIATE_BIN_PASS(float)
NUFFTMP_INSTANTIATE_BIN_PASS(double)
#undef NUFFTMP_INSTANTIATE_BIN_PASS
#undef NUFFTMP_INSTANTIATE_PLACE

}  // namespace nufftmp::detail::cpu::NUFFTMP_CPU_ISA
