// Element-wise passes and CUB reductions over device arrays (volume_kernels.hpp).
#include <cub/device/device_reduce.cuh>

#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "grid_stride.cuh"
#include "volume_kernels.hpp"

namespace nufftmp::mtip::detail {

namespace {

__global__ void real_to_complex_kernel(const double* __restrict__ in, std::int64_t n,
                                       cuDoubleComplex* __restrict__ out) {
  NUFFTMP_GRID_STRIDE(i, n) out[i] = make_cuDoubleComplex(in[i], 0.0);
}

__global__ void real_part_kernel(const cuDoubleComplex* __restrict__ in, std::int64_t n,
                                 double scale, double* __restrict__ out) {
  NUFFTMP_GRID_STRIDE(i, n) out[i] = scale * cuCreal(in[i]);
}

__global__ void axpy_kernel(double a, const double* __restrict__ x, std::int64_t n,
                            double* __restrict__ y) {
  NUFFTMP_GRID_STRIDE(i, n) y[i] += a * x[i];
}

__global__ void xpby_kernel(const double* __restrict__ x, double b, std::int64_t n,
                            double* __restrict__ y) {
  NUFFTMP_GRID_STRIDE(i, n) y[i] = x[i] + b * y[i];
}

}  // namespace

void launch_real_to_complex(const double* in, std::int64_t n, cuDoubleComplex* out,
                            cudaStream_t stream) {
  if (n == 0) return;
  real_to_complex_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, n, out);
  NUFFTMP_CUDA_CHECK_LAUNCH("real_to_complex_kernel");
}

void launch_real_part(const cuDoubleComplex* in, std::int64_t n, double scale, double* out,
                      cudaStream_t stream) {
  if (n == 0) return;
  real_part_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, n, scale, out);
  NUFFTMP_CUDA_CHECK_LAUNCH("real_part_kernel");
}

void launch_axpy(double a, const double* x, std::int64_t n, double* y, cudaStream_t stream) {
  if (n == 0) return;
  axpy_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, x, n, y);
  NUFFTMP_CUDA_CHECK_LAUNCH("axpy_kernel");
}

void launch_xpby(const double* x, double b, std::int64_t n, double* y, cudaStream_t stream) {
  if (n == 0) return;
  xpby_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, b, n, y);
  NUFFTMP_CUDA_CHECK_LAUNCH("xpby_kernel");
}

// CUB's two-call idiom: the size query with a null buffer, then the call.
std::size_t reduce_temp_bytes(std::int64_t n) {
  std::size_t sum = 0, max = 0;
  NUFFTMP_CUDA_TRY(cub::DeviceReduce::Sum(nullptr, sum, static_cast<const double*>(nullptr),
                                          static_cast<double*>(nullptr), n));
  NUFFTMP_CUDA_TRY(cub::DeviceReduce::Max(nullptr, max, static_cast<const double*>(nullptr),
                                          static_cast<double*>(nullptr), n));
  return std::max<std::size_t>({sum, max, 1});
}

void launch_sum(void* temp, std::size_t temp_bytes, const double* in, std::int64_t n, double* out,
                cudaStream_t stream) {
  NUFFTMP_CUDA_TRY(cub::DeviceReduce::Sum(temp, temp_bytes, in, out, n, stream));
}

void launch_max(void* temp, std::size_t temp_bytes, const double* in, std::int64_t n, double* out,
                cudaStream_t stream) {
  NUFFTMP_CUDA_TRY(cub::DeviceReduce::Max(temp, temp_bytes, in, out, n, stream));
}

}  // namespace nufftmp::mtip::detail
