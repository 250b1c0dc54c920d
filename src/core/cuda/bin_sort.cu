#include <cub/device/device_scan.cuh>

#include <climits>
#include <mutex>
#include <set>
#include <string>
#include <type_traits>

#include "common/checks.hpp"
#include "common/grid.hpp"
#include "cuda/bin_sort.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_guard.hpp"
#include "cuda/index_width.hpp"
#include "cuda/stage_timer.hpp"

namespace nufftmp::detail {

namespace {

constexpr int kThreads = 256;
constexpr unsigned long long kNone = ULLONG_MAX;
// status[] words.
constexpr int kFirstBad = 0, kFirstInconsistent = 1, kNumSubproblems = 2, kStatusWords = 3;

template <typename I>
using Atomic = std::conditional_t<sizeof(I) == 4, unsigned int, unsigned long long>;

struct Coords3 {
  const void* c[3];
};

// Folded position of one coordinate, computed in double so float inputs on grids past 2^24
// cells keep their exact cell: returns the bin coordinate, writes i0 and s.
template <typename T>
__device__ __forceinline__ int locate_axis(T v, int nf, int w, int binsize, int nbins,
                                           std::int32_t& i0, T& s) {
  const double g = fold_rescale<double>(static_cast<double>(v), nf);
  const double first = ceil(g - 0.5 * w);
  i0 = static_cast<std::int32_t>(first);
  s = static_cast<T>(2.0 * (first - g + 0.5 * w) - 1.0);
  const int b = static_cast<int>(floor(g)) / binsize;
  return b < nbins ? b : nbins - 1;
}

template <typename T>
struct Located {
  int bin;
  bool ok;
  std::int32_t i0[3];
  T s[3];
};

// Point j: legality, bin, i0 and s per axis. Illegal coordinates are located as 0, so both
// passes of the sort see the same bin for every point even when the call will be refused.
// Every kernel below locates through this one function: the scatter's bins are the count's.
template <typename T, int D>
__device__ __forceinline__ Located<T> locate_point(const Coords3& coords, std::int64_t j,
                                                   const GridView& grid, const BinView& bins,
                                                   int w) {
  Located<T> p;
  p.ok = true;
  int bc[3] = {0, 0, 0};
#pragma unroll
  for (int d = 0; d < D; ++d) {
    const T v = static_cast<const T*>(coords.c[d])[j];
    const bool ok = in_fold_range(v);  // common/checks.hpp: the rule of both engines
    p.ok = p.ok && ok;
    bc[d] = locate_axis(ok ? v : T(0), grid.nf[d], w, bins.size[d], bins.count[d], p.i0[d],
                        p.s[d]);
  }
  p.bin = bc[0] + bins.count[0] * (bc[1] + bins.count[1] * bc[2]);
  return p;
}

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
                                       BinView bins, int w, std::int32_t* i0_0,
                                       std::int32_t* i0_1, std::int32_t* i0_2, T* s_0, T* s_1,
                                       T* s_2, unsigned long long* status) {
  std::int32_t* i0o[3] = {i0_0, i0_1, i0_2};
  T* so[3] = {s_0, s_1, s_2};
  for_each_point_by_warp(M, [&](std::int64_t j, bool in) {
    bool ok = true;
    if (in) {
      const Located<T> p = locate_point<T, D>(coords, j, grid, bins, w);
      ok = p.ok;
#pragma unroll
      for (int d = 0; d < D; ++d) {
        i0o[d][j] = p.i0[d];
        so[d][j] = p.s[d];
      }
    }
    report_bad(in && !ok, j, status);
  });
}

// Sorted, pass 1: legality, and each point's rank within its bin (warp-aggregated counting:
// the lanes of a warp that share a bin take consecutive ranks from one atomic).
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

// Sorted position of point j, or -1 (and the point recorded as inconsistent) when it falls
// outside its bin. That cannot happen, as both passes locate alike; the check keeps every
// write in bounds even if the coordinates changed between the passes.
template <typename I>
__device__ __forceinline__ std::int64_t sorted_position(int bin, std::int64_t j, const I* rank,
                                                        const I* bin_start,
                                                        unsigned long long* status) {
  const std::int64_t pos = std::int64_t(bin_start[bin]) + std::int64_t(rank[j]);
  if (pos >= std::int64_t(bin_start[bin + 1])) {
    atomicMin(status + kFirstInconsistent, static_cast<unsigned long long>(j));
    return -1;
  }
  return pos;
}

// Sorted, pass 2 (direct variant, NUFFTMP_CUDA_SCATTER=direct): every point writes its
// permutation entry and its i0/s at its sorted position (2 dim + 1 scattered writes per point).
template <typename T, int D, typename I>
__global__ void scatter_kernel(Coords3 coords, std::int64_t M, GridView grid, BinView bins,
                               int w, const I* rank, const I* bin_start, I* perm,
                               std::int32_t* i0_0, std::int32_t* i0_1, std::int32_t* i0_2,
                               T* s_0, T* s_1, T* s_2, unsigned long long* status) {
  std::int32_t* i0o[3] = {i0_0, i0_1, i0_2};
  T* so[3] = {s_0, s_1, s_2};
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < M;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    const Located<T> p = locate_point<T, D>(coords, j, grid, bins, w);
    const std::int64_t pos = sorted_position(p.bin, j, rank, bin_start, status);
    if (pos < 0) continue;
    perm[pos] = static_cast<I>(j);
#pragma unroll
    for (int d = 0; d < D; ++d) {
      i0o[d][pos] = p.i0[d];
      so[d][pos] = p.s[d];
    }
  }
}

