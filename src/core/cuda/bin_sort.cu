#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <climits>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>

#include "common/checks.hpp"
#include "common/grid.hpp"
#include "cuda/bin_sort.hpp"
#include "cuda/bucket_scatter.cuh"
#include "cuda/cuda_check.hpp"
#include "cuda/device_guard.hpp"
#include "cuda/heuristics.hpp"
#include "cuda/index_width.hpp"
#include "cuda/launch_common.cuh"
#include "cuda/sort_points.cuh"
#include "cuda/sort_strategy.hpp"
#include "cuda/stage_timer.hpp"
#include "cuda/tu_instance.hpp"

namespace nufftmp::detail {

namespace {

using namespace sort_device;  // NOLINT: the sort's shared device helpers (sort_points.cuh)

constexpr int kThreads = 256;
// Block counting: threads per block (the kernel fits 64 registers, so 1024 threads; with a
// histogram over ~110 KB only one block fits an SM), and points each thread loads before it
// ranks them (memory requests in flight while that one block runs).
constexpr int kCountThreads = 1024;
constexpr int kCountUnroll = 4;

// One atomicMin per warp with bad points: its lowest lane holds its smallest index. All 32
// lanes must call it (the loops below are warp-uniform).
__device__ __forceinline__ void report_bad(bool bad, std::int64_t j, unsigned long long* status) {
  const unsigned b = __ballot_sync(0xffffffffu, bad);
  if (b != 0 && int(threadIdx.x & 31) == __ffs(b) - 1)
    atomicMin(status + kFirstBad, static_cast<unsigned long long>(j));
}

// Warp-uniform grid-stride loop over points: f(j, in) for every lane, in = (j < M).
template <typename F>
__device__ __forceinline__ void for_each_point_by_warp(std::int64_t M, F&& f) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x + (threadIdx.x & ~31u);
       base < M; base += stride) {
    const std::int64_t j = base + (threadIdx.x & 31);
    f(j, j < M);
  }
}

// Unsorted (GM): legality, and i0/s in user order.
template <typename T, int D>
__global__ void locate_unsorted_kernel(Coords3 coords, std::int64_t M, GridView grid,
                                       BinView bins, int w, PointArrays<T> out,
                                       unsigned long long* status) {
  for_each_point_by_warp(M, [&](std::int64_t j, bool in) {
    bool ok = true;
    if (in) {
      const Located<T> p = locate_point<T, D>(coords, j, grid, bins, w);
      ok = p.ok;
      store_located<T, D>(out, j, p);
    }
    report_bad(in && !ok, j, status);
  });
}

// Sorted, pass 1, global counting: legality, and each point's rank within its bin
// (warp-aggregated: the lanes of a warp that share a bin take consecutive ranks from one
// atomic on the bin's global counter).
template <typename T, int D, typename I>
__global__ void locate_sorted_kernel(Coords3 coords, std::int64_t M, GridView grid,
                                     BinView bins, int w, I* counts, I* rank,
                                     unsigned long long* status) {
  using U = Atomic<I>;
  const int lane = threadIdx.x & 31;
  for_each_point_by_warp(M, [&](std::int64_t j, bool in) {
    int bin = 0;
    bool ok = true;
    if (in) {
      const Located<T> p = locate_point<T, D>(coords, j, grid, bins, w);
      bin = p.bin;
      ok = p.ok;
    }
    report_bad(in && !ok, j, status);
    const unsigned active = __ballot_sync(0xffffffffu, in);
    if (in) {
      const unsigned peers = __match_any_sync(active, bin);
      const int leader = __ffs(peers) - 1;
      U old = 0;
      if (lane == leader)
        old = atomicAdd(reinterpret_cast<U*>(counts) + bin, static_cast<U>(__popc(peers)));
      old = __shfl_sync(peers, old, leader);
      rank[j] = static_cast<I>(old) + static_cast<I>(__popc(peers & ((1u << lane) - 1u)));
    }
  });
}

