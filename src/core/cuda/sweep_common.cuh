// Device side of the sweep kernels (spread_sweep.cu, interp_sweep.cu; layout and the idea in
// sweep_layout.hpp): the block's view of its shared memory, the counting sort of a
// subproblem's points by first stencil row, a warp's staging of a bucket's points, 16-byte
// vector rows of staged kernel values, the reduce-scatter of per-lane partial sums, and the
// host side of the launch.
#pragma once

#include <cstdint>

#include <string>

#include "cuda/kernel_common.cuh"
#include "cuda/launch_common.cuh"
#include "cuda/sweep_layout.hpp"
#include "cuda/tile_common.cuh"
#include "cuda/width_dispatch.hpp"

namespace nufftmp::detail {

__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}

// One warp's scratch: the kernel values of up to 32 staged points (x values [32][kxs], y values
// [32][kys]), their first tile column, and per point either its strength (type 1) or its sorted
// position (type 2).
template <typename T>
struct WarpScratch {
  T* kx;
  T* ky;
  cplx<T>* c;
  int* pos;
  int* ox;
};

// The block's view of its dynamic shared memory (SweepLayout).
template <typename T>
struct SweepShared {
  int* load;  // [kSweepMaxStrips]
  int* cnt;
  std::uint16_t* rank;
  std::uint16_t* idx;
  std::int16_t* ox;
  cplx<T>* part;  // [2][maxsub]
  WarpScratch<T> warp;
  int kxs, kys, maxsub;

  __device__ __forceinline__ SweepShared(unsigned char* smem, const SweepLayout& l, int type,
                                         int dim, int maxsub_) {
    load = reinterpret_cast<int*>(smem + l.load);
    cnt = reinterpret_cast<int*>(smem + l.cnt);
    rank = reinterpret_cast<std::uint16_t*>(smem + l.rank);
    idx = reinterpret_cast<std::uint16_t*>(smem + l.idx);
    ox = reinterpret_cast<std::int16_t*>(smem + l.ox);
    part = reinterpret_cast<cplx<T>*>(smem + l.part);
    kxs = l.kx_stride;
    kys = l.ky_stride;
    maxsub = maxsub_;
    unsigned char* w = smem + l.scratch + l.warp_bytes * (threadIdx.x >> 5);
    const std::size_t kx_bytes = align16(sizeof(T) * kSweepChunk * kxs);
    const std::size_t ky_bytes = align16(sizeof(T) * kSweepChunk * kys);
    warp.kx = reinterpret_cast<T*>(w);
    warp.ky = reinterpret_cast<T*>(w + kx_bytes);
    unsigned char* rest = w + kx_bytes + (dim == 2 ? ky_bytes : 0);  // 1D: no y values
    warp.c = reinterpret_cast<cplx<T>*>(rest);
    warp.pos = reinterpret_cast<int*>(rest);
    const std::size_t third = align16(type == 1 ? sizeof(cplx<T>) * kSweepChunk
                                                : sizeof(int) * kSweepChunk);
    warp.ox = reinterpret_cast<int*>(rest + third);
  }
};

// 16-byte vectors of T.
template <typename T> struct Vec16;
template <> struct Vec16<float> { using type = float4; static constexpr int n = 4; };
template <> struct Vec16<double> { using type = double2; static constexpr int n = 2; };

// Stores / loads W values as 16-byte vectors (dst/src 16-byte aligned; the tail of the last
// vector is written as zeros and ignored on loads).
template <int W, typename T>
__device__ __forceinline__ void store_row(T* dst, const T (&k)[W]) {
  using V = typename Vec16<T>::type;
  constexpr int n = Vec16<T>::n, nv = (W + n - 1) / n;
#pragma unroll
  for (int v = 0; v < nv; ++v) {
    T e[4] = {T(0), T(0), T(0), T(0)};
#pragma unroll
    for (int u = 0; u < n; ++u)
      if (v * n + u < W) e[u] = k[v * n + u];
    V out;
    if constexpr (n == 4) out = make_float4(e[0], e[1], e[2], e[3]);
    else out = make_double2(e[0], e[1]);
    reinterpret_cast<V*>(dst)[v] = out;
  }
}

