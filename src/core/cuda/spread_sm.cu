// SM spreading: one block per subproblem (at most maxsubprobsize sorted points of one bin),
// one thread per point adding its stencil into a shared-memory tile with shared atomics, then
// one global atomic per tile cell. What keeps clustered points fast.
#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D>
__global__ void __launch_bounds__(256) spread_sm_kernel(PointsView<T> pts, GridView grid,
                                                        BinView bins, TileView tile,
                                                        KernelCoeffs<T> kc,
                                                        const Subproblem* subs,
                                                        const cplx<T>* c, cplx<T>* fw) {
  extern __shared__ unsigned char smem_raw[];
  T* re = reinterpret_cast<T*>(smem_raw);
  T* im = re + tile.cells;
  const int v = blockIdx.y;
  c += std::int64_t(v) * pts.M;
  fw += std::int64_t(v) * grid.total;
  const Subproblem sub = subs[blockIdx.x];
  int origin[3];
  tile_origin<D>(bins, tile, sub.bin, origin);
  tile_zero(re, im, tile.cells);
  __syncthreads();
  for (int p = threadIdx.x; p < sub.count; p += blockDim.x) {
    const std::int64_t i = sub.start + p;
    const cplx<T> cv = c[pts.perm[i]];
    T k[D][W];
    int l0[3] = {0, 0, 0};
#pragma unroll
    for (int d = 0; d < D; ++d) {
      eval_kernel<W>(kc, pts.s[d][i], k[d]);
      l0[d] = pts.i0[d][i] - origin[d];
    }
    for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
      const T kz = D == 3 ? k[D - 1][dz] : T(1);
      for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy) {
        const T wy = (D >= 2 ? k[1][dy] : T(1)) * kz;
        const T r = cv.x * wy, m = cv.y * wy;
        const int base = l0[0] + tile.stride0 * (l0[1] + dy + tile.width[1] * (l0[2] + dz));
#pragma unroll
        for (int dx = 0; dx < W; ++dx) {
          atomicAdd(re + base + dx, r * k[0][dx]);
          atomicAdd(im + base + dx, m * k[0][dx]);
        }
      }
    }
  }
  __syncthreads();
  tile_flush<T, D>(re, im, tile, origin, grid, fw);
}

}  // namespace

template <typename T>
std::size_t spread_sm_shared_bytes(int dim, int w, const BinView& bins) {
  return 2 * sizeof(T) * static_cast<std::size_t>(make_tile(dim, w, bins).cells);
}

template <typename T>
void spread_sm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const TileView tile = make_tile(a.dim, a.w, a.bins);
  const std::size_t shmem = spread_sm_shared_bytes<T>(a.dim, a.w, a.bins);
  const int threads = a.threads > 0 ? a.threads : 256;
  dispatch_width_dim<T>(a.w, a.dim, [&](auto W, auto D) {
    auto kernel = spread_sm_kernel<T, W.value, D.value>;
    NUFFTMP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(shmem)));
    kernel<<<dim3(static_cast<unsigned>(a.num_subs), a.nvec), threads, shmem, a.stream>>>(
        a.pts, a.grid, a.bins, tile, k, a.subs, reinterpret_cast<const cplx<T>*>(a.c),
        reinterpret_cast<cplx<T>*>(a.fw));
    NUFFTMP_CUDA_CHECK_LAUNCH("spread_sm_kernel");
  });
}

template std::size_t spread_sm_shared_bytes<float>(int, int, const BinView&);
template std::size_t spread_sm_shared_bytes<double>(int, int, const BinView&);
template void spread_sm<float>(const SpreadLaunch<float>&, const KernelCoeffs<float>&);
template void spread_sm<double>(const SpreadLaunch<double>&, const KernelCoeffs<double>&);

}  // namespace nufftmp::detail
