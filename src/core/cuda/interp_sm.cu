// Type 2 interpolation, SM: one block per subproblem stages the bin's tile in shared memory
// first, then each thread gathers the stencil of one point from it.
#include "cuda/launch_common.cuh"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D>
__global__ void __launch_bounds__(256) interp_sm_kernel(PointsView<T> pts, GridView grid,
                                                        BinView bins, TileView tile,
                                                        KernelCoeffs<T> kc,
                                                        const Subproblem* subs,
                                                        const cplx<T>* fw, cplx<T>* c) {
  extern __shared__ unsigned char smem_raw[];
  T* re = reinterpret_cast<T*>(smem_raw);
  T* im = re + tile.cells;
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  for_each_tile_cell<D>(tile, origin, grid, [&](int s, auto global) {
    const cplx<T> val = __ldg(fw + global());
    re[s] = val.x;
    im[s] = val.y;
  });
  __syncthreads();
  for (int p = threadIdx.x; p < sub.count; p += blockDim.x) {
    const std::int64_t i = sub.start + p;
    T k[D][W];
    int l0[3];
    point_in_tile<W, D>(kc, pts, i, origin, k, l0);
    c[pts.perm[i]] = gather_stencil<W, D>(k, [&](int dz, int dy) {
      const int b = l0[0] + tile.stride0 * (l0[1] + dy + tile.width[1] * (l0[2] + dz));
      return [=](int dx) {
        cplx<T> v;
        v.x = re[b + dx];
        v.y = im[b + dx];
        return v;
      };
    });
  }
}

}  // namespace

template <typename T>
void interp_sm(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const std::size_t shmem = sm_tile_shared_bytes<T>(a.dim, a.w, a.bins);
  dispatch_width_dim<T>(a.w, a.dim, [&](auto W, auto D) {
    launch_per_subproblem(interp_sm_kernel<T, W.value, D.value>, "interp_sm_kernel", a, k, shmem,
                          as_const_cplx(a.fw), as_cplx(a.c));
  });
}

template void interp_sm<float>(const SpreadLaunch<float>&, const KernelCoeffs<float>&);
template void interp_sm<double>(const SpreadLaunch<double>&, const KernelCoeffs<double>&);

}  // namespace nufftmp::detail