// Sorted, pass 1, block counting (sort_strategy.hpp): block b counts points
// [b 2^shift, (b + 1) 2^shift) in a shared histogram of every bin; a point's rank is its place
// among the block's points of its bin. At the end the block writes its count of bin k to
// table[k G + b] (G blocks), and block 0 the closing 0, so that one exclusive scan of the table
// gives each (bin, block) the sorted position of its first point. Shared atomics only: the
// global counters' contention (a few hundred thousand same-address atomics for clustered
// points, one atomic per point for uniform ones) is gone. A warp whose points all share a bin
// (clustered) takes its ranks with one shared atomic; others use one per lane (shared atomics
// of distinct bins do not serialise). The warp loop is uniform, as report_bad requires.
// rank null: no ranks (the bucket scatter ranks in its own passes); btable non-null: the
// block's count of each bucket (per_bucket consecutive bins) too, at btable[u G + b].
template <typename T, int D, typename I>
__global__ void __launch_bounds__(kCountThreads)
    count_block_kernel(Coords3 coords, std::int64_t M, GridView grid, BinView bins, int w,
                       int shift, I* table, I* rank, int per_bucket, int buckets, I* btable,
                       unsigned long long* status) {
  extern __shared__ unsigned int hist[];
  const std::int64_t nbins = bins.total;
  for (std::int64_t b = threadIdx.x; b < nbins; b += blockDim.x) hist[b] = 0u;
  __syncthreads();
  const std::int64_t begin = std::int64_t(blockIdx.x) << shift;
  const std::int64_t end = min(M, begin + (std::int64_t(1) << shift));
  const int lane = threadIdx.x & 31;
  const std::int64_t step = blockDim.x;
  for (std::int64_t base = begin + (threadIdx.x & ~31u); base < end;
       base += kCountUnroll * step) {
    // All loads first: kCountUnroll points of each thread in flight.
    PointCoords<T, D> c[kCountUnroll];
    bool in[kCountUnroll];
#pragma unroll
    for (int k = 0; k < kCountUnroll; ++k) {
      const std::int64_t j = base + k * step + lane;
      in[k] = j < end;
      if (in[k]) c[k] = load_coords<T, D>(coords, j);
    }
#pragma unroll
    for (int k = 0; k < kCountUnroll; ++k) {
      const std::int64_t j = base + k * step + lane;
      int bin = 0;
      bool ok = true;
      if (in[k]) {
        const Located<T> p = locate_values<T, D>(c[k], grid, bins, w);
        bin = p.bin;
        ok = p.ok;
      }
      report_bad(in[k] && !ok, j, status);
      const unsigned active = __ballot_sync(0xffffffffu, in[k]);
      if (in[k]) {
        const unsigned ub = static_cast<unsigned>(bin);
        unsigned r;
        if (__reduce_min_sync(active, ub) == __reduce_max_sync(active, ub)) {
          const int leader = __ffs(active) - 1;
          unsigned old = 0;
          if (lane == leader) old = atomicAdd(hist + bin, static_cast<unsigned>(__popc(active)));
          old = __shfl_sync(active, old, leader);
          r = old + static_cast<unsigned>(__popc(active & ((1u << lane) - 1u)));
        } else {
          r = atomicAdd(hist + bin, 1u);
        }
        if (rank != nullptr) rank[j] = static_cast<I>(r);
      }
    }
  }
  __syncthreads();
  const std::int64_t G = gridDim.x;
  for (std::int64_t b = threadIdx.x; b < nbins; b += blockDim.x)
    table[b * G + blockIdx.x] = static_cast<I>(hist[b]);
  if (blockIdx.x == 0 && threadIdx.x == 0) table[nbins * G] = 0;
  // The bucket scatter: the same counts summed over each bucket's bins, and its closing 0.
  if (btable == nullptr) return;
  for (int u = threadIdx.x; u < buckets; u += blockDim.x) {
    const std::int64_t k0 = std::int64_t(u) * per_bucket;
    const std::int64_t k1 = min(nbins, k0 + per_bucket);
    unsigned n = 0;
    for (std::int64_t k = k0; k < k1; ++k) n += hist[k];
    btable[u * G + blockIdx.x] = static_cast<I>(n);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) btable[std::int64_t(buckets) * G] = 0;
}

// Where the sorted positions start, for pass 2. Global counting: start = the scanned bin
// counts (nbins + 1), stride 1, shift 62 (every point in "block" 0). Block counting: start =
// the scanned (bin, block) table, stride G, shift as counted.
template <typename I>
struct SortOffsets {
  const I* start;
  std::int64_t stride;
  int shift;
};

// Sorted position of point j, or -1 (and the point recorded as inconsistent) when it falls
// outside its bin's (or its bin-and-block's) range. That cannot happen, as both passes locate
// alike; the check keeps every write in bounds even if the coordinates changed between the
// passes.
template <typename I>
__device__ __forceinline__ std::int64_t sorted_position(int bin, std::int64_t j, const I* rank,
                                                        const SortOffsets<I>& off,
                                                        unsigned long long* status) {
  const std::int64_t e = std::int64_t(bin) * off.stride + (j >> off.shift);
  const std::int64_t pos = std::int64_t(off.start[e]) + std::int64_t(rank[j]);
  if (pos >= std::int64_t(off.start[e + 1])) {
    atomicMin(status + kFirstInconsistent, static_cast<unsigned long long>(j));
    return -1;
  }
  return pos;
}

// Sorted, pass 2 (direct variant): every point writes its permutation entry and its i0/s at
// its sorted position (2 dim + 1 scattered writes per point).
template <typename T, int D, typename I>
__global__ void scatter_kernel(Coords3 coords, std::int64_t M, GridView grid, BinView bins,
                               int w, const I* rank, SortOffsets<I> off, I* perm,
                               PointArrays<T> out, unsigned long long* status) {
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < M;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    const Located<T> p = locate_point<T, D>(coords, j, grid, bins, w);
    const std::int64_t pos = sorted_position(p.bin, j, rank, off, status);
    if (pos < 0) continue;
    perm[pos] = static_cast<I>(j);
    store_located<T, D>(out, pos, p);
  }
}

