// GM and GM-sort spreading: one thread per point (in processing order: user order for GM,
// bin-sorted for GM-sort), the w^d stencil added to the fine grid with global atomics.
#include "cuda/launch_common.cuh"
#include "cuda/tu_instance.hpp"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D, typename P>
__global__ void __launch_bounds__(256) spread_gm_kernel(P pts, GridView grid,
                                                        KernelCoeffs<T> kc, const cplx<T>* c,
                                                        cplx<T>* fw) {
  select_vector(c, pts.M, fw, grid.total);
  for_each_point(pts.M, [&](std::int64_t i) {
    const cplx<T> cv = c[user_index<D>(pts, i)];
    T k[D][W];
    int idx[D][W];
    point_stencil<W, D>(kc, point_at<D>(pts, i), grid, k, idx);
    scatter_stencil<W, D>(k, cv, [&](int dz, int dy) {
      const std::int64_t zoff =
          D == 3 ? std::int64_t(idx[D - 1][dz]) * grid.nf[0] * grid.nf[1] : 0;
      const std::int64_t yoff = D >= 2 ? std::int64_t(idx[D >= 2 ? 1 : 0][dy]) * grid.nf[0] : 0;
      cplx<T>* row = fw + zoff + yoff;
      return [=, &idx](int dx, T re, T im) { atomic_add_cplx(row + idx[0][dx], re, im); };
    });
  });
}

}  // namespace

template <typename T, int Dim>
void spread_gm_dim(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0) return;
  dispatch_kernel<T, Dim>(a.w, a.pts, [&](auto W, auto D, auto P) {
    launch_per_point(spread_gm_kernel<T, W.value, D.value, decltype(P)>, "spread_gm_kernel", a,
                     a.pts, a.grid, k, as_const_cplx(a.c), as_cplx(a.fw));
  });
}

NUFFTMP_INSTANTIATE_LAUNCH(spread_gm_dim);

}  // namespace nufftmp::detail
