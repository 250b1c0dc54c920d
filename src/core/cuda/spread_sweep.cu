// Type 1 sweep (1D/2D, float and double; the picture is in sweep_layout.hpp): a block per
// subproblem, a warp per 32-column strip of the bin's tile, lane = tile column. In 2D the points
// are counting-sorted by first stencil row; the warp keeps the W tile rows of the current row
// bucket in registers (one complex value per row per lane) and adds each staged point's
// contribution - 2 W fused multiply-adds per lane: the point's x value at the lane's column
// times its strength and its W y values. Moving on to the next bucket finishes the top row: one
// coalesced atomic per non-zero cell to the fine grid. So there are no shared-memory atomics
// (Hopper has none for float or double adds: compare-and-swap loops, PERFORMANCE.md), no
// barrier between points and no shared tile; each fine-grid cell of the tile gets one global
// atomic per subproblem, as with a flushed tile.
#include "cuda/tu_instance.hpp"
#include "cuda/sweep_common.cuh"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D, typename P>
__global__ void __launch_bounds__(256) spread_sweep_kernel(P pts, GridView grid,
                                                           BinView bins, TileView tile,
                                                           KernelCoeffs<T> kc,
                                                           const Subproblem* subs, int maxsub,
                                                           const cplx<T>* c, cplx<T>* fw) {
  constexpr int WR = D == 2 ? W : 1;  // tile rows held per lane
  extern __shared__ __align__(16) unsigned char smem_raw[];
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  const SweepShared<T> sh(smem_raw, sweep_layout(1, D, W, sizeof(T), tile, maxsub), 1, D, maxsub);
  const int nb = sweep_buckets(D, W, tile);
  if constexpr (D == 2) sort_by_row<W>(pts, sub, origin, nb, sh);
  else count_loads_1d<W>(pts, sub, origin, sh);
  const StripWork work = assign_strips(sh.load, sweep_strips(tile));
  if (work.strip < 0) return;  // warp-uniform; no barrier follows
  const int lane = threadIdx.x & 31;
  const int x = work.strip * kSweepStripCols + lane;
  const bool col = x < tile.width[0];
  const std::int64_t gx = wrap_tile(origin[0] + x, grid.nf[0]);
  T wr[WR], wi[WR];
#pragma unroll
  for (int r = 0; r < WR; ++r) wr[r] = wi[r] = T(0);
  auto flush = [&](int row, T re, T im) {
    if (col && (re != T(0) || im != T(0)))
      atomic_add_cplx(fw + sweep_row_offset<D>(grid, origin, row) + gx, re, im);
  };
  auto extra = [&](int slot, int, std::int64_t i) { sh.warp.c[slot] = c[user_index<D>(pts, i)]; };
  auto process = [&](int nq) {
#pragma unroll 4
    for (int q = 0; q < nq; ++q) {  // unrolled: the next points' loads issue early
      const T kxv = staged_kx<W>(sh, q, x);
      const cplx<T> cq = sh.warp.c[q];
      const T re = cq.x * kxv, im = cq.y * kxv;
      if constexpr (D == 2) {
        T ky[W];
        load_row<W>(sh.warp.ky + q * sh.kys, ky);
#pragma unroll
        for (int r = 0; r < W; ++r) {
          wr[r] = fma(re, ky[r], wr[r]);
          wi[r] = fma(im, ky[r], wi[r]);
        }
      } else {
        wr[0] += re;
        wi[0] += im;
      }
    }
  };
  if constexpr (D == 2) {
    for (int b = 0; b < nb; ++b) {
      sweep_bucket<W, D>(
          kc, pts, sub, sh, work, sh.cnt[b], sh.cnt[b + 1], [&](int j) { return int(sh.ox[j]); },
          [&](int j) { return int(sh.idx[j]); }, extra, process);
      flush(b, wr[0], wi[0]);  // no later bucket reaches row b
#pragma unroll
      for (int r = 0; r + 1 < W; ++r) {
        wr[r] = wr[r + 1];
        wi[r] = wi[r + 1];
      }
      wr[W - 1] = wi[W - 1] = T(0);
    }
#pragma unroll
    for (int r = 0; r + 1 < W; ++r) flush(nb + r, wr[r], wi[r]);
  } else {
    sweep_bucket<W, D>(
        kc, pts, sub, sh, work, 0, sub.count,
        [&](int j) { return point_at<D>(pts, sub.start + j).i0[0] - origin[0]; },
        [](int j) { return j; },
        extra, process);
    flush(0, wr[0], wi[0]);
  }
}

}  // namespace

template <typename T, int Dim>
void spread_sweep_dim(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  launch_sweep<Dim>(1, "spread_sweep_kernel", a, k,
               [](auto W, auto D, auto P) {
                 return spread_sweep_kernel<T, W.value, D.value, decltype(P)>;
               },
               as_const_cplx(a.c), as_cplx(a.fw));
}

NUFFTMP_INSTANTIATE_LAUNCH(spread_sweep_dim);

}  // namespace nufftmp::detail
