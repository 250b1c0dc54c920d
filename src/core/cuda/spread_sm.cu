// SM spreading: one block per subproblem (at most maxsubprobsize sorted points of one bin),
// one thread per point adding its stencil into a shared-memory tile with shared atomics, then
// one global atomic per tile cell. What keeps clustered points fast.
#include "cuda/launch_common.cuh"
#include "cuda/tile_common.cuh"
#include "cuda/tu_instance.hpp"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D, typename P>
__global__ void __launch_bounds__(256) spread_sm_kernel(P pts, GridView grid,
                                                        BinView bins, TileView tile,
                                                        KernelCoeffs<T> kc,
                                                        const Subproblem* subs,
                                                        const cplx<T>* c, cplx<T>* fw) {
  extern __shared__ unsigned char smem_raw[];
  T* re = reinterpret_cast<T*>(smem_raw);
  T* im = re + tile.cells;
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  tile_zero(re, im, tile.cells);
  __syncthreads();
  for (int p = threadIdx.x; p < sub.count; p += blockDim.x) {
    const std::int64_t i = sub.start + p;
    const cplx<T> cv = c[user_index<D>(pts, i)];
    T k[D][W];
    int l0[3];
    point_in_tile<W, D>(kc, point_at<D>(pts, i), origin, k, l0);
    scatter_stencil<W, D>(k, cv, [&](int dz, int dy) {
      const int base = l0[0] + tile.stride0 * (l0[1] + dy + tile.width[1] * (l0[2] + dz));
      return [=](int dx, T r, T m) {
        atomicAdd(re + base + dx, r);
        atomicAdd(im + base + dx, m);
      };
    });
  }
  __syncthreads();
  tile_flush<T, D>(re, im, tile, origin, grid, fw);
}

}  // namespace

template <typename T, int Dim>
void spread_sm_dim(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const std::size_t shmem = sm_tile_shared_bytes<T>(a.dim, a.w, a.bins);
  dispatch_kernel<T, Dim>(a.w, a.pts, [&](auto W, auto D, auto P) {
    launch_per_subproblem(spread_sm_kernel<T, W.value, D.value, decltype(P)>, "spread_sm_kernel",
                          a, k, shmem, as_const_cplx(a.c), as_cplx(a.fw));
  });
}

NUFFTMP_INSTANTIATE_LAUNCH(spread_sm_dim);

}  // namespace nufftmp::detail