// Sorted, pass 2 (gather variant; step 1): the permutation only (one scattered write per
// point).
template <typename T, int D, typename I>
__global__ void scatter_index_kernel(Coords3 coords, std::int64_t M, GridView grid,
                                     BinView bins, int w, const I* rank, SortOffsets<I> off,
                                     I* perm, unsigned long long* status) {
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < M;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    const Located<T> p = locate_point<T, D>(coords, j, grid, bins, w);
    const std::int64_t pos = sorted_position(p.bin, j, rank, off, status);
    if (pos >= 0) perm[pos] = static_cast<I>(j);
  }
}

// Gather variant, step 2: sorted position q reads its point's coordinates and writes i0/s
// coalesced. A position the scatter could not fill (reported as inconsistent, so the call
// fails) holds a stale index: it is range-checked before any read.
template <typename T, int D, typename I>
__global__ void gather_kernel(Coords3 coords, std::int64_t M, GridView grid, BinView bins, int w,
                              const I* perm, PointArrays<T> out) {
  for (std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < M;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j = static_cast<std::int64_t>(perm[q]);
    if (j < 0 || j >= M) continue;
    store_located<T, D>(out, q, locate_point<T, D>(coords, j, grid, bins, w));
  }
}


// Sorted, pass 2 (packed variant; step 1): each point reads its coordinates coalesced and
// writes one record to its sorted position - one scattered record (half, one or a whole
// 32-byte sector) per point instead of the gather's permutation write plus D random reads.
template <typename T, int D, typename I>
__global__ void scatter_packed_kernel(Coords3 coords, std::int64_t M, GridView grid,
                                      BinView bins, int w, const I* rank, SortOffsets<I> off,
                                      unsigned* records, unsigned long long* status) {
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < M;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    const PointCoords<T, D> c = load_coords<T, D>(coords, j);
    const Located<T> p = locate_values<T, D>(c, grid, bins, w);
    const std::int64_t pos = sorted_position(p.bin, j, rank, off, status);
    if (pos >= 0) Record<T, D, I>::store(records, pos, record_values(c, p), j);
  }
}

// Packed variant, step 2: sorted position q reads its record coalesced, locates it again from
// its values (so i0/s equal the other variants' exactly) and writes i0/s and the
// permutation coalesced. A record the scatter could not fill (the call then fails) is stale:
// nothing here reads through it.
template <typename T, int D, typename I>
__global__ void unpack_kernel(const unsigned* records, std::int64_t M, GridView grid,
                              BinView bins, int w, I* perm, PointArrays<T> out) {
  for (std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < M;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    PointCoords<T, D> c;
    std::int64_t j;
    Record<T, D, I>::load(records, q, c, j);
    perm[q] = static_cast<I>(j);
    store_located<T, D>(out, q, locate_values<T, D, true>(c, grid, bins, w));
  }
}

// Block counting, for the subproblems: each bin's start from the scanned table (its block 0
// entry; entry nbins G = M closes the last bin) and its number of subproblems.
template <typename I>
__global__ void bin_starts_kernel(const I* table, std::int64_t G, std::int64_t nbins,
                                  int maxsub, I* bin_start, I* nsub) {
  for (std::int64_t b = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b <= nbins;
       b += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t first = static_cast<std::int64_t>(table[b * G]);
    bin_start[b] = static_cast<I>(first);
    const std::int64_t n = b < nbins ? std::int64_t(table[(b + 1) * G]) - first : 0;
    nsub[b] = static_cast<I>((n + maxsub - 1) / maxsub);
  }
}

template <typename I>
__global__ void count_subproblems_kernel(const I* bin_start, std::int64_t nbins, int maxsub,
                                         I* nsub) {
  for (std::int64_t b = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b <= nbins;
       b += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t n = b < nbins ? std::int64_t(bin_start[b + 1]) - bin_start[b] : 0;
    nsub[b] = static_cast<I>((n + maxsub - 1) / maxsub);
  }
}

// 2D: the bands of `band_rows` fine rows that a kernel of width w centred in a nonempty bin
// can touch (rows [y0 - pad, y0 + bin height + pad), pad = ceil(w / 2), periodic), one bit per
// band OR-ed into status[kRowBands] once per warp. One thread per bin.
template <typename I>
__global__ void row_bands_kernel(const I* bin_start, BinView bins, std::int32_t nf_y, int w,
                                 std::int64_t band_rows, unsigned long long* status) {
  const std::int64_t b = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long mask = 0;
  if (b < bins.total && bin_start[b + 1] > bin_start[b]) {
    const int pad = (w + 1) / 2;
    const std::int64_t y0 = (b / bins.count[0]) * std::int64_t(bins.size[1]);
    const std::int64_t lo = y0 - pad, hi = y0 + bins.size[1] + pad;  // rows [lo, hi)
    if (hi - lo >= nf_y) {
      mask = ~0ull;
    } else {
      for (std::int64_t r = lo; r < hi;) {
        const std::int64_t rr = ((r % nf_y) + nf_y) % nf_y;
        const std::int64_t band = rr / band_rows;
        mask |= 1ull << band;
        const std::int64_t band_end = min((band + 1) * band_rows, std::int64_t(nf_y));
        r += band_end - rr;  // the next band, or the wrap to row 0
      }
    }
  }
  const unsigned lo32 = __reduce_or_sync(0xffffffffu, static_cast<unsigned>(mask));
  const unsigned hi32 = __reduce_or_sync(0xffffffffu, static_cast<unsigned>(mask >> 32));
  if ((threadIdx.x & 31) == 0 && (lo32 | hi32) != 0)
    atomicOr(status + kRowBands, (static_cast<unsigned long long>(hi32) << 32) | lo32);
}

