// Output-driven spreading: a block owns one bin's tile (subproblems of a bin when it is
// crowded). Points are staged np at a time: one thread per point evaluates its kernel values
// into shared memory, then the block works on (point, stencil row) items - many points in
// flight at once, no barrier between points - each item adding one x-row of w cells with
// shared atomics on separate real/imaginary planes (odd row stride: rows of one stencil hit
// different banks). Compared with one thread per whole stencil (SM), the work per thread is
// short and even, and compared with cuFINUFFT's output-driven method there is no barrier per
// point and no idle thread.
#include "cuda/cuda_check.hpp"
#include "cuda/launch.hpp"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <int W, int D>
struct Rows {
  static constexpr int value = D == 1 ? 1 : (D == 2 ? W : W * W);
};

template <typename T, int W, int D>
__global__ void __launch_bounds__(256) spread_output_kernel(PointsView<T> pts, GridView grid,
                                                            BinView bins, TileView tile,
                                                            KernelCoeffs<T> kc,
                                                            const Subproblem* subs, int np,
                                                            const cplx<T>* c, cplx<T>* fw) {
  extern __shared__ unsigned char smem_raw[];
  T* re = reinterpret_cast<T*>(smem_raw);
  T* im = re + tile.cells;
  T* kval = im + tile.cells;               // [np][D][W]
  T* cval = kval + std::int64_t(np) * D * W;  // [np][2]
  int* base = reinterpret_cast<int*>(cval + 2 * np);  // [np]: tile offset of the stencil's first cell
  const int v = blockIdx.y;
  c += std::int64_t(v) * pts.M;
  fw += std::int64_t(v) * grid.total;
  const Subproblem sub = subs[blockIdx.x];
  int origin[3];
  tile_origin<D>(bins, tile, sub.bin, origin);
  tile_zero(re, im, tile.cells);
  constexpr int R = Rows<W, D>::value;
  for (int first = 0; first < sub.count; first += np) {
    const int n = min(np, sub.count - first);
    __syncthreads();  // tile zeroed / previous round's staging consumed
    for (int p = threadIdx.x; p < n; p += blockDim.x) {
      const std::int64_t i = sub.start + first + p;
      const cplx<T> cv = c[pts.perm[i]];
      cval[2 * p] = cv.x;
      cval[2 * p + 1] = cv.y;
      int l[3] = {0, 0, 0};
#pragma unroll
      for (int d = 0; d < D; ++d) {
        T k[W];
        eval_kernel<W>(kc, pts.s[d][i], k);
#pragma unroll
        for (int t = 0; t < W; ++t) kval[(p * D + d) * W + t] = k[t];
        l[d] = pts.i0[d][i] - origin[d];
      }
      base[p] = l[0] + tile.stride0 * (l[1] + tile.width[1] * l[2]);
    }
    __syncthreads();
    const int items = n * R;
    for (int it = threadIdx.x; it < items; it += blockDim.x) {
      const int p = it / R;
      const int r = it - p * R;
      const T* kp = kval + p * D * W;
      T wgt = T(1);
      int off = base[p];
      if constexpr (D == 2) {
        wgt = kp[W + r];
        off += r * tile.stride0;
      } else if constexpr (D == 3) {
        const int dy = r % W, dz = r / W;
        wgt = kp[W + dy] * kp[2 * W + dz];
        off += tile.stride0 * (dy + tile.width[1] * dz);
      }
      const T cr = cval[2 * p] * wgt, ci = cval[2 * p + 1] * wgt;
#pragma unroll
      for (int dx = 0; dx < W; ++dx) {
        atomicAdd(re + off + dx, cr * kp[dx]);
        atomicAdd(im + off + dx, ci * kp[dx]);
      }
    }
  }
  __syncthreads();
  tile_flush<T, D>(re, im, tile, origin, grid, fw);
}

}  // namespace

template <typename T>
std::size_t spread_output_shared_bytes(int dim, int w, const BinView& bins, int np) {
  const std::size_t tile = 2 * sizeof(T) * static_cast<std::size_t>(make_tile(dim, w, bins).cells);
  return tile + std::size_t(np) * (std::size_t(dim) * w * sizeof(T) + 2 * sizeof(T) + sizeof(int));
}

template <typename T>
void spread_output(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const TileView tile = make_tile(a.dim, a.w, a.bins);
  const int np = a.points_per_batch > 0 ? a.points_per_batch : 64;
  const std::size_t shmem = spread_output_shared_bytes<T>(a.dim, a.w, a.bins, np);
  const int threads = a.threads > 0 ? a.threads : 256;
  dispatch_width_dim<T>(a.w, a.dim, [&](auto W, auto D) {
    auto kernel = spread_output_kernel<T, W.value, D.value>;
    NUFFTMP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(shmem)));
    kernel<<<dim3(static_cast<unsigned>(a.num_subs), a.nvec), threads, shmem, a.stream>>>(
        a.pts, a.grid, a.bins, tile, k, a.subs, np, reinterpret_cast<const cplx<T>*>(a.c),
        reinterpret_cast<cplx<T>*>(a.fw));
    NUFFTMP_CUDA_CHECK_LAUNCH("spread_output_kernel");
  });
}

template std::size_t spread_output_shared_bytes<float>(int, int, const BinView&, int);
template std::size_t spread_output_shared_bytes<double>(int, int, const BinView&, int);
template void spread_output<float>(const SpreadLaunch<float>&, const KernelCoeffs<float>&);
template void spread_output<double>(const SpreadLaunch<double>&, const KernelCoeffs<double>&);

}  // namespace nufftmp::detail
