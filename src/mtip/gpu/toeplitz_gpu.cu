// GpuToeplitz (toeplitz_gpu.hpp): the merging CG's circulant-embedded convolution on cuFFT.
// Same arithmetic as the host path of merging.cpp (FFTW): embed at wrapped indices, forward
// FFT, multiply by FFT(Re T) / L^3, backward FFT, extract.
#include <cuComplex.h>

#include "cuda/cuda_check.hpp"
#include "cuda/cuda_stream.hpp"
#include "cuda/cufft_plan.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "toeplitz_gpu.hpp"

namespace nufftmp::mtip::detail {

using nufftmp::detail::CudaStream;
using nufftmp::detail::CufftPlan;
using nufftmp::detail::DeviceBuffer;
using nufftmp::detail::DeviceGuard;

namespace {
constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>((n + kThreads - 1) / kThreads);
}

// Signed mode k = i - M/2 of a centred index, at its periodic index on an axis of length L.
__device__ inline std::int64_t wrapped(std::int64_t i, std::int64_t h, std::int64_t L) {
  const std::int64_t k = i - h;
  return k < 0 ? k + L : k;
}

// The (2M)^3 index of centred model index (i, j, k) of an M^3 cube.
__device__ inline std::int64_t embed_index(std::int64_t c, std::int64_t M, std::int64_t L) {
  const std::int64_t h = M / 2;
  const std::int64_t i = c % M, j = (c / M) % M, k = c / (M * M);
  return (wrapped(k, h, L) * L + wrapped(j, h, L)) * L + wrapped(i, h, L);
}

// The grid is zeroed first (cudaMemsetAsync); only the M^3 embedded cells are written.
__global__ void embed(const cuDoubleComplex* in, cuDoubleComplex* grid, std::int64_t M,
                      std::int64_t L) {
  const std::int64_t n = M * M * M;
  for (std::int64_t c = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; c < n;
       c += std::int64_t(gridDim.x) * blockDim.x)
    grid[embed_index(c, M, L)] = in[c];
}

__global__ void extract(const cuDoubleComplex* grid, cuDoubleComplex* out, std::int64_t M,
                        std::int64_t L) {
  const std::int64_t n = M * M * M;
  for (std::int64_t c = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; c < n;
       c += std::int64_t(gridDim.x) * blockDim.x)
    out[c] = grid[embed_index(c, M, L)];
}

__global__ void multiply(cuDoubleComplex* grid, const cuDoubleComplex* kernel_hat,
                         std::int64_t n) {
  for (std::int64_t c = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; c < n;
       c += std::int64_t(gridDim.x) * blockDim.x)
    grid[c] = cuCmul(grid[c], kernel_hat[c]);
}

__global__ void scale(cuDoubleComplex* v, double s, std::int64_t n) {
  for (std::int64_t c = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; c < n;
       c += std::int64_t(gridDim.x) * blockDim.x)
    v[c] = make_cuDoubleComplex(s * cuCreal(v[c]), s * cuCimag(v[c]));
}

// Grid-stride launches capped at a few waves: the loops cover any size.
unsigned capped_blocks(std::int64_t n) {
  const unsigned b = blocks_for(n);
  return b < 65535u ? (b > 0 ? b : 1u) : 65535u;
}
}  // namespace

// Members are destroyed in reverse order: the buffers and the plan free on the stream (and
// switch to their device themselves) before an owned stream goes.
struct GpuToeplitz::Impl {
  std::int64_t M, L;
  int device;
  CudaStream stream;
  DeviceBuffer<cuDoubleComplex> grid, kernel_hat, vec;
  CufftPlan<double> fft;
  Impl(std::int64_t M_, int dev, void* s)
      : M(M_),
        L(2 * M_),
        device(dev),
        stream(dev, s),
        grid(L * L * L, dev, stream.get(), "Toeplitz (2M)^3 grid"),
        kernel_hat(L * L * L, dev, stream.get(), "Toeplitz kernel"),
        vec(M * M * M, dev, stream.get(), "Toeplitz M^3 vector"),
        fft(3, {L, L, L}, 1, dev, stream.get()) {}
};

GpuToeplitz::GpuToeplitz(std::int64_t M, const std::complex<double>* kernel, int device,
                         void* stream) {
  device = nufftmp::detail::resolve_device(device);
  DeviceGuard guard(device);  // everything below lives on the target device
  impl_ = std::make_unique<Impl>(M, device, stream);
  Impl& s = *impl_;
  const std::int64_t n = s.L * s.L * s.L;
  cudaStream_t st = s.stream.get();
  // std::complex<double> and cuDoubleComplex share their layout (two doubles, re then im).
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.kernel_hat.get(), kernel, sizeof(cuDoubleComplex) * n,
                                   cudaMemcpyHostToDevice, st));
  s.fft.execute(s.kernel_hat.get(), -1);
  // cuFFT's forward-backward round trip scales by L^3: folded into the kernel once.
  scale<<<capped_blocks(n), kThreads, 0, st>>>(s.kernel_hat.get(), 1.0 / static_cast<double>(n), n);
  NUFFTMP_CUDA_CHECK_LAUNCH("scale");
  s.stream.synchronize();  // `kernel` may be freed by the caller after return
}

GpuToeplitz::~GpuToeplitz() = default;

void GpuToeplitz::apply(const std::complex<double>* in, std::complex<double>* out) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const std::int64_t nm = s.M * s.M * s.M, n = s.L * s.L * s.L;
  cudaStream_t st = s.stream.get();
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.vec.get(), in, sizeof(cuDoubleComplex) * nm,
                                   cudaMemcpyHostToDevice, st));
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(s.grid.get(), 0, sizeof(cuDoubleComplex) * n, st));
  embed<<<capped_blocks(nm), kThreads, 0, st>>>(s.vec.get(), s.grid.get(), s.M, s.L);
  NUFFTMP_CUDA_CHECK_LAUNCH("embed");
  s.fft.execute(s.grid.get(), -1);
  multiply<<<capped_blocks(n), kThreads, 0, st>>>(s.grid.get(), s.kernel_hat.get(), n);
  NUFFTMP_CUDA_CHECK_LAUNCH("multiply");
  s.fft.execute(s.grid.get(), +1);
  extract<<<capped_blocks(nm), kThreads, 0, st>>>(s.grid.get(), s.vec.get(), s.M, s.L);
  NUFFTMP_CUDA_CHECK_LAUNCH("extract");
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(out, s.vec.get(), sizeof(cuDoubleComplex) * nm,
                                   cudaMemcpyDeviceToHost, st));
  s.stream.synchronize();
}

}  // namespace nufftmp::mtip::detail
