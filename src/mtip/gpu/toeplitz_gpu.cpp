// GpuToeplitz (toeplitz_gpu.hpp): the merging CG's circulant-embedded convolution on cuFFT.
// Same arithmetic as the host path of merging.cpp (FFTW): embed at wrapped indices, forward
// FFT, multiply by FFT(T) / L^3, backward FFT, extract.
#include "toeplitz_gpu.hpp"

#include <cuComplex.h>

#include "cuda/cuda_check.hpp"
#include "cuda/cuda_stream.hpp"
#include "cuda/cufft_plan.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/device_guard.hpp"
#include "merge_kernels.hpp"
#include "toeplitz_side.hpp"

namespace nufftmp::mtip::detail {

using nufftmp::detail::CudaStream;
using nufftmp::detail::CufftPlan;
using nufftmp::detail::DeviceBuffer;
using nufftmp::detail::DeviceGuard;

namespace {
cuDoubleComplex* as_cu(std::complex<double>* p) { return reinterpret_cast<cuDoubleComplex*>(p); }
const cuDoubleComplex* as_cu(const std::complex<double>* p) {
  return reinterpret_cast<const cuDoubleComplex*>(p);
}
}  // namespace

// Members are destroyed in reverse order: the buffers and the plan free on the stream (and
// switch to their device themselves) before an owned stream goes.
struct GpuToeplitz::Impl {
  std::int64_t M, L;
  int device;
  CudaStream stream;
  DeviceBuffer<cuDoubleComplex> grid;  // scratch of every application
  DeviceBuffer<cuDoubleComplex> kernel_hat, vec_in, vec_out;
  CufftPlan<double> fft;
  Impl(std::int64_t M_, int dev, void* s)
      : M(M_),
        L(toeplitz_side(M_)),
        device(dev),
        stream(dev, s),
        grid(L * L * L, dev, stream.get(), "Toeplitz L^3 grid"),
        kernel_hat(L * L * L, dev, stream.get(), "Toeplitz kernel"),
        fft(3, {L, L, L}, 1, dev, stream.get()) {}
  cudaStream_t s() const { return stream.get(); }
};

GpuToeplitz::GpuToeplitz(std::int64_t M, int device, void* stream) {
  device = nufftmp::detail::resolve_device(device);
  DeviceGuard guard(device);  // everything below lives on the target device
  impl_ = std::make_unique<Impl>(M, device, stream);
}

GpuToeplitz::GpuToeplitz(std::int64_t M, const std::complex<double>* kernel, int device,
                         void* stream)
    : GpuToeplitz(M, device, stream) {
  set_kernel(kernel);
}

GpuToeplitz::~GpuToeplitz() = default;

std::complex<double>* GpuToeplitz::kernel_grid() {
  return reinterpret_cast<std::complex<double>*>(impl_->kernel_hat.get());
}

void GpuToeplitz::transform_kernel() {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const std::int64_t n = s.L * s.L * s.L;
  s.fft.execute(s.kernel_hat.get(), -1);
  // cuFFT's forward-backward round trip scales by L^3: folded into the kernel once.
  launch_scale(s.kernel_hat.get(), 1.0 / static_cast<double>(n), n, s.s());
}

void GpuToeplitz::set_kernel(const std::complex<double>* kernel) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const std::int64_t n = s.L * s.L * s.L;
  // std::complex<double> and cuDoubleComplex share their layout (two doubles, re then im).
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.kernel_hat.get(), kernel, sizeof(cuDoubleComplex) * n,
                                   cudaMemcpyHostToDevice, s.s()));
  transform_kernel();
  s.stream.synchronize();  // `kernel` may be freed by the caller after return
}

void GpuToeplitz::apply_device(const std::complex<double>* in, std::complex<double>* out,
                               double lambda) const {
  const Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const std::int64_t n = s.L * s.L * s.L;
  NUFFTMP_CUDA_TRY(cudaMemsetAsync(s.grid.get(), 0, sizeof(cuDoubleComplex) * n, s.s()));
  launch_toeplitz_embed(as_cu(in), s.M, s.L, s.grid.get(), s.s());
  s.fft.execute(s.grid.get(), -1);
  launch_multiply(s.grid.get(), s.kernel_hat.get(), n, s.s());
  s.fft.execute(s.grid.get(), +1);
  launch_toeplitz_extract(s.grid.get(), as_cu(in), lambda, s.M, s.L, as_cu(out), s.s());
}

void GpuToeplitz::apply(const std::complex<double>* in, std::complex<double>* out) {
  Impl& s = *impl_;
  DeviceGuard guard(s.device);
  const std::int64_t nm = s.M * s.M * s.M;
  s.vec_in.reserve(nm, s.device, s.s(), "Toeplitz M^3 input");
  s.vec_out.reserve(nm, s.device, s.s(), "Toeplitz M^3 output");
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(s.vec_in.get(), in, sizeof(cuDoubleComplex) * nm,
                                   cudaMemcpyHostToDevice, s.s()));
  apply_device(reinterpret_cast<const std::complex<double>*>(s.vec_in.get()),
               reinterpret_cast<std::complex<double>*>(s.vec_out.get()));
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(out, s.vec_out.get(), sizeof(cuDoubleComplex) * nm,
                                   cudaMemcpyDeviceToHost, s.s()));
  s.stream.synchronize();
}

}  // namespace nufftmp::mtip::detail