// One thread per subproblem s (in bin order, as the spreaders expect): its bin is the b with
// sub_start[b] <= s < sub_start[b + 1] (binary search), so a crowded bin does not serialise on
// one thread. The count is read on the device; the launch covers the upper bound `capacity`.
template <typename I>
__global__ void fill_subproblems_kernel(const I* bin_start, const I* sub_start,
                                        std::int64_t nbins, int maxsub, std::int64_t capacity,
                                        Subproblem* subs, unsigned long long* status) {
  const std::int64_t total = static_cast<std::int64_t>(sub_start[nbins]);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    status[kNumSubproblems] = static_cast<unsigned long long>(total);
    if (total > capacity) atomicMin(status + kFirstInconsistent, 0ull);
  }
  const std::int64_t n = total < capacity ? total : capacity;
  for (std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < n;
       s += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t lo = 0, hi = nbins;  // sub_start[lo] <= s < sub_start[hi]
    while (hi - lo > 1) {
      const std::int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<std::int64_t>(sub_start[mid]) <= s) lo = mid;
      else hi = mid;
    }
    const std::int64_t first =
        std::int64_t(bin_start[lo]) + (s - std::int64_t(sub_start[lo])) * maxsub;
    const std::int64_t left = std::int64_t(bin_start[lo + 1]) - first;
    subs[s] = Subproblem{first, static_cast<std::int32_t>(left < maxsub ? left : maxsub),
                         static_cast<std::int32_t>(lo)};
  }
}

int grid_for(std::int64_t n, int device) {
  // The device's SM count, cached per device (a thread-local single value gave every later
  // device of a process the first one's count).
  const int sms = query_device(device, false).sm_count;
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  const std::int64_t cap = std::int64_t(sms > 0 ? sms : 80) * 32;
  return static_cast<int>(blocks < 1 ? 1 : (blocks < cap ? blocks : cap));
}

// Blocks of kThreads for the grid-stride passes of the sort whose order matters: no more than
// fit the device at once with every one of `kernels` (their smallest occupancy), so that the
// grid's rounds sweep the points in index order - round r covers [r R, (r + 1) R), R = blocks x
// kThreads - instead of each wave of blocks sweeping the whole range (what a grid larger than
// the device does). The scatters rely on it: their writes then fill each cache line of the
// sorted arrays within a round or two, while it is in the L2 (with block counting a line spans
// the shares of neighbouring chunks; with global counting the count and the scatter must take
// the points in the same order, so they share this grid).
template <typename... K>
int resident_grid(std::int64_t n, int device, K*... kernels) {
  int sms = 0;
  NUFFTMP_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  int per_sm = INT_MAX;
  auto fit = [&](auto* kernel) {
    int b = 0;
    NUFFTMP_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernel, kThreads, 0));
    per_sm = std::min(per_sm, b);
  };
  (fit(kernels), ...);
  const std::int64_t cap = std::int64_t(sms > 0 ? sms : 80) * std::max(per_sm, 1);
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<int>(std::max<std::int64_t>(1, std::min(blocks, cap)));
}

// CUB's two-call idiom, with the workspace kept in the scratch.
template <typename I>
std::size_t scan_bytes(std::int64_t n, cudaStream_t stream) {
  std::size_t bytes = 0;
  NUFFTMP_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const I*>(nullptr),
                                                 static_cast<I*>(nullptr), n, stream));
  return bytes > 16 ? bytes : 16;  // never an empty workspace: a null one means "size query"
}
template <typename I>
void exclusive_sum(const I* in, I* out, std::int64_t n, DeviceBuffer<unsigned char>& temp,
                   cudaStream_t stream) {
  std::size_t bytes = temp.bytes();
  NUFFTMP_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.get(), bytes, in, out, n, stream));
}

template <typename T>
PointArrays<T> arrays_of(SortedPoints<T>& out) {
  return PointArrays<T>{{out.i0[0].get(), out.i0[1].get(), out.i0[2].get()},
                        {out.s[0].get(), out.s[1].get(), out.s[2].get()}};
}

