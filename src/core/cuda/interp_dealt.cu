// Type 2, SM with dealt points: the tile is staged in shared memory as in interp_sm.cu and a
// thread gathers each point's stencil, but the points are dealt to the lanes so that the lanes
// of a warp read distinct banks. A thread per point reads, at each stencil step, the cell at
// (first cell + step): the 32 lanes' banks are then set by their first cells modulo the 16
// (float) or 8 (double) complex cells of one 128-byte bank row. For random points that puts
// about 3.5 lanes of 16 on one bank pair (ncu on P2: the shared pipe at 98%, DRAM 12%); dealt,
// 16 (8) consecutive lanes hold points of 16 (8) different keys, so a float load takes the two
// wavefronts a warp's 256 bytes need (double: four), not about seven.
//
// Each round stages one point per thread: its key (first cell mod keys) and rank among the
// round's points of that key (one shared atomic per warp and key, __match_any_sync), then the
// dealt position - all first-rank points in key order, then all second-rank ones, ... - at which
// it stores its first cell, its point and its Horner arguments; the thread at a position then
// gathers that point. Three barriers per round of blockDim points.
#include "cuda/tu_instance.hpp"
#include "cuda/launch_common.cuh"
#include "cuda/sweep_common.cuh"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

namespace {

template <typename T, int W, int D, typename P>
__global__ void __launch_bounds__(256) interp_dealt_kernel(P pts, GridView grid,
                                                           BinView bins, TileView tile,
                                                           KernelCoeffs<T> kc,
                                                           const Subproblem* subs,
                                                           const cplx<T>* fw, cplx<T>* c) {
  constexpr int K = deal_keys(sizeof(T));
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const DealLayout lay = deal_layout(D, sizeof(T), tile, blockDim.x);
  cplx<T>* cells = reinterpret_cast<cplx<T>*>(smem_raw);  // interleaved: one load per cell
  int* cnt = reinterpret_cast<int*>(smem_raw + lay.cnt);
  int* st_l0 = reinterpret_cast<int*>(smem_raw + lay.l0);
  int* st_p = reinterpret_cast<int*>(smem_raw + lay.p);
  T* st_s = reinterpret_cast<T*>(smem_raw + lay.s);  // [D][blockDim]
  select_vector(c, pts.M, fw, grid.total);
  int origin[3];
  const Subproblem sub = block_subproblem<D>(subs, bins, tile, origin);
  for_each_tile_cell<D>(tile, origin, grid,
                        [&](int s, auto global) { cells[s] = __ldg(fw + global()); });
  const int lane = threadIdx.x & 31;
  const int rowz = tile.stride0 * tile.width[1];
  for (int r0 = 0; r0 < sub.count; r0 += blockDim.x) {
    if (threadIdx.x < K) cnt[threadIdx.x] = 0;
    __syncthreads();  // tile loaded (first round); counters reset
    // Rounds are warp-uniform: whole warps take part in the shuffles below.
    const int p = r0 + threadIdx.x;
    const bool in = p < sub.count;
    const std::int64_t i = sub.start + p;
    // The whole point now, its s held for the staging below: a record is read and decoded once
    // (ptxas, sm_90: reading it again there took the records kernel from 48 to 63 registers in
    // float 3D, w 6; split's stay as they were).
    PointAt<T, D> pt{};
    int l0 = 0;
    if (in) {
      pt = point_at<D>(pts, i);
      l0 = pt.i0[0] - origin[0];
      if (D >= 2) l0 += tile.stride0 * (pt.i0[D >= 2 ? 1 : 0] - origin[1]);
      if (D == 3) l0 += rowz * (pt.i0[D - 1] - origin[2]);
    }
    const int key = in ? (l0 & (K - 1)) : -1;
    const unsigned peers = __match_any_sync(0xffffffffu, key);
    const int leader = __ffs(peers) - 1;
    int first = 0;
    if (in && lane == leader) first = atomicAdd(cnt + key, __popc(peers));
    first = __shfl_sync(0xffffffffu, first, leader);
    const int rank = first + __popc(peers & lanemask_lt());
    __syncthreads();
    if (in) {
      // Points dealt before (key, rank): every point of rank < rank, and those of this rank
      // with a smaller key - per key b, min(count_b, rank + (b < key)).
      int n[K];
#pragma unroll
      for (int b = 0; b < K; b += 4) {
        const int4 v = reinterpret_cast<const int4*>(cnt)[b / 4];
        n[b] = v.x;
        n[b + 1] = v.y;
        n[b + 2] = v.z;
        n[b + 3] = v.w;
      }
      int pos = 0;
#pragma unroll
      for (int b = 0; b < K; ++b) pos += min(n[b], b < key ? rank + 1 : rank);
      st_l0[pos] = l0;
      st_p[pos] = p;
#pragma unroll
      for (int d = 0; d < D; ++d) st_s[d * blockDim.x + pos] = pt.s[d];
    }
    __syncthreads();
    if (in) {  // the round's points fill positions 0 .. (its count - 1): one per thread
      const int b = st_l0[threadIdx.x];
      const int q = st_p[threadIdx.x];
      T k[D][W];
#pragma unroll
      for (int d = 0; d < D; ++d) eval_kernel<W>(kc, st_s[d * blockDim.x + threadIdx.x], k[d]);
      c[user_index<D>(pts, sub.start + q)] = gather_stencil<W, D>(k, [&](int dz, int dy) {
        const int row = b + tile.stride0 * dy + rowz * dz;
        return [=](int dx) { return cells[row + dx]; };
      });
    }
    // The next round writes the staging only after its second barrier, which every thread
    // reaches after this gather; it resets the counters after this round's last reads of them.
  }
}

}  // namespace

template <typename T, int Dim>
void interp_dealt_dim(const SpreadLaunch<T>& a, const KernelCoeffs<T>& k) {
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const int threads = a.threads > 0 ? a.threads : 256;
  const std::size_t shmem =
      deal_layout(a.dim, sizeof(T), make_tile(a.dim, a.w, a.bins), threads).total;
  dispatch_kernel<T, Dim>(a.w, a.pts, [&](auto W, auto D, auto P) {
    launch_per_subproblem(interp_dealt_kernel<T, W.value, D.value, decltype(P)>,
                          "interp_dealt_kernel", a, k, shmem, as_const_cplx(a.fw), as_cplx(a.c));
  });
}

NUFFTMP_INSTANTIATE_LAUNCH(interp_dealt_dim);

}  // namespace nufftmp::detail
