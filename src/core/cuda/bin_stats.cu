// set_points' bin statistics (bin_stats.hpp): a thread per subproblem; the last subproblem of
// each bin finds the bin's first one by binary search (the list is in bin order), so it knows
// the bin's count; a warp reduction, then one atomic per warp and statistic.
#include "cuda/bin_stats.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/launch_common.cuh"

namespace nufftmp::detail {

namespace {

__global__ void bin_stats_kernel(const Subproblem* subs, std::int64_t n, std::int64_t crowded_from,
                                 unsigned long long* out) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long nonempty = 0, max_count = 0, crowded = 0;
  if (k < n) {
    const std::int32_t bin = subs[k].bin;
    if (k + 1 == n || subs[k + 1].bin != bin) {  // the bin's last subproblem
      std::int64_t lo = 0, hi = k;                // its first: the lowest index of this bin
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (subs[mid].bin < bin) lo = mid + 1;
        else hi = mid;
      }
      const std::int64_t count = subs[k].start + subs[k].count - subs[lo].start;
      nonempty = 1;
      max_count = count > 0 ? static_cast<unsigned long long>(count) : 0;
      crowded = count >= crowded_from ? max_count : 0;
    }
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    nonempty += __shfl_xor_sync(0xffffffffu, nonempty, o);
    crowded += __shfl_xor_sync(0xffffffffu, crowded, o);
    const unsigned long long m = __shfl_xor_sync(0xffffffffu, max_count, o);
    max_count = m > max_count ? m : max_count;
  }
  if ((threadIdx.x & 31) == 0 && nonempty > 0) {
    atomicAdd(out, nonempty);
    atomicMax(out + 1, max_count);
    atomicAdd(out + 2, crowded);
  }
}

}  // namespace

BinStats measure_bins(const Subproblem* subs, std::int64_t n, std::int64_t M, const BinView& bins,
                      std::int64_t crowded_from, unsigned long long* out, cudaStream_t stream) {
  BinStats s;
  s.points = M;
  s.bins = bins.total;
  if (n <= 0 || M <= 0) return s;
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(out, 0, kBinStatsWords * sizeof(unsigned long long), stream));
  const int threads = 256;  // whole warps: the reduction shuffles with a full mask
  const std::int64_t blocks = (n + threads - 1) / threads;
  bin_stats_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(subs, n, crowded_from,
                                                                          out);
  check_launch("bin_stats_kernel");
  unsigned long long h[kBinStatsWords] = {0, 0, 0};
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(h, out, sizeof(h), cudaMemcpyDeviceToHost, stream));
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream));
  s.nonempty = static_cast<std::int64_t>(h[0]);
  s.max_count = static_cast<std::int64_t>(h[1]);
  s.crowded = static_cast<std::int64_t>(h[2]);
  return s;
}

void load_bin_stats_kernel() { load_kernel(bin_stats_kernel, "bin_stats_kernel"); }

}  // namespace nufftmp::detail
