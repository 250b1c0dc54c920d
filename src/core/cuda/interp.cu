// Type 2 interpolation. GM(-sort): one thread per point in processing order gathers its w^d
// stencil through the read-only cache (sorted points: neighbouring threads share cache lines).
// SM: one block per subproblem stages the bin's tile in shared memory first, then gathers.
#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"
#include "cuda/point_grid.hpp"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D>
__global__ void __launch_bounds__(256) interp_gm_kernel(PointsView<T> pts, GridView grid,
                                                        KernelCoeffs<T> kc, const cplx<T>* fw,
                                                        cplx<T>* c) {
  const int v = blockIdx.y;
  c += std::int64_t(v) * pts.M;
  fw += std::int64_t(v) * grid.total;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < pts.M;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    T k[D][W];
    int idx[D][W];
#pragma unroll
    for (int d = 0; d < D; ++d) {
      eval_kernel<W>(kc, pts.s[d][i], k[d]);
      const int i0 = pts.i0[d][i];
#pragma unroll
      for (int t = 0; t < W; ++t) idx[d][t] = wrap_once(i0 + t, grid.nf[d]);
    }
    T re = 0, im = 0;
    for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
      const std::int64_t zoff =
          D == 3 ? std::int64_t(idx[D - 1][dz]) * grid.nf[0] * grid.nf[1] : 0;
      T rz = 0, iz = 0;
      for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy) {
        const cplx<T>* row = fw + zoff + (D >= 2 ? std::int64_t(idx[1][dy]) * grid.nf[0] : 0);
        T ry = 0, iy = 0;
#pragma unroll
        for (int dx = 0; dx < W; ++dx) {
          const cplx<T> g = __ldg(row + idx[0][dx]);
          ry = fma(g.x, k[0][dx], ry);
          iy = fma(g.y, k[0][dx], iy);
        }
        const T ky = D >= 2 ? k[1][dy] : T(1);
        rz = fma(ry, ky, rz);
        iz = fma(iy, ky, iz);
      }
      const T kz = D == 3 ? k[D - 1][dz] : T(1);
      re = fma(rz, kz, re);
      im = fma(iz, kz, im);
    }
    const std::int64_t j = pts.perm ? pts.perm[i] : i;
    cplx<T> out;
    out.x = re;
    out.y = im;
    c[j] = out;
  }
}

