// Device kernels of GPU orientation matching (match_kernels.hpp). The product itself is a
// cuBLAS GEMM (match_gpu.cpp); these are the cheap passes around it.
#include <math_constants.h>

#include <cmath>

#include "cuda/cuda_check.hpp"
#include "grid_stride.cuh"
#include "match_kernels.hpp"

namespace nufftmp::mtip::detail {

namespace {

template <typename T>
__global__ void slice_points_kernel(const double* __restrict__ pos, const double* __restrict__ rot,
                                    std::int64_t n, std::int64_t npix, double scale, T* x, T* y,
                                    T* z) {
  const double* px = pos;
  const double* py = pos + npix;
  const double* pz = pos + 2 * npix;
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t o = j / npix, p = j - o * npix;
    const double* m = rot + 9 * o;
    // Explicit rounding: the host compiles slice_points without contraction, and equal
    // coordinates make the host and GPU slices differ only by the NUFFT engines.
    const double a = px[p], b = py[p], c = pz[p];
    x[j] = static_cast<T>(__dmul_rn(scale, __dadd_rn(__dadd_rn(__dmul_rn(m[0], a), __dmul_rn(m[1], b)), __dmul_rn(m[2], c))));
    y[j] = static_cast<T>(__dmul_rn(scale, __dadd_rn(__dadd_rn(__dmul_rn(m[3], a), __dmul_rn(m[4], b)), __dmul_rn(m[5], c))));
    z[j] = static_cast<T>(__dmul_rn(scale, __dadd_rn(__dadd_rn(__dmul_rn(m[6], a), __dmul_rn(m[7], b)), __dmul_rn(m[8], c))));
  }
}

// One block per slice: a block-wide double sum for its norm.
template <typename T>
__global__ void weighted_slices_kernel(const T* __restrict__ values, const float* __restrict__ w,
                                       std::int64_t npix, double* sw, double* norm) {
  __shared__ double part[kThreads];
  const std::int64_t r = blockIdx.x;
  const T* v = values + 2 * r * npix;  // complex: re at even offsets
  double* out = sw + r * npix;
  double sum = 0;
  for (std::int64_t p = threadIdx.x; p < npix; p += blockDim.x) {
    const double s = static_cast<double>(v[2 * p]);
    const double ws = w ? static_cast<double>(w[p]) * s : s;
    out[p] = ws;
    sum += ws * s;
  }
  part[threadIdx.x] = sum;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) norm[r] = part[0];
}

__global__ void widen_kernel(const float* in, double* out, std::int64_t n) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x)
    out[j] = in[j];
}

__global__ void topk_reset_kernel(std::int64_t* index, double* cost, std::int64_t n) {
  for (std::int64_t j = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; j < n;
       j += std::int64_t(gridDim.x) * blockDim.x) {
    index[j] = -1;
    cost[j] = CUDART_INF;
  }
}

// One thread per image walks the batch (coalesced: neighbouring threads read neighbouring
// images of one reference) and insertion-sorts into its list, as the host loop does. The
// worst kept entry is held in registers, so most references cost one compare. Work per batch
// is ni x nall compares, a small fraction of the GEMM's ni x nall x npix.
__global__ void topk_update_kernel(const double* __restrict__ cross, std::int64_t ni,
                                   std::int64_t nall, const double* __restrict__ norm,
                                   std::int64_t first, bool fit_scale, std::int64_t k,
                                   std::int64_t* index, double* cost) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= ni) return;
  double worst_c = cost[(k - 1) * ni + i];
  std::int64_t worst_i = index[(k - 1) * ni + i];
  for (std::int64_t r = 0; r < nall; ++r) {
    const double c = cross[r * ni + i];
    const double n = norm[r];
    const double value = fit_scale ? -fmax(0.0, c) / sqrt(fmax(n, 1e-300)) : n - 2.0 * c;
    const std::int64_t g = first + r;
    // (value, g) ranks before the entry (bc, bi): lower cost, or equal cost and lower index.
    const auto before = [&](double bc, std::int64_t bi) {
      return value < bc || (value == bc && (bi < 0 || g < bi));
    };
    if (!before(worst_c, worst_i)) continue;
    std::int64_t j = k - 1;
    for (; j > 0; --j) {
      const double bc = cost[(j - 1) * ni + i];
      const std::int64_t bi = index[(j - 1) * ni + i];
      if (!before(bc, bi)) break;
      cost[j * ni + i] = bc;
      index[j * ni + i] = bi;
    }
    cost[j * ni + i] = value;
    index[j * ni + i] = g;
    worst_c = cost[(k - 1) * ni + i];
    worst_i = index[(k - 1) * ni + i];
  }
}
}  // namespace

template <typename T>
void launch_slice_points(const double* positions, const double* rot, std::int64_t nb,
                         std::int64_t npix, double scale, T* x, T* y, T* z, cudaStream_t stream) {
  const std::int64_t n = nb * npix;
  if (n == 0) return;
  slice_points_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(positions, rot, n, npix, scale, x,
                                                               y, z);
  NUFFTMP_CUDA_CHECK_LAUNCH("slice_points_kernel");
}

template <typename T>
void launch_weighted_slices(const T* values, const float* w, std::int64_t nb, std::int64_t npix,
                            double* sw, double* norm, cudaStream_t stream) {
  if (nb == 0) return;
  weighted_slices_kernel<T><<<static_cast<unsigned>(nb), kThreads, 0, stream>>>(values, w, npix,
                                                                                sw, norm);
  NUFFTMP_CUDA_CHECK_LAUNCH("weighted_slices_kernel");
}

void launch_widen(const float* in, double* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  widen_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n);
  NUFFTMP_CUDA_CHECK_LAUNCH("widen_kernel");
}

void launch_topk_reset(std::int64_t* index, double* cost, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return;
  topk_reset_kernel<<<blocks_for(n), kThreads, 0, stream>>>(index, cost, n);
  NUFFTMP_CUDA_CHECK_LAUNCH("topk_reset_kernel");
}

void launch_topk_update(const double* cross, std::int64_t ni, std::int64_t nall,
                        const double* norm, std::int64_t first, bool fit_scale, std::int64_t k,
                        std::int64_t* index, double* cost, cudaStream_t stream) {
  if (ni == 0 || nall == 0) return;
  // Small blocks: ni is a few thousand images, and more blocks spread them over more SMs.
  constexpr int threads = 64;
  const unsigned blocks = static_cast<unsigned>((ni + threads - 1) / threads);
  topk_update_kernel<<<blocks, threads, 0, stream>>>(cross, ni, nall, norm, first, fit_scale, k,
                                                     index, cost);
  NUFFTMP_CUDA_CHECK_LAUNCH("topk_update_kernel");
}

template void launch_slice_points<float>(const double*, const double*, std::int64_t, std::int64_t,
                                         double, float*, float*, float*, cudaStream_t);
template void launch_slice_points<double>(const double*, const double*, std::int64_t,
                                          std::int64_t, double, double*, double*, double*,
                                          cudaStream_t);
template void launch_weighted_slices<float>(const float*, const float*, std::int64_t,
                                            std::int64_t, double*, double*, cudaStream_t);
template void launch_weighted_slices<double>(const double*, const float*, std::int64_t,
                                             std::int64_t, double*, double*, cudaStream_t);

}  // namespace nufftmp::mtip::detail
