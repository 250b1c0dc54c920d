// Type 2 sweep (1D/2D, float and double; the picture is in sweep_layout.hpp), the transpose of
// spread_sweep.cu: a block per subproblem, a warp per 32-column strip of the bin's tile, lane =
// tile column, the subproblem's points counting-sorted by first stencil row (2D). The lane
// holds the W fine-grid rows of the current row bucket at its column in registers, read once
// per subproblem straight from the fine grid (coalesced rows, the next row loaded one bucket
// ahead): no shared tile. For each staged point the lane forms its column's sum over the
// point's W rows (2 W fused multiply-adds) times the point's x value at the lane's column; a
// group of G points is then summed over the warp by a reduce-scatter (G - 1 + 5 - log2 G
// shuffles per component instead of 5 G). A stencil reaches at most two strips: each writes
// its partial sum to its own slot, and a last pass adds them and writes c.
#include "cuda/tu_instance.hpp"
#include "cuda/sweep_common.cuh"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D, typename P>
__global__ void __launch_bounds__(256) interp_sweep_kernel(P pts, GridView grid,
                                                           BinView bins, TileView tile,
                                                           KernelCoeffs<T> kc,
                                                           const Subproblem* subs, int maxsub,
                                                           const cplx<T>* fw, cplx<T>* c) {
  constexpr int WR = D == 2 ? W : 1;           // fine-grid rows held per lane
  constexpr int G = sizeof(T) == 4 ? 8 : 4;    // points per reduce-scatter (registers)
  extern __shared__ __align__(16) unsigned char smem_raw[];
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  const SweepShared<T> sh(smem_raw, sweep_layout(2, D, W, sizeof(T), tile, maxsub), 2, D, maxsub);
  cplx<T>* const part_first = sh.part;          // from the strip of the stencil's first column
  cplx<T>* const part_next = sh.part + maxsub;  // from the next strip, when the stencil reaches it
  const int nb = sweep_buckets(D, W, tile);
  if constexpr (D == 2) sort_by_row<W>(pts, sub, origin, nb, sh);
  else count_loads_1d<W>(pts, sub, origin, sh);
  const StripWork work = assign_strips(sh.load, sweep_strips(tile));
  const int lane = threadIdx.x & 31;
  const int x0 = work.strip * kSweepStripCols;
  const int x = x0 + lane;
  const bool col = work.strip >= 0 && x < tile.width[0];
  const std::int64_t gx = wrap_tile(origin[0] + x, grid.nf[0]);
  auto grid_value = [&](int row) {
    cplx<T> v;
    v.x = v.y = T(0);
    if (col && row < tile.width[1]) v = __ldg(fw + sweep_row_offset<D>(grid, origin, row) + gx);
    return v;
  };
  cplx<T> win[WR];
#pragma unroll
  for (int r = 0; r < WR; ++r) win[r] = grid_value(r);
  cplx<T> next = D == 2 ? grid_value(WR) : win[0];
  auto extra = [&](int slot, int j, std::int64_t) { sh.warp.pos[slot] = j; };
  auto process = [&](int nq) {
    for (int g0 = 0; g0 < nq; g0 += G) {
      T ar[G], ai[G];
#pragma unroll
      for (int u = 0; u < G; ++u) {
        const int q = g0 + u;
        ar[u] = ai[u] = T(0);
        if (q < nq) {
          T sr = win[0].x, si = win[0].y;
          if constexpr (D == 2) {
            T ky[W];
            load_row<W>(sh.warp.ky + q * sh.kys, ky);
            sr = T(0);
            si = T(0);
#pragma unroll
            for (int r = 0; r < W; ++r) {
              sr = fma(win[r].x, ky[r], sr);
              si = fma(win[r].y, ky[r], si);
            }
          }
          const T kxv = staged_kx<W>(sh, q, x);
          ar[u] = sr * kxv;
          ai[u] = si * kxv;
        }
      }
      const T tr = reduce_scatter<G>(ar), ti = reduce_scatter<G>(ai);
      const int q = g0 + reduce_scatter_slot<G>(lane);
      if ((lane & (32 / G - 1)) == 0 && q < nq) {
        cplx<T> v;
        v.x = tr;
        v.y = ti;
        (sh.warp.ox[q] >= x0 ? part_first : part_next)[sh.warp.pos[q]] = v;
      }
    }
  };
  if (work.strip < 0) {
    // No strip for this warp (warp-uniform): on to the block's last pass.
  } else if constexpr (D == 2) {
    for (int b = 0; b < nb; ++b) {
      sweep_bucket<W, D>(
          kc, pts, sub, sh, work, sh.cnt[b], sh.cnt[b + 1], [&](int j) { return int(sh.ox[j]); },
          [&](int j) { return int(sh.idx[j]); }, extra, process);
#pragma unroll
      for (int r = 0; r + 1 < W; ++r) win[r] = win[r + 1];
      win[W - 1] = next;
      next = grid_value(b + 1 + W);
    }
  } else {
    sweep_bucket<W, D>(
        kc, pts, sub, sh, work, 0, sub.count,
        [&](int j) { return point_at<D>(pts, sub.start + j).i0[0] - origin[0]; },
        [](int j) { return j; },
        extra, process);
  }
  (void)next;
  __syncthreads();
  for (int j = threadIdx.x; j < sub.count; j += blockDim.x) {
    const int ox = D == 2 ? int(sh.ox[j]) : point_at<D>(pts, sub.start + j).i0[0] - origin[0];
    const int p = D == 2 ? int(sh.idx[j]) : j;
    cplx<T> v = part_first[j];
    if (ox >= 0 && (ox >> 5) != ((ox + W - 1) >> 5)) {
      const cplx<T> u = part_next[j];
      v.x += u.x;
      v.y += u.y;
    }
    c[user_index<D>(pts, sub.start + p)] = v;
  }
}

}  // namespace

template <typename T, int Dim>
void interp_sweep_dim(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  launch_sweep<Dim>(2, "interp_sweep_kernel", a, k,
               [](auto W, auto D, auto P) {
                 return interp_sweep_kernel<T, W.value, D.value, decltype(P)>;
               },
               as_const_cplx(a.fw), as_cplx(a.c));
}

NUFFTMP_INSTANTIATE_LAUNCH(interp_sweep_dim);

}  // namespace nufftmp::detail
