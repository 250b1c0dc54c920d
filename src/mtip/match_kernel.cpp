// The matching product C = B S^T as a register-blocked micro-kernel (the GEMM layout of
// Goto & van de Geijn, written in plain C++ for the compiler's vectorizer):
//  - the references are packed into panels of RB references, pixel-major
//    (panel[p * RB + l] = S[r0 + l][p]), so one pixel of a panel is RB contiguous floats;
//  - a tile of IB images x RB references is accumulated in registers: per pixel, each image's
//    value is broadcast and multiplied into the RB panel values (IB x RB / width FMAs for
//    IB broadcasts + RB / width loads);
//  - pixels go in chunks of KC: the panel chunk (KC x RB floats) stays in L1/L2 while the
//    tiles of a group of images pass over it; each chunk's float sums go into double totals.
// OpenMP runs (panel, group of images) tasks. On x86-64 the task is compiled three times
// (generic, AVX2+FMA, AVX-512) through target attributes and chosen at run time, with the tile
// shape fitted to the register file (16 vector registers of 8 floats, or 32 of 16).
#include "match_kernel.hpp"

#include <algorithm>
#include <vector>

#if defined(__GNUC__)
#define NUFFTMP_MATCH_INLINE inline __attribute__((always_inline))
#else
#define NUFFTMP_MATCH_INLINE inline
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NUFFTMP_MATCH_X86 1
#endif

namespace nufftmp::mtip::detail {

namespace {

constexpr std::int64_t kChunk = 256;  // pixels per chunk: a 32-reference panel chunk is 32 KB

struct Problem {
  const float* images;
  std::int64_t ni, nr, npix;
  const float* panels;  // ceil(nr / RB) panels of npix * RB floats
  double* cross;
};

// One tile: IB image rows (rows[i], pixel-indexed) times the panel's pixels [p0, p1).
template <int IB, int RB>
NUFFTMP_MATCH_INLINE void tile(const float* const* rows, const float* panel, std::int64_t p0,
                               std::int64_t p1, double* tot) {
  float acc[IB][RB];
  for (int i = 0; i < IB; ++i)
    for (int l = 0; l < RB; ++l) acc[i][l] = 0.0f;
  for (std::int64_t p = p0; p < p1; ++p) {
    const float* s = panel + p * RB;
    for (int i = 0; i < IB; ++i) {
      const float b = rows[i][p];
#pragma omp simd
      for (int l = 0; l < RB; ++l) acc[i][l] += b * s[l];
    }
  }
  for (int i = 0; i < IB; ++i)
    for (int l = 0; l < RB; ++l) tot[i * RB + l] += acc[i][l];
}

// Panel k times images [i0, i1) (at most kGroupTiles tiles), all pixels, into cross.
constexpr int kGroupTiles = 8;
template <int IB, int RB>
NUFFTMP_MATCH_INLINE void group_task(const Problem& pb, std::int64_t k, std::int64_t i0,
                                     std::int64_t i1) {
  double tot[kGroupTiles * IB * RB] = {};
  const float* panel = pb.panels + k * pb.npix * RB;
  const std::int64_t ntiles = (i1 - i0 + IB - 1) / IB;
  const float* rows[kGroupTiles][IB];
  for (std::int64_t t = 0; t < ntiles; ++t)
    for (int i = 0; i < IB; ++i)  // rows past the end repeat the last one; their sums are dropped
      rows[t][i] = pb.images + std::min(i0 + t * IB + i, i1 - 1) * pb.npix;
  for (std::int64_t p0 = 0; p0 < pb.npix; p0 += kChunk) {
    const std::int64_t p1 = std::min(pb.npix, p0 + kChunk);
    for (std::int64_t t = 0; t < ntiles; ++t)
      tile<IB, RB>(rows[t], panel, p0, p1, tot + t * IB * RB);
  }
  const std::int64_t r0 = k * RB, nl = std::min<std::int64_t>(RB, pb.nr - r0);
  for (std::int64_t i = i0; i < i1; ++i)
    for (std::int64_t l = 0; l < nl; ++l) pb.cross[i * pb.nr + r0 + l] = tot[(i - i0) * RB + l];
}

using TaskFn = void (*)(const Problem&, std::int64_t, std::int64_t, std::int64_t);
struct Kernel {
  int ib, rb;
  TaskFn task;
  const char* isa;
};

void task_generic(const Problem& pb, std::int64_t k, std::int64_t i0, std::int64_t i1) {
  group_task<4, 8>(pb, k, i0, i1);  // 8 accumulators of 4 floats (SSE2: 16 registers)
}
#ifdef NUFFTMP_MATCH_X86
__attribute__((target("avx2,fma"))) void task_avx2(const Problem& pb, std::int64_t k,
                                                     std::int64_t i0, std::int64_t i1) {
  group_task<6, 16>(pb, k, i0, i1);  // 12 accumulators of 8 floats, 2 panel loads, 1 broadcast
}
#if defined(__clang__)
#define NUFFTMP_MATCH_AVX512 "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma"
#else
#define NUFFTMP_MATCH_AVX512 "avx512f,avx512vl,avx512bw,avx512dq,avx2,fma,prefer-vector-width=512"
#endif
__attribute__((target(NUFFTMP_MATCH_AVX512))) void task_avx512(const Problem& pb, std::int64_t k,
                                                               std::int64_t i0, std::int64_t i1) {
  group_task<12, 32>(pb, k, i0, i1);  // 24 accumulators of 16 floats (32 registers)
}
#endif

Kernel choose_kernel() {
#ifdef NUFFTMP_MATCH_X86
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq"))
    return {12, 32, task_avx512, "avx512"};
  if (avx2) return {6, 16, task_avx2, "avx2"};
#endif
  return {4, 8, task_generic, "generic"};
}

const Kernel& kernel() {
  static const Kernel k = choose_kernel();
  return k;
}

}  // namespace

const char* cross_products_isa() { return kernel().isa; }

void cross_products(const float* images, std::int64_t ni, const float* refs, std::int64_t nr,
                    std::int64_t npix, double* cross) {
  if (ni <= 0 || nr <= 0) return;
  const Kernel& kn = kernel();
  const std::int64_t rb = kn.rb, npanel = (nr + rb - 1) / rb;
  std::vector<float> panels(static_cast<std::size_t>(npanel * npix * rb));
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < npanel; ++k) {
    float* panel = panels.data() + k * npix * rb;
    for (std::int64_t l = 0; l < rb; ++l) {
      const std::int64_t r = k * rb + l;
      for (std::int64_t p = 0; p < npix; ++p) panel[p * rb + l] = r < nr ? refs[r * npix + p] : 0.0f;
    }
  }
  const Problem pb{images, ni, nr, npix, panels.data(), cross};
  const std::int64_t group = kGroupTiles * kn.ib, ngroup = (ni + group - 1) / group;
  // Groups inner: neighbouring threads share a panel (in L3) while their images differ.
#pragma omp parallel for collapse(2) schedule(dynamic)
  for (std::int64_t k = 0; k < npanel; ++k)
    for (std::int64_t g = 0; g < ngroup; ++g)
      kn.task(pb, k, g * group, std::min(ni, (g + 1) * group));
}

}  // namespace nufftmp::mtip::detail
