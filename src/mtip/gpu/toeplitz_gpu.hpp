// The Toeplitz normal operator of merging (A^H D A, see merging.cpp) applied on a GPU with
// cuFFT: the model is zero-padded into the L^3 circulant embedding (toeplitz_side.hpp), transformed, multiplied
// by the transform of the kernel T and transformed back, all on the device. The merge's CG
// (merger_gpu.cpp) applies it to device vectors; the host-memory forms serve tests. No CUDA
// types here (test_gpu_merging includes it with the host compiler): device arrays are
// std::complex<double>* in device memory (the layout of cuDoubleComplex).
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

namespace nufftmp::mtip::detail {

class GpuToeplitz {
 public:
  // device: CUDA device (-1: the current one); stream: a cudaStream_t to order the work on
  // (nullptr: an own stream). The kernel is set by one of the set_kernel forms.
  GpuToeplitz(std::int64_t M, int device, void* stream);
  // The same, with the kernel set from host memory (set_kernel).
  GpuToeplitz(std::int64_t M, const std::complex<double>* kernel, int device, void* stream);
  ~GpuToeplitz();
  GpuToeplitz(const GpuToeplitz&) = delete;
  GpuToeplitz& operator=(const GpuToeplitz&) = delete;

  // kernel: T on the L^3 lattice in FFT order (index = m mod L, x fastest; L =
  // toeplitz_side(M)), host memory, read during the call.
  void set_kernel(const std::complex<double>* kernel);
  // The device form in two steps: the caller writes T into kernel_grid() (ordered on the
  // stream), then transform_kernel() turns it into the operator's multiplier.
  std::complex<double>* kernel_grid();
  void transform_kernel();

  // out = T * in + lambda in (M^3 values each, centred order, device memory, in != out).
  // Ordered on the stream; returns without synchronising.
  void apply_device(const std::complex<double>* in, std::complex<double>* out,
                    double lambda = 0) const;
  // out = T * in, host memory. Blocks until out is written.
  void apply(const std::complex<double>* in, std::complex<double>* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nufftmp::mtip::detail
