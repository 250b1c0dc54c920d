// T. Chan's optimal circulant of the merge's Toeplitz kernel, one coefficient at a time, for
// the host path (merging.cpp) and the device one (gpu/merge_kernels.cu):
//   c_m = sum over s in {0,1}^3 of prod_d w(m_d, s_d) T_{m - s M},
// w(m, 0) = (M - m) / M and w(m, 1) = m / M (m in [0, M)): the Frobenius-nearest circulant of
// a (multilevel) Toeplitz matrix; it keeps T's positive definiteness. re_t(index) reads Re T
// on the L^3 lattice in FFT order (index = m mod L, x fastest; L >= 2M - 1, toeplitz_side.hpp).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define NUFFTMP_MTIP_HD __host__ __device__ __forceinline__
#else
#define NUFFTMP_MTIP_HD inline
#endif

namespace nufftmp::mtip::detail {

template <typename ReT>
NUFFTMP_MTIP_HD double chan_coefficient(std::int64_t i, std::int64_t j, std::int64_t k,
                                        std::int64_t M, std::int64_t L, const ReT& re_t) {
  const double inv = 1.0 / static_cast<double>(M);
  double sum = 0;
  for (int sk = 0; sk < 2; ++sk)
    for (int sj = 0; sj < 2; ++sj)
      for (int si = 0; si < 2; ++si) {
        const double w = (sk ? k : M - k) * inv * (sj ? j : M - j) * inv * (si ? i : M - i) * inv;
        if (w == 0) continue;
        // m - s M on the L lattice: m itself, or m - M + L (m > 0 here: w = 0 at m = 0).
        sum += w * re_t(((sk ? k - M + L : k) * L + (sj ? j - M + L : j)) * L +
                        (si ? i - M + L : i));
      }
  return sum;
}

}  // namespace nufftmp::mtip::detail
