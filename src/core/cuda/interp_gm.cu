// Type 2 interpolation, GM(-sort): one thread per point in processing order gathers its w^d
// stencil through the read-only cache (sorted points: neighbouring threads share cache lines).
#include "cuda/launch_common.cuh"
#include "cuda/tu_instance.hpp"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D, typename P>
__global__ void __launch_bounds__(256) interp_gm_kernel(P pts, GridView grid,
                                                        KernelCoeffs<T> kc, const cplx<T>* fw,
                                                        cplx<T>* c) {
  select_vector(c, pts.M, fw, grid.total);
  for_each_point(pts.M, [&](std::int64_t i) {
    T k[D][W];
    int idx[D][W];
    point_stencil<W, D>(kc, point_at<D>(pts, i), grid, k, idx);
    // The user index read after the gather, not held across it (registers).
    c[user_index<D>(pts, i)] = gather_stencil<W, D>(k, [&](int dz, int dy) {
      const std::int64_t zoff =
          D == 3 ? std::int64_t(idx[D - 1][dz]) * grid.nf[0] * grid.nf[1] : 0;
      const std::int64_t yoff = D >= 2 ? std::int64_t(idx[D >= 2 ? 1 : 0][dy]) * grid.nf[0] : 0;
      const cplx<T>* row = fw + zoff + yoff;
      return [=, &idx](int dx) { return __ldg(row + idx[0][dx]); };
    });
  });
}

}  // namespace

template <typename T, int Dim>
void interp_gm_dim(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0) return;
  dispatch_kernel<T, Dim>(a.w, a.pts, [&](auto W, auto D, auto P) {
    launch_per_point(interp_gm_kernel<T, W.value, D.value, decltype(P)>, "interp_gm_kernel", a,
                     a.pts, a.grid, k, as_const_cplx(a.fw), as_cplx(a.c));
  });
}

NUFFTMP_INSTANTIATE_LAUNCH(interp_gm_dim);

}  // namespace nufftmp::detail
