// Device passes of GPU phasing (phasing_kernels.hpp).
#include <algorithm>

#include "cuda/cuda_check.hpp"
#include "grid_stride.cuh"
#include "phasing_kernels.hpp"

namespace nufftmp::mtip::detail {

namespace {

__global__ void project_kernel(cuDoubleComplex* __restrict__ g, const double* __restrict__ amp,
                               std::int64_t n, double* __restrict__ sqdiff) {
  NUFFTMP_GRID_STRIDE(i, n) {
    const cuDoubleComplex v = g[i];
    const double mag = hypot(cuCreal(v), cuCimag(v));
    const double a = amp[i];
    if (sqdiff) sqdiff[i] = (mag - a) * (mag - a);
    if (mag > 0) {
      const double f = a / mag;
      g[i] = make_cuDoubleComplex(cuCreal(v) * f, cuCimag(v) * f);
    } else {
      g[i] = make_cuDoubleComplex(a, 0.0);
    }
  }
}

__global__ void er_kernel(const cuDoubleComplex* __restrict__ g,
                          const unsigned char* __restrict__ support, std::int64_t n, double scale,
                          double* __restrict__ rho) {
  NUFFTMP_GRID_STRIDE(i, n) {
    const double p = cuCreal(g[i]) * scale;
    rho[i] = (support[i] && p > 0) ? p : 0.0;
  }
}

__global__ void hio_kernel(const cuDoubleComplex* __restrict__ g,
                           const unsigned char* __restrict__ support, std::int64_t n, double scale,
                           double beta, double* __restrict__ rho) {
  NUFFTMP_GRID_STRIDE(i, n) {
    const double p = cuCreal(g[i]) * scale;
    rho[i] = (support[i] && p > 0) ? p : rho[i] - beta * p;
  }
}

__device__ inline double signed_freq(std::int64_t i, std::int64_t M) {
  return static_cast<double>(i <= M / 2 ? i : i - M) / static_cast<double>(M);
}

__global__ void gaussian_kernel(cuDoubleComplex* __restrict__ g, std::int64_t M, double c) {
  const std::int64_t n = M * M * M;
  NUFFTMP_GRID_STRIDE(idx, n) {
    const std::int64_t i = idx % M, j = (idx / M) % M, k = idx / (M * M);
    const double fi = signed_freq(i, M), fj = signed_freq(j, M), fk = signed_freq(k, M);
    const double w = exp(-c * (fi * fi + fj * fj + fk * fk));
    g[idx] = make_cuDoubleComplex(cuCreal(g[idx]) * w, cuCimag(g[idx]) * w);
  }
}

__global__ void threshold_kernel(const double* __restrict__ blurred, std::int64_t n,
                                 const double* __restrict__ max_value, double threshold,
                                 unsigned char* __restrict__ support) {
  const double cut = threshold * fmax(*max_value, 0.0);  // the host starts its maximum at 0
  NUFFTMP_GRID_STRIDE(i, n) support[i] = blurred[i] > cut ? 1 : 0;
}

}  // namespace

void launch_project_amplitudes(cuDoubleComplex* g, const double* amp, std::int64_t n,
                               double* sqdiff, cudaStream_t stream) {
  if (n == 0) return;
  project_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, amp, n, sqdiff);
  NUFFTMP_CUDA_CHECK_LAUNCH("project_kernel");
}

void launch_er_update(const cuDoubleComplex* g, const unsigned char* support, std::int64_t n,
                      double scale, double* rho, cudaStream_t stream) {
  if (n == 0) return;
  er_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, support, n, scale, rho);
  NUFFTMP_CUDA_CHECK_LAUNCH("er_kernel");
}

void launch_hio_update(const cuDoubleComplex* g, const unsigned char* support, std::int64_t n,
                       double scale, double beta, double* rho, cudaStream_t stream) {
  if (n == 0) return;
  hio_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, support, n, scale, beta, rho);
  NUFFTMP_CUDA_CHECK_LAUNCH("hio_kernel");
}

void launch_gaussian_filter(cuDoubleComplex* g, std::int64_t M, double c, cudaStream_t stream) {
  const std::int64_t n = M * M * M;
  if (n == 0) return;
  gaussian_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, M, c);
  NUFFTMP_CUDA_CHECK_LAUNCH("gaussian_kernel");
}

void launch_threshold(const double* blurred, std::int64_t n, const double* max_value,
                      double threshold, unsigned char* support, cudaStream_t stream) {
  if (n == 0) return;
  threshold_kernel<<<blocks_for(n), kThreads, 0, stream>>>(blurred, n, max_value, threshold,
                                                           support);
  NUFFTMP_CUDA_CHECK_LAUNCH("threshold_kernel");
}

}  // namespace nufftmp::mtip::detail