template <typename T, int D>
void reserve_coordinates(SortedPoints<T>& out, std::int64_t M, int dev, cudaStream_t st) {
  for (int d = 0; d < 3; ++d) {
    if (d < D) {
      out.i0[d].reserve(M, dev, st, "point cells (i0)");
      out.s[d].reserve(M, dev, st, "point offsets (s)");
    } else {
      out.i0[d].release();
      out.s[d].release();
    }
  }
}

// The status words back on the host: the call's one synchronisation.
void read_status(DeviceBuffer<unsigned long long>& status, unsigned long long (&h)[kStatusWords],
                 cudaStream_t st) {
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(h, status.get(), sizeof h, cudaMemcpyDeviceToHost, st));
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(st));
}

template <typename T, int D>
std::int64_t prepare_unsorted(const PointPrepRequest& req, std::int64_t M, Coords3 coords,
                              SortedPoints<T>& out, StageTimer& tm) {
  const int dev = req.device;
  cudaStream_t st = req.stream;
  reserve_coordinates<T, D>(out, M, dev, st);
  out.perm32.release();
  out.perm64.release();
  out.records.release();  // unsorted points are split (sorted_layout)
  out.subproblems.release();
  out.num_subproblems = 0;
  out.scratch.status.reserve(kStatusWords, dev, st, "point check flags");
  tm.mark("alloc");
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(out.scratch.status.get(), 0xff,
                                   kStatusWords * sizeof(unsigned long long), st));
  if (M > 0) {
    locate_unsorted_kernel<T, D><<<grid_for(M, dev), kThreads, 0, st>>>(
        coords, M, req.grid, req.bins, req.w, arrays_of(out), out.scratch.status.get());
    NUFFTMP_CUDA_CHECK_LAUNCH("locate_unsorted_kernel");
  }
  tm.mark("locate");
  unsigned long long h[kStatusWords];
  read_status(out.scratch.status, h, st);
  tm.mark("sync");
  if (h[kFirstBad] != kNone) return static_cast<std::int64_t>(h[kFirstBad]);
  out.sorted = false;
  out.wide = false;
  out.M = M;
  return -1;
}

template <typename I, typename T>
I* perm_of(SortedPoints<T>& out) {
  if constexpr (sizeof(I) == 4) return out.perm32.get();
  else return out.perm64.get();
}

// Block counting for this call: its geometry (sort_strategy.hpp) from the device's shared
// memory and the counting kernel's occupancy, or blocks = 0 (global counting).
struct CountPlan {
  std::int64_t blocks = 0;
  int shift = 0;
  std::size_t shared_bytes = 0;
  std::int64_t table_capacity = 0;  // entries kept in the scratch (grow-only)
  std::int64_t resident = 0;        // counting blocks the device holds at once
};

template <typename T, int D, typename I>
CountPlan plan_count(const PointPrepRequest& req, std::int64_t M) {
  CountPlan cp;
  if (req.count == CountKind::Global || M <= 0) return cp;
  const std::int64_t nbins = req.bins.total;
  int optin = 0, sms = 0;
  NUFFTMP_CUDA_TRY(
      cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, req.device));
  NUFFTMP_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, req.device));
  const std::size_t bytes = static_cast<std::size_t>(nbins) * sizeof(unsigned int);
  if (bytes > static_cast<std::size_t>(optin)) return cp;
  auto* kernel = count_block_kernel<T, D, I>;
  if (bytes > 48 * 1024)
    NUFFTMP_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
  int per_sm = 0;
  NUFFTMP_CUDA_TRY(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kCountThreads, bytes));
  const std::int64_t resident = std::int64_t(per_sm) * sms;
  const BlockCount g = block_count_geometry(req.count, M, nbins, resident);
  if (g.blocks == 0) return cp;
  cp.blocks = g.blocks;
  cp.shift = g.shift;
  cp.shared_bytes = bytes;
  cp.table_capacity = block_count_table_capacity(M, nbins, resident);
  cp.resident = resident;
  return cp;
}