// Sorted, pass 2 (gather variant, the default; step 1): the permutation only (one scattered
// write per point).
template <typename T, int D, typename I>
__global__ void scatter_index_kernel(Coords3 coords, std::int64_t M, GridView grid,
                                     BinView bins, int w, const I* rank, const I* bin_start,
                                     I* perm, unsigned long long* status) {
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < M;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    const Located<T> p = locate_point<T, D>(coords, j, grid, bins, w);
    const std::int64_t pos = sorted_position(p.bin, j, rank, bin_start, status);
    if (pos >= 0) perm[pos] = static_cast<I>(j);
  }
}

// Gather variant, step 2: sorted position q reads its point's coordinates and writes i0/s
// coalesced. A position the scatter could not fill (reported as inconsistent, so the call
// fails) holds a stale index: it is range-checked before any read.
template <typename T, int D, typename I>
__global__ void gather_kernel(Coords3 coords, std::int64_t M, GridView grid, BinView bins, int w,
                              const I* perm, std::int32_t* i0_0, std::int32_t* i0_1,
                              std::int32_t* i0_2, T* s_0, T* s_1, T* s_2) {
  std::int32_t* i0o[3] = {i0_0, i0_1, i0_2};
  T* so[3] = {s_0, s_1, s_2};
  for (std::int64_t q = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; q < M;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j = static_cast<std::int64_t>(perm[q]);
    if (j < 0 || j >= M) continue;
    const Located<T> p = locate_point<T, D>(coords, j, grid, bins, w);
#pragma unroll
    for (int d = 0; d < D; ++d) {
      i0o[d][q] = p.i0[d];
      so[d][q] = p.s[d];
    }
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
  static thread_local int sms = 0;
  if (sms == 0) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  const std::int64_t cap = std::int64_t(sms > 0 ? sms : 80) * 32;
  return static_cast<int>(blocks < 1 ? 1 : (blocks < cap ? blocks : cap));
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
  out.subproblems.release();
  out.num_subproblems = 0;
  out.scratch.status.reserve(kStatusWords, dev, st, "point check flags");
  tm.mark("alloc");
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(out.scratch.status.get(), 0xff,
                                   kStatusWords * sizeof(unsigned long long), st));
  if (M > 0) {
    locate_unsorted_kernel<T, D><<<grid_for(M, dev), kThreads, 0, st>>>(
        coords, M, req.grid, req.bins, req.w, out.i0[0].get(), out.i0[1].get(), out.i0[2].get(),
        out.s[0].get(), out.s[1].get(), out.s[2].get(), out.scratch.status.get());
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

template <typename T, int D, typename I>
std::int64_t prepare_sorted(const PointPrepRequest& req, std::int64_t M, Coords3 coords,
                            SortedPoints<T>& out, StageTimer& tm) {
  const int dev = req.device;
  cudaStream_t st = req.stream;
  const std::int64_t nbins = req.bins.total, nb1 = nbins + 1;
  const bool subs = req.maxsub > 0;
  SortScratch& sc = out.scratch;

  reserve_coordinates<T, D>(out, M, dev, st);
  if constexpr (sizeof(I) == 4) {
    out.perm32.reserve(M, dev, st, "sort permutation");
    out.perm64.release();
  } else {
    out.perm64.reserve(M, dev, st, "sort permutation");
    out.perm32.release();
  }
  sc.rank.reserve(M * sizeof(I), dev, st, "ranks in bins");
  sc.bin_arrays.reserve(4 * nb1 * sizeof(I), dev, st, "bin counts and offsets");
  sc.cub.reserve(scan_bytes<I>(nb1, st), dev, st, "scan workspace");
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
  I* const perm = perm_of<I>(out);
  unsigned long long* const status = sc.status.get();
  tm.mark("alloc");

  NUFFTMP_CUDA_TRY(cudaMemsetAsync(status, 0xff, kStatusWords * sizeof(unsigned long long), st));
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(counts, 0, nb1 * sizeof(I), st));
  const int blocks = grid_for(M, dev);
  if (M > 0) {
    locate_sorted_kernel<T, D, I><<<blocks, kThreads, 0, st>>>(coords, M, req.grid, req.bins,
                                                               req.w, counts, rank, status);
    NUFFTMP_CUDA_CHECK_LAUNCH("locate_sorted_kernel");
  }
  tm.mark("locate");
  exclusive_sum<I>(counts, bin_start, nb1, sc.cub, st);
  tm.mark("scan");
  if (M > 0 && !req.gather) {
    scatter_kernel<T, D, I><<<blocks, kThreads, 0, st>>>(
        coords, M, req.grid, req.bins, req.w, rank, bin_start, perm, out.i0[0].get(),
        out.i0[1].get(), out.i0[2].get(), out.s[0].get(), out.s[1].get(), out.s[2].get(),
        status);
    NUFFTMP_CUDA_CHECK_LAUNCH("scatter_kernel");
  } else if (M > 0) {
    scatter_index_kernel<T, D, I><<<blocks, kThreads, 0, st>>>(
        coords, M, req.grid, req.bins, req.w, rank, bin_start, perm, status);
    NUFFTMP_CUDA_CHECK_LAUNCH("scatter_index_kernel");
    gather_kernel<T, D, I><<<blocks, kThreads, 0, st>>>(
        coords, M, req.grid, req.bins, req.w, perm, out.i0[0].get(), out.i0[1].get(),
        out.i0[2].get(), out.s[0].get(), out.s[1].get(), out.s[2].get());
    NUFFTMP_CUDA_CHECK_LAUNCH("gather_kernel");
  }
  tm.mark("scatter");
  if (subs) {
    count_subproblems_kernel<I><<<grid_for(nb1, dev), kThreads, 0, st>>>(bin_start, nbins,
                                                                        req.maxsub, nsub);
    NUFFTMP_CUDA_CHECK_LAUNCH("count_subproblems_kernel");
    exclusive_sum<I>(nsub, sub_start, nb1, sc.cub, st);
    fill_subproblems_kernel<I><<<grid_for(capacity, dev), kThreads, 0, st>>>(
        bin_start, sub_start, nbins, req.maxsub, capacity, out.subproblems.get(), status);
    NUFFTMP_CUDA_CHECK_LAUNCH("fill_subproblems_kernel");
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
  out.sorted = true;
  out.wide = sizeof(I) == 8;
  out.M = M;
  return -1;
}

template <typename T, int D>
std::int64_t prepare_dim(const PointPrepRequest& req, std::int64_t M, Coords3 coords,
                         SortedPoints<T>& out, StageTimer& tm) {
  out.M = 0;
  out.sorted = false;
  if (!req.sort) return prepare_unsorted<T, D>(req, M, coords, out, tm);
  if (sort_needs_index64(M, req.bins.total, req.maxsub, req.force_index64))
    return prepare_sorted<T, D, std::int64_t>(req, M, coords, out, tm);
  return prepare_sorted<T, D, std::int32_t>(req, M, coords, out, tm);
}

template <typename... P>
void load(void (*kernel)(P...)) {
  cudaFuncAttributes attr{};
  NUFFTMP_CUDA_TRY(cudaFuncGetAttributes(&attr, kernel));
}

template <typename T, int D>
void load_dim(const PointPrepRequest& req) {
  using I = std::int32_t;
  if (!req.sort) return load(locate_unsorted_kernel<T, D>);
  load(locate_sorted_kernel<T, D, I>);
  if (req.gather) {
    load(scatter_index_kernel<T, D, I>);
    load(gather_kernel<T, D, I>);
  } else {
    load(scatter_kernel<T, D, I>);
  }
  if (req.maxsub > 0) {
    load(count_subproblems_kernel<I>);
    load(fill_subproblems_kernel<I>);
  }
}

}  // namespace

template <typename T>
std::int64_t prepare_points(const PointPrepRequest& req, std::int64_t M, const T* x, const T* y,
                            const T* z, SortedPoints<T>& out) {
  DeviceGuard guard(req.device);
  if (req.sort && req.bins.total >= kIndex32Limit)
    throw Error(ErrorCode::NotAvailable,
                "set_points: " + std::to_string(req.bins.total) +
                    " bins (over 2^31 - 1) for the sort; use larger bins (Options::binsize)");
  StageTimer none(false, req.stream, "", 0);
  StageTimer& tm = req.timer ? *req.timer : none;
  Coords3 c{{x, y, z}};
  switch (req.dim) {
    case 1: return prepare_dim<T, 1>(req, M, c, out, tm);
    case 2: return prepare_dim<T, 2>(req, M, c, out, tm);
    default: return prepare_dim<T, 3>(req, M, c, out, tm);
  }
}

template <typename T>
void load_point_kernels(const PointPrepRequest& req) {
  DeviceGuard guard(req.device);
  switch (req.dim) {
    case 1: load_dim<T, 1>(req); break;
    case 2: load_dim<T, 2>(req); break;
    default: load_dim<T, 3>(req); break;
  }
  if (!req.sort) return;
  // CUB's scan kernels cannot be named here; one scan of two zeros loads them, once per device.
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

template std::int64_t prepare_points<float>(const PointPrepRequest&, std::int64_t, const float*,
                                            const float*, const float*, SortedPoints<float>&);
template std::int64_t prepare_points<double>(const PointPrepRequest&, std::int64_t,
                                             const double*, const double*, const double*,
                                             SortedPoints<double>&);
template void load_point_kernels<float>(const PointPrepRequest&);
template void load_point_kernels<double>(const PointPrepRequest&);

}  // namespace nufftmp::detail
