// Type 2 interpolation, SM: one block per subproblem stages the bin's tile in shared memory
// first, then gathers the stencils from it. Two gathers here, chosen by the heuristics from
// H200 measurements (PERFORMANCE.md, 2026-11-29): lane groups (lane_group.cuh: W lanes per
// point, one per stencil column; double P6 2.47 ms against 3.33 ms) - a double stencil row is
// twice the bytes and w is larger, so contiguous row segments pay; one thread per point for
// float (P2 3.52 against 3.92 ms, P4 1.46 against 2.39 ms with groups: at w = 6 the group's
// shuffles and per-lane kernel evaluation cost more than the bank conflicts they save). Both
// read an interleaved tile (one 8- or 16-byte load per cell, not one per plane). Two more
// variants have files of their own: interp_dealt.cu, interp_sweep.cu.
#include "cuda/tu_instance.hpp"
#include "cuda/lane_group.cuh"
#include "cuda/launch_common.cuh"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D, typename P>
__global__ void __launch_bounds__(256) interp_sm_group_kernel(P pts, GridView grid,
                                                        BinView bins, TileView tile,
                                                        KernelCoeffs<T> kc,
                                                        const Subproblem* subs,
                                                        const cplx<T>* fw, cplx<T>* c) {
  extern __shared__ unsigned char smem_raw[];
  cplx<T>* cells = reinterpret_cast<cplx<T>*>(smem_raw);  // interleaved: one load per cell
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  const LaneGroup<W> g;
  TapCoeffs<T> tc;
  tc.template load<W>(kc, g.dx);
  for_each_tile_cell<D>(tile, origin, grid,
                        [&](int s, auto global) { cells[s] = __ldg(fw + global()); });
  __syncthreads();
  const int rowz = tile.stride0 * tile.width[1];
  for_each_point_by_group(g, sub.count, threadIdx.x >> 5, blockDim.x >> 5,
                          [&](std::int64_t p, bool active) {
    const std::int64_t i = sub.start + p;
    PointAt<T, D> pt{};
    if (active) pt = point_at<D>(pts, i);
    T tap[3];
    group_taps<D>(tc, pt, active, tap);
    int b = 0;
    if (active) {
      b = pt.i0[0] - origin[0] + g.dx;
      if (D >= 2) b += tile.stride0 * (pt.i0[D >= 2 ? 1 : 0] - origin[1]);
      if (D == 3) b += rowz * (pt.i0[D - 1] - origin[2]);
    }
    const cplx<T> v = group_gather<W, D>(g, active, tap, [&](int dz, int dy) {
      return cells[b + rowz * dz + tile.stride0 * dy];
    });
    if (active && g.dx == 0) c[user_index<D>(pts, i)] = v;  // read late: registers
  });
}

template <typename T, int W, int D, typename P>
__global__ void __launch_bounds__(256) interp_sm_thread_kernel(P pts, GridView grid,
                                                               BinView bins, TileView tile,
                                                               KernelCoeffs<T> kc,
                                                               const Subproblem* subs,
                                                               const cplx<T>* fw, cplx<T>* c) {
  extern __shared__ unsigned char smem_raw[];
  cplx<T>* cells = reinterpret_cast<cplx<T>*>(smem_raw);  // interleaved: one load per cell
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  for_each_tile_cell<D>(tile, origin, grid,
                        [&](int s, auto global) { cells[s] = __ldg(fw + global()); });
  __syncthreads();
  for (int p = threadIdx.x; p < sub.count; p += blockDim.x) {
    const std::int64_t i = sub.start + p;
    T k[D][W];
    int l0[3];
    point_in_tile<W, D>(kc, point_at<D>(pts, i), origin, k, l0);
    // The user index read after the gather, not held across it (registers).
    c[user_index<D>(pts, i)] = gather_stencil<W, D>(k, [&](int dz, int dy) {
      const int b = l0[0] + tile.stride0 * (l0[1] + dy + tile.width[1] * (l0[2] + dz));
      return [=](int dx) { return cells[b + dx]; };
    });
  }
}

}  // namespace

// The variant (heuristics.cpp) picks the gather: Thread, Group, or the kernels of
// interp_dealt.cu and interp_sweep.cu.
template <typename T, int Dim>
void interp_sm_dim(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.variant == KernelVariant::Dealt) return interp_dealt_dim<T, Dim>(a, k);
  if (a.variant == KernelVariant::Sweep) {
    if constexpr (Dim <= 2) return interp_sweep_dim<T, Dim>(a, k);
    throw Error(ErrorCode::Internal, "the sweep gather is built for 1D and 2D only");
  }
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const std::size_t shmem = sm_tile_shared_bytes<T>(a.dim, a.w, a.bins);
  const bool groups = a.variant == KernelVariant::Group;
  dispatch_kernel<T, Dim>(a.w, a.pts, [&](auto W, auto D, auto P) {
    using Pts = decltype(P);
    if (groups)
      launch_per_subproblem(interp_sm_group_kernel<T, W.value, D.value, Pts>,
                            "interp_sm_group_kernel", a, k, shmem, as_const_cplx(a.fw),
                            as_cplx(a.c));
    else
      launch_per_subproblem(interp_sm_thread_kernel<T, W.value, D.value, Pts>,
                            "interp_sm_thread_kernel", a, k, shmem, as_const_cplx(a.fw),
                            as_cplx(a.c));
  });
}

NUFFTMP_INSTANTIATE_LAUNCH(interp_sm_dim);

}  // namespace nufftmp::detail
