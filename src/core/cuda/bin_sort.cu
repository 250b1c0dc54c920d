#include <cub/device/device_scan.cuh>

#include <climits>

#include "common/checks.hpp"
#include "common/grid.hpp"
#include "cuda/bin_sort.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_guard.hpp"

namespace nufftmp::detail {

namespace {

constexpr int kThreads = 256;

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

struct Coords3 {
  const void* c[3];
};

// Per point: legality check, bin index, rank within its bin (warp-aggregated counting). When
// unsorted, writes i0/s in user order directly.
template <typename T, int D, bool Sort>
__global__ void locate_kernel(Coords3 coords, std::int64_t M, GridView grid, BinView bins, int w,
                              std::int64_t* counts, std::int32_t* bin_of, std::int64_t* rank,
                              PointsView<T> direct, std::int32_t* i0_out0, std::int32_t* i0_out1,
                              std::int32_t* i0_out2, T* s_out0, T* s_out1, T* s_out2,
                              unsigned long long* first_bad) {
  const int lane = threadIdx.x & 31;
  // Warp-uniform loop: every lane of a warp runs the same iterations, so the match below is
  // always made by the lanes that are really present.
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int32_t* i0o[3] = {i0_out0, i0_out1, i0_out2};
  T* so[3] = {s_out0, s_out1, s_out2};
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x + (threadIdx.x & ~31);
       base < M; base += stride) {
    const std::int64_t j = base + lane;
    const bool in = j < M;
    int bin = 0;
    if (in) {
      int bc[3] = {0, 0, 0};
      bool ok = true;
#pragma unroll
      for (int d = 0; d < D; ++d) {
        const T v = static_cast<const T*>(coords.c[d])[j];
        ok = ok && in_fold_range(v);  // common/checks.hpp: the rule of both engines
        std::int32_t i0;
        T s;
        bc[d] = locate_axis(in_fold_range(v) ? v : T(0), grid.nf[d], w, bins.size[d],
                            bins.count[d], i0, s);
        if (!Sort) {
          i0o[d][j] = i0;
          so[d][j] = s;
        }
      }
      if (!ok) atomicMin(first_bad, static_cast<unsigned long long>(j));
      bin = bc[0] + bins.count[0] * (bc[1] + bins.count[1] * bc[2]);
    }
    if (Sort) {
      const unsigned active = __ballot_sync(0xffffffffu, in);
      if (in) {
        const unsigned peers = __match_any_sync(active, bin);
        const int leader = __ffs(peers) - 1;
        unsigned long long old = 0;
        if (lane == leader)
          old = atomicAdd(reinterpret_cast<unsigned long long*>(counts + bin),
                          static_cast<unsigned long long>(__popc(peers)));
        old = __shfl_sync(peers, old, leader);
        bin_of[j] = bin;
        rank[j] = static_cast<std::int64_t>(old) + __popc(peers & ((1u << lane) - 1u));
      }
    }
  }
  (void)direct;
}

template <typename T, int D>
__global__ void scatter_kernel(Coords3 coords, std::int64_t M, GridView grid, BinView bins,
                               int w, const std::int32_t* bin_of, const std::int64_t* rank,
                               const std::int64_t* bin_start, std::int64_t* perm,
                               std::int32_t* i0_0, std::int32_t* i0_1, std::int32_t* i0_2,
                               T* s_0, T* s_1, T* s_2) {
  std::int32_t* i0o[3] = {i0_0, i0_1, i0_2};
  T* so[3] = {s_0, s_1, s_2};
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < M;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t pos = bin_start[bin_of[j]] + rank[j];
    perm[pos] = j;
#pragma unroll
    for (int d = 0; d < D; ++d) {
      const T v = static_cast<const T*>(coords.c[d])[j];
      std::int32_t i0;
      T s;
      locate_axis(v, grid.nf[d], w, bins.size[d], bins.count[d], i0, s);
      i0o[d][pos] = i0;
      so[d][pos] = s;
    }
  }
}

