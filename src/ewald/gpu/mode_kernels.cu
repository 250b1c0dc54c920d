// The mode-array step on the GPU (apply_green of mode_array.hpp, one thread per mode) and
// the deterministic sums (CUB DeviceReduce) of the energies.
#include <cub/device/device_reduce.cuh>

#include "cuda/cuda_check.hpp"
#include "kernels.hpp"

namespace nufftmp::ewald::detail {

namespace {

constexpr int kThreads = 256;

template <bool Forces>
__global__ void green_kernel(ModeGrid m, const double* S, double* f, double* e) {
  const std::int64_t count = m.count();
  for (std::int64_t idx = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; idx < count;
       idx += std::int64_t(gridDim.x) * blockDim.x)
    e[idx] = apply_green<Forces>(idx, m, S, f, count);
}

}  // namespace

int blocks_for(std::int64_t n, int threads) {
  static thread_local int sms = 0;
  if (sms == 0) {
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (sms <= 0) sms = 80;
  }
  const std::int64_t blocks = (n + threads - 1) / threads;
  const std::int64_t cap = std::int64_t(sms) * 32;
  return static_cast<int>(blocks < 1 ? 1 : (blocks < cap ? blocks : cap));
}

void green_modes(const ModeGrid& m, const double* S, double* f, double* e, bool forces,
                 cudaStream_t stream) {
  const int blocks = blocks_for(m.count(), kThreads);
  if (forces)
    green_kernel<true><<<blocks, kThreads, 0, stream>>>(m, S, f, e);
  else
    green_kernel<false><<<blocks, kThreads, 0, stream>>>(m, S, f, e);
  NUFFTMP_CUDA_CHECK_LAUNCH("ewald green_kernel");
}

std::size_t sum_temp_bytes(std::int64_t n) {
  std::size_t bytes = 0;
  NUFFTMP_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const double*>(nullptr),
                                          static_cast<double*>(nullptr), n));
  return bytes;
}

void device_sum(void* temp, std::size_t temp_bytes, const double* in, double* out,
                std::int64_t n, cudaStream_t stream) {
  NUFFTMP_CUDA_TRY(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, stream));
}

}  // namespace nufftmp::ewald::detail
