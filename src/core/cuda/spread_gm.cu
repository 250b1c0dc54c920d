// GM and GM-sort spreading: one thread per point (in processing order: user order for GM,
// bin-sorted for GM-sort), the w^d stencil added to the fine grid with global atomics.
#include "cuda/cuda_check.hpp"
#include "cuda/kernel_common.cuh"
#include "cuda/launch.hpp"
#include "cuda/point_grid.hpp"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D>
__global__ void __launch_bounds__(256) spread_gm_kernel(PointsView<T> pts, GridView grid,
                                                        KernelCoeffs<T> kc, const cplx<T>* c,
                                                        cplx<T>* fw) {
  const int v = blockIdx.y;
  c += std::int64_t(v) * pts.M;
  fw += std::int64_t(v) * grid.total;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pts.M;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j = pts.perm ? pts.perm[i] : i;
    const cplx<T> cv = c[j];
    T k[D][W];
    int idx[D][W];
#pragma unroll
    for (int d = 0; d < D; ++d) {
      eval_kernel<W>(kc, pts.s[d][i], k[d]);
      const int i0 = pts.i0[d][i];
#pragma unroll
      for (int t = 0; t < W; ++t) idx[d][t] = wrap_once(i0 + t, grid.nf[d]);
    }
    if constexpr (D == 1) {
#pragma unroll
      for (int dx = 0; dx < W; ++dx)
        atomic_add_cplx(fw + idx[0][dx], cv.x * k[0][dx], cv.y * k[0][dx]);
    } else {
      for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
        const T kz = D == 3 ? k[D - 1][dz] : T(1);
        const std::int64_t zoff =
            D == 3 ? std::int64_t(idx[D - 1][dz]) * grid.nf[0] * grid.nf[1] : 0;
        for (int dy = 0; dy < W; ++dy) {
          const T wy = k[1][dy] * kz;
          const T re = cv.x * wy, im = cv.y * wy;
          cplx<T>* row = fw + zoff + std::int64_t(idx[1][dy]) * grid.nf[0];
#pragma unroll
          for (int dx = 0; dx < W; ++dx) atomic_add_cplx(row + idx[0][dx], re * k[0][dx], im * k[0][dx]);
        }
      }
    }
  }
}

}  // namespace

template <typename T>
void spread_gm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0) return;
  const int threads = 256;
  dispatch_width_dim<T>(a.w, a.dim, [&](auto W, auto D) {
    spread_gm_kernel<T, W.value, D.value><<<point_grid(a.pts.M, a.nvec, threads), threads, 0,
                                            a.stream>>>(
        a.pts, a.grid, k, reinterpret_cast<const cplx<T>*>(a.c), reinterpret_cast<cplx<T>*>(a.fw));
    NUFFTMP_CUDA_CHECK_LAUNCH("spread_gm_kernel");
  });
}

template void spread_gm<float>(const SpreadLaunch<float>&, const KernelCoeffs<float>&);
template void spread_gm<double>(const SpreadLaunch<double>&, const KernelCoeffs<double>&);

}  // namespace nufftmp::detail