__global__ void count_subproblems_kernel(const std::int64_t* bin_start, std::int64_t nbins,
                                         int maxsub, std::int64_t* nsub) {
  for (std::int64_t b = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b <= nbins;
       b += std::int64_t(gridDim.x) * blockDim.x) {
    nsub[b] = b < nbins ? (bin_start[b + 1] - bin_start[b] + maxsub - 1) / maxsub : 0;
  }
}

__global__ void fill_subproblems_kernel(const std::int64_t* bin_start,
                                        const std::int64_t* sub_start, std::int64_t nbins,
                                        int maxsub, Subproblem* subs) {
  for (std::int64_t b = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; b < nbins;
       b += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t n = bin_start[b + 1] - bin_start[b];
    std::int64_t out = sub_start[b];
    for (std::int64_t k = 0; k < n; k += maxsub) {
      const std::int64_t cnt = n - k < maxsub ? n - k : maxsub;
      subs[out++] = Subproblem{bin_start[b] + k, static_cast<std::int32_t>(cnt),
                               static_cast<std::int32_t>(b)};
    }
  }
}

int grid_for(std::int64_t n, int device) {
  static thread_local int sms = 0;
  if (sms == 0) cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const std::int64_t blocks = (n + kThreads - 1) / kThreads;
  const std::int64_t cap = std::int64_t(sms > 0 ? sms : 80) * 32;
  return static_cast<int>(blocks < 1 ? 1 : (blocks < cap ? blocks : cap));
}

// CUB's two-call idiom: size query, stream-ordered temporary, the scan.
void exclusive_sum(const std::int64_t* in, std::int64_t* out, std::int64_t n, int device,
                   cudaStream_t stream) {
  std::size_t temp_bytes = 0;
  NUFFTMP_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out, n, stream));
  DeviceBuffer<unsigned char> temp(temp_bytes, device, stream, "scan workspace");
  NUFFTMP_CUDA_TRY(cub::DeviceScan::ExclusiveSum(temp.get(), temp_bytes, in, out, n, stream));
}