template <typename T, int D, typename I>
std::int64_t prepare_sorted(const PointPrepRequest& req, std::int64_t M, Coords3 coords,
                            SortedPoints<T>& out, StageTimer& tm) {
  const int dev = req.device;
  cudaStream_t st = req.stream;
  const std::int64_t nbins = req.bins.total, nb1 = nbins + 1;
  const bool subs = req.maxsub > 0;
  SortScratch& sc = out.scratch;
  using Rec = Record<T, D, I>;
  const CountPlan cp = plan_count<T, D, I>(req, M);
  const bool by_block = cp.blocks > 0;
  // The bucket scatter needs the block counting's chunks; with global counting it runs packed.
  const BucketGeometry geo = bucket_geometry(nbins, req.bucket);
  const bool bucket = by_block && req.scatter == ScatterKind::Bucket && geo.buckets > 0;
  const ScatterKind scatter =
      req.scatter == ScatterKind::Bucket && !bucket ? ScatterKind::Packed : req.scatter;
  // Records layout: the sorted records are the points (the split arrays released); the packed
  // scatter writes them final, the bucket's pass 3 from pass 2's records in the scratch.
  const bool to_records =
      sorted_layout(req.layout, scatter, sizeof(I) == 8) == PointLayout::Records;

  if (to_records) {
    reserve_coordinates<T, 0>(out, M, dev, st);  // releases every axis
    out.perm32.release();
    out.perm64.release();
    out.records.reserve(M * Rec::kWords, dev, st, "sorted point records");
  } else {
    reserve_coordinates<T, D>(out, M, dev, st);
    out.records.release();
    if constexpr (sizeof(I) == 4) {
      out.perm32.reserve(M, dev, st, "sort permutation");
      out.perm64.release();
    } else {
      out.perm64.reserve(M, dev, st, "sort permutation");
      out.perm32.release();
    }
  }
  sc.rank.reserve(M * sizeof(I), dev, st, "ranks in bins");
  sc.bin_arrays.reserve(4 * nb1 * sizeof(I), dev, st, "bin counts and offsets");
  std::int64_t scan_max = nb1;
  if (by_block) {
    sc.table.reserve(cp.table_capacity * sizeof(I), dev, st, "per-block bin counts");
    scan_max = std::max(scan_max, cp.table_capacity);
  }
  const std::int64_t items = bucket ? bucket_item_capacity(M, geo) : 0;
  // The bucket table's entries (the tile variants' cursor follows them in the same buffer).
  const std::int64_t entries =
      bucket ? block_count_table_capacity(M, geo.buckets, cp.resident) : 0;
  if (bucket) {
    sc.btable.reserve(bucket_table_entries(entries, req.bucket_kernels.pass2) * sizeof(I), dev,
                      st, "per-block bucket counts");
    sc.items.reserve(items * sizeof(BucketItem), dev, st, "bucket work items");
    scan_max = std::max(scan_max, entries);
  }
  if ((scatter == ScatterKind::Packed && !to_records) || bucket)
    sc.records.reserve(M * Rec::kWords * sizeof(unsigned), dev, st, "packed point records");
  sc.cub.reserve(scan_bytes<I>(scan_max, st), dev, st, "scan workspace");
  sc.status.reserve(kStatusWords, dev, st, "point check flags");
  const std::int64_t capacity = subproblem_capacity(M, nbins, req.maxsub);
  if (subs) out.subproblems.reserve(capacity, dev, st, "subproblem list");
  else out.subproblems.release();
  out.num_subproblems = 0;
  I* const counts = reinterpret_cast<I*>(sc.bin_arrays.get());
  I* const bin_start = counts + nb1;
  I* const nsub = bin_start + nb1;
  I* const sub_start = nsub + nb1;
  I* const rank = reinterpret_cast<I*>(sc.rank.get());
  I* const table = reinterpret_cast<I*>(sc.table.get());
  I* const btable = bucket ? reinterpret_cast<I*>(sc.btable.get()) : nullptr;
  I* const cursor =
      bucket && req.bucket_kernels.pass2 != BucketPass2::Chunk ? btable + entries : nullptr;
  I* const perm = to_records ? nullptr : perm_of<I>(out);
  unsigned* const sorted_records = to_records ? out.records.get() : nullptr;
  unsigned long long* const status = sc.status.get();
  tm.mark("alloc");

  // Pass 1: legality and ranks; then the scan that turns counts into sorted offsets.
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(status, 0xff, kStatusWords * sizeof(unsigned long long), st));
  if (bucket)  // its work counters start at 0
    NUFFTMP_CUDA_TRY(
        cudaMemsetAsync(status + kNumItems, 0, 2 * sizeof(unsigned long long), st));
  // One grid for the order-sensitive passes (count with global atomics, the scatters), one for
  // the coalesced second steps.
  const int blocks = resident_grid(M, dev, locate_sorted_kernel<T, D, I>, scatter_kernel<T, D, I>,
                                   scatter_index_kernel<T, D, I>, scatter_packed_kernel<T, D, I>);
  SortOffsets<I> off{bin_start, 1, 62};
  if (by_block) {
    count_block_kernel<T, D, I><<<static_cast<unsigned>(cp.blocks), kCountThreads,
                                  cp.shared_bytes, st>>>(coords, M, req.grid, req.bins, req.w,
                                                         cp.shift, table,
                                                         bucket ? nullptr : rank,
                                                         geo.bins_per_bucket,
                                                         static_cast<int>(geo.buckets), btable,
                                                         status);
    NUFFTMP_CUDA_CHECK_LAUNCH("count_block_kernel");
    tm.mark("count");  // "locate" for global counting: the stage line tells which ran
    exclusive_sum<I>(table, table, nbins * cp.blocks + 1, sc.cub, st);  // in place
    if (bucket) exclusive_sum<I>(btable, btable, geo.buckets * cp.blocks + 1, sc.cub, st);
    off = SortOffsets<I>{table, cp.blocks, cp.shift};
  } else {
    NUFFTMP_CUDA_TRY(cudaMemsetAsync(counts, 0, nb1 * sizeof(I), st));
    if (M > 0) {
      locate_sorted_kernel<T, D, I><<<blocks, kThreads, 0, st>>>(coords, M, req.grid, req.bins,
                                                                 req.w, counts, rank, status);
      NUFFTMP_CUDA_CHECK_LAUNCH("locate_sorted_kernel");
    }
    tm.mark("locate");
    exclusive_sum<I>(counts, bin_start, nb1, sc.cub, st);
  }
  tm.mark("scan");

  // Pass 2: the point data in sorted order.
  const PointArrays<T> pa = arrays_of(out);
  if (M > 0 && bucket) {
    BucketRun<T, I> br{coords, M, req.grid, req.bins, req.w, cp.shift, cp.blocks, geo, table,
                       btable, cursor, reinterpret_cast<unsigned*>(sc.records.get()),
                       reinterpret_cast<BucketItem*>(sc.items.get()), items, perm, pa,
                       sorted_records, status, dev, st, req.bucket_kernels,
                       req.bucket.tile_points};
    bucket_pass2<T, D, I>(br);
    tm.mark("scatter");
    bucket_pass3<T, D, I>(br);
    tm.mark("unpack");
  } else if (M > 0 && scatter == ScatterKind::Direct) {
    scatter_kernel<T, D, I><<<blocks, kThreads, 0, st>>>(coords, M, req.grid, req.bins, req.w,
                                                         rank, off, perm, pa, status);
    NUFFTMP_CUDA_CHECK_LAUNCH("scatter_kernel");
    tm.mark("scatter");
  } else if (M > 0 && scatter == ScatterKind::Gather) {
    scatter_index_kernel<T, D, I><<<blocks, kThreads, 0, st>>>(coords, M, req.grid, req.bins,
                                                               req.w, rank, off, perm, status);
    NUFFTMP_CUDA_CHECK_LAUNCH("scatter_index_kernel");
    tm.mark("scatter");
    gather_kernel<T, D, I><<<grid_for(M, dev), kThreads, 0, st>>>(coords, M, req.grid, req.bins,
                                                                 req.w, perm, pa);
    NUFFTMP_CUDA_CHECK_LAUNCH("gather_kernel");
    tm.mark("gather");
  } else if (M > 0) {
    // Records layout: the scattered records are final, no unpack.
    auto* const records =
        to_records ? sorted_records : reinterpret_cast<unsigned*>(sc.records.get());
    scatter_packed_kernel<T, D, I><<<blocks, kThreads, 0, st>>>(
        coords, M, req.grid, req.bins, req.w, rank, off, records, status);
    NUFFTMP_CUDA_CHECK_LAUNCH("scatter_packed_kernel");
    tm.mark("scatter");
    if (!to_records) {
      unpack_kernel<T, D, I><<<grid_for(M, dev), kThreads, 0, st>>>(records, M, req.grid,
                                                                   req.bins, req.w, perm, pa);
      NUFFTMP_CUDA_CHECK_LAUNCH("unpack_kernel");
      tm.mark("unpack");
    }
  }

  if (subs) {
    if (by_block) {
      bin_starts_kernel<I><<<grid_for(nb1, dev), kThreads, 0, st>>>(table, cp.blocks, nbins,
                                                                    req.maxsub, bin_start, nsub);
      NUFFTMP_CUDA_CHECK_LAUNCH("bin_starts_kernel");
    } else {
      count_subproblems_kernel<I><<<grid_for(nb1, dev), kThreads, 0, st>>>(bin_start, nbins,
                                                                          req.maxsub, nsub);
      NUFFTMP_CUDA_CHECK_LAUNCH("count_subproblems_kernel");
    }
    exclusive_sum<I>(nsub, sub_start, nb1, sc.cub, st);
    fill_subproblems_kernel<I><<<grid_for(capacity, dev), kThreads, 0, st>>>(
        bin_start, sub_start, nbins, req.maxsub, capacity, out.subproblems.get(), status);
    NUFFTMP_CUDA_CHECK_LAUNCH("fill_subproblems_kernel");
    if (D == 2 && req.band_rows > 0) {
      NUFFTMP_CUDA_TRY(cudaMemsetAsync(status + kRowBands, 0, sizeof(unsigned long long), st));
      row_bands_kernel<I><<<static_cast<unsigned>((nbins + kThreads - 1) / kThreads), kThreads,
                            0, st>>>(bin_start, req.bins, req.grid.nf[1], req.w, req.band_rows,
                                     status);
      NUFFTMP_CUDA_CHECK_LAUNCH("row_bands_kernel");
    }
    tm.mark("subproblems");
  }
  unsigned long long h[kStatusWords];
  read_status(sc.status, h, st);
  tm.mark("sync");
  if (h[kFirstBad] != kNone) return static_cast<std::int64_t>(h[kFirstBad]);
  if (h[kFirstInconsistent] != kNone)
    throw Error(ErrorCode::Internal, "set_points: point " +
                                         std::to_string(h[kFirstInconsistent]) +
                                         " fell outside its bin in the sort's second pass "
                                         "(were the coordinates written during set_points?)");
  out.num_subproblems = subs ? static_cast<std::int64_t>(h[kNumSubproblems]) : 0;
  out.row_bands = subs && D == 2 && req.band_rows > 0 ? h[kRowBands] : ~0ull;
  out.sorted = true;
  out.wide = sizeof(I) == 8;
  out.as_records = to_records;
  for (int d = 0; d < 3; ++d) out.nf[d] = req.grid.nf[d];
  out.w = req.w;
  out.M = M;
  return -1;
}