template <int W, typename T>
__device__ __forceinline__ void load_row(const T* src, T (&k)[W]) {
  using V = typename Vec16<T>::type;
  constexpr int n = Vec16<T>::n, nv = (W + n - 1) / n;
#pragma unroll
  for (int v = 0; v < nv; ++v) {
    const V in = reinterpret_cast<const V*>(src)[v];
    const T* e = reinterpret_cast<const T*>(&in);
#pragma unroll
    for (int u = 0; u < n; ++u)
      if (v * n + u < W) k[v * n + u] = e[u];
  }
}

__device__ __forceinline__ int clamp_int(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// Adds a point to the load of the strips its stencil columns [ox, ox + W) reach (one or two),
// one shared atomic per warp and strip (__match_any_sync). Warp-uniform: all lanes call it,
// `in` false for lanes without a point.
template <int W>
__device__ __forceinline__ void count_strip_load(int* load, bool in, int ox) {
  const int lane = threadIdx.x & 31;
  const int first = in ? clamp_int(ox >> 5, 0, kSweepMaxStrips - 1) : -1;
  const int last = in ? clamp_int((ox + W - 1) >> 5, 0, kSweepMaxStrips - 1) : -1;
  const unsigned p1 = __match_any_sync(0xffffffffu, first);
  if (in && lane == __ffs(p1) - 1) atomicAdd(load + first, __popc(p1));
  const int second = last != first ? last : -1;
  const unsigned p2 = __match_any_sync(0xffffffffu, second);
  if (second >= 0 && lane == __ffs(p2) - 1) atomicAdd(load + second, __popc(p2));
}

// Counting sort of the subproblem's points by first stencil row (2D), and the strip loads.
// After it, bucket b holds the sorted positions [cnt[b], cnt[b + 1]); idx[j] is the point of
// the subproblem at sorted position j and ox[j] its first stencil column in the tile. Ranks
// within a bucket come from one shared atomic per (warp, bucket) (__match_any_sync), native for
// 32-bit integers. Out-of-range rows (inconsistent input) are clamped, which keeps every access
// in bounds. Every thread of the block must call it (barriers); it ends with one.
template <int W, typename T, typename P>
__device__ void sort_by_row(const P& pts, const Subproblem& sub, const int* origin, int nb,
                            const SweepShared<T>& sh) {
  const int lane = threadIdx.x & 31;
  for (int t = threadIdx.x; t <= nb; t += blockDim.x) sh.cnt[t] = 0;
  if (threadIdx.x < kSweepMaxStrips) sh.load[threadIdx.x] = 0;
  __syncthreads();
  for (int base = threadIdx.x & ~31; base < sub.count; base += blockDim.x) {
    const int p = base + lane;
    const bool in = p < sub.count;
    const int oy = in ? clamp_int(point_at<2>(pts, sub.start + p).i0[1] - origin[1], 0, nb - 1)
                      : -1;
    const unsigned peers = __match_any_sync(0xffffffffu, oy);
    const int leader = __ffs(peers) - 1;
    int first = 0;
    if (in && lane == leader) first = atomicAdd(sh.cnt + oy, __popc(peers));
    first = __shfl_sync(0xffffffffu, first, leader);
    if (in) sh.rank[p] = static_cast<std::uint16_t>(first + __popc(peers & lanemask_lt()));
  }
  __syncthreads();
  if (threadIdx.x < 32) {  // exclusive scan of the nb + 1 counts (cnt[nb] = 0 -> the total)
    int carry = 0;
    for (int b0 = 0; b0 <= nb; b0 += 32) {
      const int b = b0 + lane;
      const int v = b <= nb ? sh.cnt[b] : 0;
      int incl = v;
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const int u = __shfl_up_sync(0xffffffffu, incl, o);
        if (lane >= o) incl += u;
      }
      if (b <= nb) sh.cnt[b] = carry + incl - v;
      carry += __shfl_sync(0xffffffffu, incl, 31);
    }
  }
  __syncthreads();
  for (int base = threadIdx.x & ~31; base < sub.count; base += blockDim.x) {
    const int p = base + lane;
    const bool in = p < sub.count;
    int ox = 0;
    if (in) {
      const PointAt<T, 2> pt = point_at<2>(pts, sub.start + p);
      const int oy = clamp_int(pt.i0[1] - origin[1], 0, nb - 1);
      const int pos = sh.cnt[oy] + sh.rank[p];
      ox = pt.i0[0] - origin[0];
      sh.idx[pos] = static_cast<std::uint16_t>(p);
      sh.ox[pos] = static_cast<std::int16_t>(ox);
    }
    count_strip_load<W>(sh.load, in, ox);
  }
  __syncthreads();
}