template <typename T, int D>
std::int64_t prepare_dim(const PointPrepRequest& req, std::int64_t M, Coords3 coords,
                         SortedPoints<T>& out) {
  const int dev = req.device;
  cudaStream_t st = req.stream;
  out.M = 0;
  out.sorted = req.sort;
  for (int d = 0; d < 3; ++d) {
    if (d < D) {
      out.i0[d].reserve(M, dev, st, "point cells (i0)");
      out.s[d].reserve(M, dev, st, "point offsets (s)");
    } else {
      out.i0[d].release();
      out.s[d].release();
    }
  }
  DeviceBuffer<unsigned long long> bad(1, dev, st, "point check flag");
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(bad.get(), 0xff, sizeof(unsigned long long), st));
  const std::int64_t nbins = req.bins.total;
  unsigned long long h_bad = ULLONG_MAX;
  std::int64_t h_nsub = 0;
  DeviceBuffer<std::int32_t> bin_of;
  DeviceBuffer<std::int64_t> rank, counts, nsub, sub_start;
  const int blocks = grid_for(M, dev);
  if (!req.sort) {
    out.perm.release();
    out.bin_start.release();
    out.subproblems.release();
    out.num_subproblems = 0;
    if (M > 0) {
      locate_kernel<T, D, false><<<blocks, kThreads, 0, st>>>(
          coords, M, req.grid, req.bins, req.w, nullptr, nullptr, nullptr, PointsView<T>{},
          out.i0[0].get(), out.i0[1].get(), out.i0[2].get(), out.s[0].get(), out.s[1].get(),
          out.s[2].get(), bad.get());
      NUFFTMP_CUDA_CHECK_LAUNCH("locate_kernel");
    }
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(&h_bad, bad.get(), sizeof h_bad, cudaMemcpyDeviceToHost, st));
    NUFFTMP_CUDA_TRY(cudaStreamSynchronize(st));
    if (h_bad != ULLONG_MAX) return static_cast<std::int64_t>(h_bad);
    out.M = M;
    return -1;
  }

  out.perm.reserve(M, dev, st, "sort permutation");
  out.bin_start.reserve(nbins + 1, dev, st, "bin offsets");
  bin_of.allocate(M, dev, st, "bin indices (temporary)");
  rank.allocate(M, dev, st, "ranks in bins (temporary)");
  counts.allocate(nbins + 1, dev, st, "bin counts (temporary)");
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(counts.get(), 0, (nbins + 1) * sizeof(std::int64_t), st));
  if (M > 0) {
    locate_kernel<T, D, true><<<blocks, kThreads, 0, st>>>(
        coords, M, req.grid, req.bins, req.w, counts.get(), bin_of.get(), rank.get(),
        PointsView<T>{}, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, bad.get());
    NUFFTMP_CUDA_CHECK_LAUNCH("locate_kernel");
  }
  exclusive_sum(counts.get(), out.bin_start.get(), nbins + 1, dev, st);
  if (req.maxsub > 0) {
    nsub.allocate(nbins + 1, dev, st, "subproblem counts (temporary)");
    sub_start.allocate(nbins + 1, dev, st, "subproblem offsets (temporary)");
    count_subproblems_kernel<<<grid_for(nbins + 1, dev), kThreads, 0, st>>>(
        out.bin_start.get(), nbins, req.maxsub, nsub.get());
    NUFFTMP_CUDA_CHECK_LAUNCH("count_subproblems_kernel");
    exclusive_sum(nsub.get(), sub_start.get(), nbins + 1, dev, st);
    NUFFTMP_CUDA_TRY(cudaMemcpyAsync(&h_nsub, sub_start.get() + nbins, sizeof h_nsub,
                                     cudaMemcpyDeviceToHost, st));
  }
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(&h_bad, bad.get(), sizeof h_bad, cudaMemcpyDeviceToHost, st));
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(st));
  if (h_bad != ULLONG_MAX) return static_cast<std::int64_t>(h_bad);

  if (M > 0) {
    scatter_kernel<T, D><<<blocks, kThreads, 0, st>>>(
        coords, M, req.grid, req.bins, req.w, bin_of.get(), rank.get(), out.bin_start.get(),
        out.perm.get(), out.i0[0].get(), out.i0[1].get(), out.i0[2].get(), out.s[0].get(),
        out.s[1].get(), out.s[2].get());
    NUFFTMP_CUDA_CHECK_LAUNCH("scatter_kernel");
  }
  if (req.maxsub > 0) {
    out.num_subproblems = h_nsub;
    out.subproblems.reserve(h_nsub > 0 ? h_nsub : 1, dev, st, "subproblem list");
    fill_subproblems_kernel<<<grid_for(nbins, dev), kThreads, 0, st>>>(
        out.bin_start.get(), sub_start.get(), nbins, req.maxsub, out.subproblems.get());
    NUFFTMP_CUDA_CHECK_LAUNCH("fill_subproblems_kernel");
  } else {
    out.subproblems.release();
    out.num_subproblems = 0;
  }
  out.M = M;
  return -1;  // temporaries are freed in stream order as they go out of scope
}

}  // namespace

template <typename T>
std::int64_t prepare_points(const PointPrepRequest& req, std::int64_t M, const T* x, const T* y,
                            const T* z, SortedPoints<T>& out) {
  DeviceGuard guard(req.device);
  Coords3 c{{x, y, z}};
  switch (req.dim) {
    case 1: return prepare_dim<T, 1>(req, M, c, out);
    case 2: return prepare_dim<T, 2>(req, M, c, out);
    default: return prepare_dim<T, 3>(req, M, c, out);
  }
}

template std::int64_t prepare_points<float>(const PointPrepRequest&, std::int64_t, const float*,
                                            const float*, const float*, SortedPoints<float>&);
template std::int64_t prepare_points<double>(const PointPrepRequest&, std::int64_t,
                                             const double*, const double*, const double*,
                                             SortedPoints<double>&);

}  // namespace nufftmp::detail