template <typename T, int D>
std::int64_t prepare_dim(const PointPrepRequest& req, std::int64_t M, Coords3 coords,
                         SortedPoints<T>& out, StageTimer& tm) {
  out.M = 0;
  out.sorted = false;
  out.as_records = false;
  out.row_bands = ~0ull;  // every band, unless the sort marks them
  if (!req.sort) return prepare_unsorted<T, D>(req, M, coords, out, tm);
  if (sort_needs_index64(M, req.bins.total, req.maxsub, req.force_index64))
    return prepare_sorted<T, D, std::int64_t>(req, M, coords, out, tm);
  return prepare_sorted<T, D, std::int32_t>(req, M, coords, out, tm);
}

template <typename... P>
void load(void (*kernel)(P...)) {
  load_kernel(kernel, "a set_points kernel");
}

// Both countings (auto picks per call, by M) and the request's scatter.
template <typename T, int D>
void load_dim(const PointPrepRequest& req) {
  using I = std::int32_t;
  if (!req.sort) return load(locate_unsorted_kernel<T, D>);
  const bool to_records = sorted_layout(req.layout, req.scatter, false) == PointLayout::Records;
  load(locate_sorted_kernel<T, D, I>);
  if (req.count != CountKind::Global) {
    load(count_block_kernel<T, D, I>);
    if (req.maxsub > 0) load(bin_starts_kernel<I>);
  }
  switch (req.scatter) {
    case ScatterKind::Direct: load(scatter_kernel<T, D, I>); break;
    case ScatterKind::Gather:
      load(scatter_index_kernel<T, D, I>);
      load(gather_kernel<T, D, I>);
      break;
    case ScatterKind::Packed:
      load(scatter_packed_kernel<T, D, I>);
      if (!to_records) load(unpack_kernel<T, D, I>);
      break;
    case ScatterKind::Bucket:  // and packed, which runs where the counting is global
      load_bucket_kernels<T, D>(req.bucket_kernels, to_records);
      load(scatter_packed_kernel<T, D, I>);
      if (!to_records) load(unpack_kernel<T, D, I>);
      break;
  }
  if (req.maxsub > 0) {
    load(count_subproblems_kernel<I>);
    load(fill_subproblems_kernel<I>);
    if (D == 2 && req.band_rows > 0) load(row_bands_kernel<I>);
  }
}

}  // namespace