// The strip loads in 1D (no sort: the subproblem's order is the bucket's). Ends with a barrier.
template <int W, typename T, typename P>
__device__ void count_loads_1d(const P& pts, const Subproblem& sub, const int* origin,
                               const SweepShared<T>& sh) {
  if (threadIdx.x < kSweepMaxStrips) sh.load[threadIdx.x] = 0;
  __syncthreads();
  for (int base = threadIdx.x & ~31; base < sub.count; base += blockDim.x) {
    const int p = base + (threadIdx.x & 31);
    const bool in = p < sub.count;
    count_strip_load<W>(sh.load, in, in ? point_at<1>(pts, sub.start + p).i0[0] - origin[0] : 0);
  }
  __syncthreads();
}

// This warp's share of the block's work: its strip, and which of the strip's `slices` warps it
// is. Every strip with points gets one warp; the block's other warps go one at a time to the
// strip with the most points per warp. Uniform points: a warp per strip. Clustered points: all
// warps on the few strips that have points, each taking every slices-th group of 32 sorted
// positions of each bucket (type 1: each warp flushes its own window; type 2: each point is
// still summed by one warp per strip). strip = -1: no work for this warp.
struct StripWork {
  int strip, slice, slices;
};
__device__ __forceinline__ StripWork assign_strips(const int* load, int strips) {
  const int warps = blockDim.x >> 5, me = threadIdx.x >> 5;
  int k[kSweepMaxStrips];
  int used = 0;
#pragma unroll
  for (int s = 0; s < kSweepMaxStrips; ++s) {
    k[s] = (s < strips && load[s] > 0) ? 1 : 0;
    used += k[s];
  }
  while (used > 0 && used < warps) {
    int best = -1;
#pragma unroll
    for (int s = 0; s < kSweepMaxStrips; ++s)  // most points per warp: load[s] / k[s]
      if (k[s] > 0 && (best < 0 || load[s] * k[best] > load[best] * k[s])) best = s;
#pragma unroll
    for (int s = 0; s < kSweepMaxStrips; ++s) k[s] += s == best ? 1 : 0;
    ++used;
  }
  StripWork w{-1, 0, 1};
  int first = 0;
#pragma unroll
  for (int s = 0; s < kSweepMaxStrips; ++s) {
    if (me >= first && me < first + k[s]) w = StripWork{s, me - first, k[s]};
    first += k[s];
  }
  return w;
}

// The warp of strip work.strip walks its slice of the sorted positions [j0, j1) of one bucket
// (groups of 32, every work.slices-th from the work.slice-th). Lanes whose point's stencil
// columns [ox, ox + W) reach the strip stage it: kernel values, first column, and
// extra(slot, j, i) (the strength or the position); process(nq) then uses the nq staged points
// (warp-uniform). ox_of(j) / point_of(j) give the bucket's order. Every lane of the warp must
// call it (ballots, shuffles).
template <int W, int D, typename T, typename P, typename OxOf, typename PointOf, typename Extra,
          typename Process>
__device__ __forceinline__ void sweep_bucket(const KernelCoeffs<T>& kc, const P& pts,
                                             const Subproblem& sub, const SweepShared<T>& sh,
                                             const StripWork& work, int j0, int j1,
                                             OxOf&& ox_of,
                                             PointOf&& point_of, Extra&& extra,
                                             Process&& process) {
  const int lane = threadIdx.x & 31;
  const int x0 = work.strip * kSweepStripCols;
  const WarpScratch<T>& ws = sh.warp;
  for (int base = j0 + work.slice * kSweepChunk; base < j1; base += work.slices * kSweepChunk) {
    const int j = base + lane;
    int ox = 0;
    bool mine = false;
    if (j < j1) {
      ox = ox_of(j);
      mine = ox < x0 + kSweepStripCols && ox + W > x0;
    }
    const unsigned m = __ballot_sync(0xffffffffu, mine);
    if (m == 0) continue;
    if (mine) {
      const int slot = __popc(m & lanemask_lt());
      const std::int64_t i = sub.start + point_of(j);
      const PointAt<T, D> pt = point_at<D>(pts, i);
      T k[W];
      eval_kernel<W>(kc, pt.s[0], k);
#pragma unroll
      for (int t = 0; t < W; ++t) ws.kx[slot * sh.kxs + t] = k[t];
      if constexpr (D == 2) {
        eval_kernel<W>(kc, pt.s[D - 1], k);
        store_row<W>(ws.ky + slot * sh.kys, k);
      }
      ws.ox[slot] = ox;
      extra(slot, j, i);
    }
    __syncwarp();
    process(__popc(m));
    __syncwarp();
  }
}

