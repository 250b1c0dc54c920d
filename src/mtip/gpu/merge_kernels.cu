// Device passes of merging on the GPU (merge_kernels.hpp).
#include "chan_circulant.hpp"
#include "cuda/cuda_check.hpp"
#include "grid_stride.cuh"
#include "merge_kernels.hpp"

namespace nufftmp::mtip::detail {

namespace {

// Periodic index on an axis of length L of the signed mode k = i - M/2 of centred index i.
__device__ inline std::int64_t wrapped(std::int64_t i, std::int64_t h, std::int64_t L) {
  const std::int64_t k = i - h;
  return k < 0 ? k + L : k;
}

// The index on the L^3 lattice (FFT order) of centred index c of the M^3 cube.
__device__ inline std::int64_t embed_index(std::int64_t c, std::int64_t M, std::int64_t L) {
  const std::int64_t h = M / 2;
  const std::int64_t i = c % M, j = (c / M) % M, k = c / (M * M);
  return (wrapped(k, h, L) * L + wrapped(j, h, L)) * L + wrapped(i, h, L);
}

__global__ void embed_kernel(const cuDoubleComplex* __restrict__ in, std::int64_t M,
                             std::int64_t L, cuDoubleComplex* __restrict__ grid) {
  NUFFTMP_GRID_STRIDE(c, M * M * M) grid[embed_index(c, M, L)] = in[c];
}

__global__ void extract_kernel(const cuDoubleComplex* __restrict__ grid,
                               const cuDoubleComplex* __restrict__ in, double lambda,
                               std::int64_t M, std::int64_t L, cuDoubleComplex* __restrict__ out) {
  NUFFTMP_GRID_STRIDE(c, M * M * M) {
    const cuDoubleComplex g = grid[embed_index(c, M, L)];
    out[c] = lambda != 0 ? make_cuDoubleComplex(cuCreal(g) + lambda * cuCreal(in[c]),
                                                cuCimag(g) + lambda * cuCimag(in[c]))
                         : g;
  }
}

__global__ void multiply_kernel(cuDoubleComplex* __restrict__ a,
                                const cuDoubleComplex* __restrict__ b, std::int64_t n) {
  NUFFTMP_GRID_STRIDE(i, n) a[i] = cuCmul(a[i], b[i]);
}

__global__ void scale_kernel(cuDoubleComplex* v, double s, std::int64_t n) {
  NUFFTMP_GRID_STRIDE(i, n) v[i] = make_cuDoubleComplex(s * cuCreal(v[i]), s * cuCimag(v[i]));
}

__global__ void scale_by_kernel(cuDoubleComplex* __restrict__ g, const double* __restrict__ s,
                                std::int64_t n) {
  NUFFTMP_GRID_STRIDE(i, n) g[i] = make_cuDoubleComplex(s[i] * cuCreal(g[i]), s[i] * cuCimag(g[i]));
}

__global__ void chan_kernel(const cuDoubleComplex* __restrict__ t, std::int64_t M, std::int64_t L,
                            cuDoubleComplex* __restrict__ c) {
  const auto re_t = [t](std::int64_t index) { return cuCreal(t[index]); };
  NUFFTMP_GRID_STRIDE(idx, M * M * M) {
    const std::int64_t i = idx % M, j = (idx / M) % M, k = idx / (M * M);
    c[idx] = make_cuDoubleComplex(chan_coefficient(i, j, k, M, L, re_t), 0.0);
  }
}

__global__ void reorder_kernel(const cuDoubleComplex* __restrict__ in, std::int64_t M,
                               bool to_fft, cuDoubleComplex* __restrict__ out) {
  NUFFTMP_GRID_STRIDE(c, M * M * M) {
    const std::int64_t f = embed_index(c, M, M);
    if (to_fft)
      out[f] = in[c];
    else
      out[c] = in[f];
  }
}

template <typename T, typename D>
__global__ void strengths_kernel(const T* __restrict__ w, const D* __restrict__ d, std::int64_t n,
                                 T* __restrict__ c) {
  NUFFTMP_GRID_STRIDE(j, n) {
    const T wj = w ? w[j] : T(1);
    c[2 * j] = d ? wj * static_cast<T>(d[j]) : wj;
    c[2 * j + 1] = T(0);
  }
}

template <typename T>
__global__ void real_of_kernel(const T* __restrict__ f, std::int64_t n,
                               cuDoubleComplex* __restrict__ out) {
  NUFFTMP_GRID_STRIDE(i, n) out[i] = make_cuDoubleComplex(static_cast<double>(f[2 * i]), 0.0);
}

template <typename T>
__global__ void slice_weights_kernel(const double* __restrict__ sw, const double* __restrict__ pw,
                                     std::int64_t n, std::int64_t npix, T* __restrict__ w) {
  NUFFTMP_GRID_STRIDE(j, n) {
    const double so = sw ? sw[j / npix] : 1.0;
    w[j] = static_cast<T>(pw ? so * pw[j % npix] : so);
  }
}

}  // namespace

void launch_toeplitz_embed(const cuDoubleComplex* in, std::int64_t M, std::int64_t L,
                           cuDoubleComplex* grid, cudaStream_t stream) {
  embed_kernel<<<blocks_for(M * M * M), kThreads, 0, stream>>>(in, M, L, grid);
  NUFFTMP_CUDA_CHECK_LAUNCH("embed_kernel");
}

void launch_toeplitz_extract(const cuDoubleComplex* grid, const cuDoubleComplex* in,
                             double lambda, std::int64_t M, std::int64_t L, cuDoubleComplex* out,
                             cudaStream_t stream) {
  extract_kernel<<<blocks_for(M * M * M), kThreads, 0, stream>>>(grid, in, lambda, M, L, out);
  NUFFTMP_CUDA_CHECK_LAUNCH("extract_kernel");
}

void launch_multiply(cuDoubleComplex* a, const cuDoubleComplex* b, std::int64_t n,
                     cudaStream_t stream) {
  multiply_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, n);
  NUFFTMP_CUDA_CHECK_LAUNCH("multiply_kernel");
}