template <typename T, int D>
std::int64_t prepare_points_dim(const PointPrepRequest& req, std::int64_t M, const T* x,
                                const T* y, const T* z, SortedPoints<T>& out) {
  DeviceGuard guard(req.device);
  if (req.sort && req.bins.total >= kIndex32Limit)
    throw Error(ErrorCode::NotAvailable,
                "set_points: " + std::to_string(req.bins.total) +
                    " bins (over 2^31 - 1) for the sort; use larger bins (Options::binsize)");
  StageTimer none(false, req.stream, "", 0);
  StageTimer& tm = req.timer ? *req.timer : none;
  return prepare_dim<T, D>(req, M, Coords3{{x, y, z}}, out, tm);
}

template <typename T, int D>
void load_point_kernels_dim(const PointPrepRequest& req) {
  DeviceGuard guard(req.device);
  load_dim<T, D>(req);
  if (!req.sort) return;
  // CUB's scan kernels cannot be named here; one scan of two zeros loads them, once per device
  // (and translation unit: each has its own copy of them).
  static std::mutex m;
  static std::set<int> done;
  {
    std::lock_guard<std::mutex> lock(m);
    if (!done.insert(req.device).second) return;
  }
  DeviceBuffer<std::int32_t> two(4, req.device, req.stream, "scan warm-up");
  DeviceBuffer<unsigned char> temp(scan_bytes<std::int32_t>(2, req.stream), req.device,
                                   req.stream, "scan warm-up");
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(two.get(), 0, 4 * sizeof(std::int32_t), req.stream));
  exclusive_sum<std::int32_t>(two.get(), two.get() + 2, 2, temp, req.stream);
}

template std::int64_t prepare_points_dim<NUFFTMP_TU_REAL, NUFFTMP_TU_DIM>(
    const PointPrepRequest&, std::int64_t, const NUFFTMP_TU_REAL*, const NUFFTMP_TU_REAL*,
    const NUFFTMP_TU_REAL*, SortedPoints<NUFFTMP_TU_REAL>&);
template void load_point_kernels_dim<NUFFTMP_TU_REAL, NUFFTMP_TU_DIM>(const PointPrepRequest&);

}  // namespace nufftmp::detail