// The lane's x value of staged point q: its tap (x - ox) when the lane's column x lies in the
// stencil, 0 otherwise.
template <int W, typename T>
__device__ __forceinline__ T staged_kx(const SweepShared<T>& sh, int q, int x) {
  const int t = x - sh.warp.ox[q];
  return (t >= 0 && t < W) ? sh.warp.kx[q * sh.kxs + t] : T(0);
}

// One halving step of a reduce-scatter across lanes OFF apart: of N values, a lane keeps the
// half its bit OFF selects and adds its partner's copy of that half.
template <int N, int OFF, typename T>
__device__ __forceinline__ void halve(const T (&a)[N], T (&b)[N / 2], int lane) {
  const bool up = (lane & OFF) != 0;
#pragma unroll
  for (int i = 0; i < N / 2; ++i) {
    const T send = up ? a[i] : a[i + N / 2];
    const T keep = up ? a[i + N / 2] : a[i];
    b[i] = keep + __shfl_xor_sync(0xffffffffu, send, OFF);
  }
}

// Sums G per-lane values over the warp, scattered: afterwards lane l holds the total of value
// reduce_scatter_slot<G>(l). G - 1 + (5 - log2 G) shuffles instead of 5 G.
template <int G>
__device__ __forceinline__ int reduce_scatter_slot(int lane) {
  return G == 8 ? (lane >> 2) & 7 : (lane >> 3) & 3;
}
template <int G, typename T>
__device__ __forceinline__ T reduce_scatter(const T (&a)[G]) {
  static_assert(G == 4 || G == 8, "reduce_scatter: G = 4 or 8");
  const int lane = threadIdx.x & 31;
  T b2[2], b1[1];
  if constexpr (G == 8) {
    T b4[4];
    halve<8, 16>(a, b4, lane);
    halve<4, 8>(b4, b2, lane);
    halve<2, 4>(b2, b1, lane);
  } else {
    halve<4, 16>(a, b2, lane);
    halve<2, 8>(b2, b1, lane);
  }
  T v = b1[0];
  if constexpr (G == 4) v += __shfl_xor_sync(0xffffffffu, v, 4);
  v += __shfl_xor_sync(0xffffffffu, v, 2);
  v += __shfl_xor_sync(0xffffffffu, v, 1);
  return v;
}

// Fine-grid offset of tile row r (2D; 0 in 1D) and of the lane's tile column x (wrapped).
template <int D>
__device__ __forceinline__ std::int64_t sweep_row_offset(const GridView& grid, const int* origin,
                                                        int r) {
  if constexpr (D == 2) return std::int64_t(wrap_tile(origin[1] + r, grid.nf[1])) * grid.nf[0];
  return 0;
}

// Host: launches kernel_of(W, D, P) (a sweep kernel of type `type`; P the points' layout) with
// one warp per strip and its shared memory; its parameters are those of launch_per_subproblem,
// then maxsub, then args.
template <int Dim, typename T, typename KernelOf, typename... Args>
void launch_sweep(int type, const char* name, const SpreadLaunch<T>& a, const KernelCoeffs<T>& k,
                  KernelOf&& kernel_of, Args... args) {
  if (a.pts.M == 0 || a.num_subs == 0) return;
  const SweepLaunch s = sweep_launch(type, a.dim, a.w, sizeof(T), a.bins, a.maxsub);
  SpreadLaunch<T> l = a;
  l.threads = s.threads;
  static_assert(Dim <= 2, "the strip sweeps are built for 1D and 2D only");
  dispatch_kernel<T, Dim>(a.w, a.pts, [&](auto W, auto D, auto P) {
    launch_per_subproblem(kernel_of(W, D, P), name, l, k, s.shared_bytes, a.maxsub, args...);
  });
}

}  // namespace nufftmp::detail