template <typename T, int W, int D>
__global__ void __launch_bounds__(256) interp_sm_kernel(PointsView<T> pts, GridView grid,
                                                        BinView bins, TileView tile,
                                                        KernelCoeffs<T> kc,
                                                        const Subproblem* subs,
                                                        const cplx<T>* fw, cplx<T>* c) {
  extern __shared__ unsigned char smem_raw[];
  T* re = reinterpret_cast<T*>(smem_raw);
  T* im = re + tile.cells;
  const int v = blockIdx.y;
  c += std::int64_t(v) * pts.M;
  fw += std::int64_t(v) * grid.total;
  const Subproblem sub = subs[blockIdx.x];
  int origin[3];
  tile_origin<D>(bins, tile, sub.bin, origin);
  const int w0 = tile.width[0], w1 = tile.width[1];
  const int n = tile.width[0] * tile.width[1] * tile.width[2];
  for (int t = threadIdx.x; t < n; t += blockDim.x) {
    const int tx = t % w0;
    const int ty = D >= 2 ? (t / w0) % w1 : 0;
    const int tz = D == 3 ? t / (w0 * w1) : 0;
    std::int64_t g = wrap_tile(origin[0] + tx, grid.nf[0]);
    if (D >= 2) g += std::int64_t(grid.nf[0]) * wrap_tile(origin[1] + ty, grid.nf[1]);
    if (D == 3)
      g += std::int64_t(grid.nf[0]) * grid.nf[1] * wrap_tile(origin[2] + tz, grid.nf[2]);
    const cplx<T> val = __ldg(fw + g);
    const int s = tx + tile.stride0 * (ty + w1 * tz);
    re[s] = val.x;
    im[s] = val.y;
  }
  __syncthreads();
  for (int p = threadIdx.x; p < sub.count; p += blockDim.x) {
    const std::int64_t i = sub.start + p;
    T k[D][W];
    int l0[3] = {0, 0, 0};
#pragma unroll
    for (int d = 0; d < D; ++d) {
      eval_kernel<W>(kc, pts.s[d][i], k[d]);
      l0[d] = pts.i0[d][i] - origin[d];
    }
    T sr = 0, si = 0;
    for (int dz = 0; dz < (D == 3 ? W : 1); ++dz) {
      T rz = 0, iz = 0;
      for (int dy = 0; dy < (D >= 2 ? W : 1); ++dy) {
        const int b = l0[0] + tile.stride0 * (l0[1] + dy + w1 * (l0[2] + dz));
        T ry = 0, iy = 0;
#pragma unroll
        for (int dx = 0; dx < W; ++dx) {
          ry = fma(re[b + dx], k[0][dx], ry);
          iy = fma(im[b + dx], k[0][dx], iy);
        }
        const T ky = D >= 2 ? k[1][dy] : T(1);
        rz = fma(ry, ky, rz);
        iz = fma(iy, ky, iz);
      }
      const T kz = D == 3 ? k[D - 1][dz] : T(1);
      sr = fma(rz, kz, sr);
      si = fma(iz, kz, si);
    }
    cplx<T> out;
    out.x = sr;
    out.y = si;
    c[pts.perm[i]] = out;
  }
}

}  // namespace

template <typename T>
void interp_gm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0) return;
  const int threads = 256;
  dispatch_width_dim<T>(a.w, a.dim, [&](auto W, auto D) {
    interp_gm_kernel<T, W.value, D.value><<<point_grid(a.pts.M, a.nvec, threads), threads, 0,
                                            a.stream>>>(
        a.pts, a.grid, k, reinterpret_cast<const cplx<T>*>(a.fw), reinterpret_cast<cplx<T>*>(a.c));
    NUFFTMP_CUDA_CHECK_LAUNCH("interp_gm_kernel");
  });
}

template <typename T>
std::size_t interp_sm_shared_bytes(int dim, int w, const BinView& bins) {
  return 2 * sizeof(T) * static_cast<std::size_t>(make_tile(dim, w, bins).cells);
}

template <typename T>
void interp_sm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const TileView tile = make_tile(a.dim, a.w, a.bins);
  const std::size_t shmem = interp_sm_shared_bytes<T>(a.dim, a.w, a.bins);
  const int threads = a.threads > 0 ? a.threads : 256;
  dispatch_width_dim<T>(a.w, a.dim, [&](auto W, auto D) {
    auto kernel = interp_sm_kernel<T, W.value, D.value>;
    NUFFTMP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(shmem)));
    kernel<<<dim3(static_cast<unsigned>(a.num_subs), a.nvec), threads, shmem, a.stream>>>(
        a.pts, a.grid, a.bins, tile, k, a.subs, reinterpret_cast<const cplx<T>*>(a.fw),
        reinterpret_cast<cplx<T>*>(a.c));
    NUFFTMP_CUDA_CHECK_LAUNCH("interp_sm_kernel");
  });
}

template void interp_gm<float>(const SpreadLaunch<float>&, const KernelCoeffs<float>&);
template void interp_gm<double>(const SpreadLaunch<double>&, const KernelCoeffs<double>&);
template std::size_t interp_sm_shared_bytes<float>(int, int, const BinView&);
template std::size_t interp_sm_shared_bytes<double>(int, int, const BinView&);
template void interp_sm<float>(const SpreadLaunch<float>&, const KernelCoeffs<float>&);
template void interp_sm<double>(const SpreadLaunch<double>&, const KernelCoeffs<double>&);

}  // namespace nufftmp::detail