void launch_scale(cuDoubleComplex* v, double s, std::int64_t n, cudaStream_t stream) {
  scale_kernel<<<blocks_for(n), kThreads, 0, stream>>>(v, s, n);
  NUFFTMP_CUDA_CHECK_LAUNCH("scale_kernel");
}

void launch_scale_by(cuDoubleComplex* g, const double* s, std::int64_t n, cudaStream_t stream) {
  scale_by_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, s, n);
  NUFFTMP_CUDA_CHECK_LAUNCH("scale_by_kernel");
}

void launch_chan_circulant(const cuDoubleComplex* t, std::int64_t M, std::int64_t L,
                           cuDoubleComplex* c, cudaStream_t stream) {
  chan_kernel<<<blocks_for(M * M * M), kThreads, 0, stream>>>(t, M, L, c);
  NUFFTMP_CUDA_CHECK_LAUNCH("chan_kernel");
}

void launch_centred_to_fft(const cuDoubleComplex* in, std::int64_t M, cuDoubleComplex* out,
                           cudaStream_t stream) {
  reorder_kernel<<<blocks_for(M * M * M), kThreads, 0, stream>>>(in, M, true, out);
  NUFFTMP_CUDA_CHECK_LAUNCH("reorder_kernel");
}

void launch_fft_to_centred(const cuDoubleComplex* in, std::int64_t M, cuDoubleComplex* out,
                           cudaStream_t stream) {
  reorder_kernel<<<blocks_for(M * M * M), kThreads, 0, stream>>>(in, M, false, out);
  NUFFTMP_CUDA_CHECK_LAUNCH("reorder_kernel");
}

template <typename T, typename D>
void launch_strengths(const T* w, const D* d, std::int64_t n, T* c, cudaStream_t stream) {
  if (n == 0) return;
  strengths_kernel<T, D><<<blocks_for(n), kThreads, 0, stream>>>(w, d, n, c);
  NUFFTMP_CUDA_CHECK_LAUNCH("strengths_kernel");
}

template <typename T>
void launch_real_of(const T* f, std::int64_t n, cuDoubleComplex* out, cudaStream_t stream) {
  if (n == 0) return;
  real_of_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(f, n, out);
  NUFFTMP_CUDA_CHECK_LAUNCH("real_of_kernel");
}

template <typename T>
void launch_slice_weights(const double* slice_weight, const double* pixel_weight,
                          std::int64_t n_orient, std::int64_t npix, T* w, cudaStream_t stream) {
  const std::int64_t n = n_orient * npix;
  if (n == 0) return;
  slice_weights_kernel<T>
      <<<blocks_for(n), kThreads, 0, stream>>>(slice_weight, pixel_weight, n, npix, w);
  NUFFTMP_CUDA_CHECK_LAUNCH("slice_weights_kernel");
}

#define NUFFTMP_MERGE_KERNELS(T)                                                              \
  template void launch_strengths<T, T>(const T*, const T*, std::int64_t, T*, cudaStream_t);   \
  template void launch_real_of<T>(const T*, std::int64_t, cuDoubleComplex*, cudaStream_t);    \
  template void launch_slice_weights<T>(const double*, const double*, std::int64_t,          \
                                        std::int64_t, T*, cudaStream_t);
NUFFTMP_MERGE_KERNELS(float)
NUFFTMP_MERGE_KERNELS(double)
#undef NUFFTMP_MERGE_KERNELS
template void launch_strengths<float, double>(const float*, const double*, std::int64_t, float*,
                                              cudaStream_t);

}  // namespace nufftmp::mtip::detail
