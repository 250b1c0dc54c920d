// The Toeplitz normal operator of merging (A^H D A, see merging.cpp) applied on a GPU with
// cuFFT: the model is zero-padded into the (2M)^3 circulant embedding, transformed, multiplied
// by the transform of the kernel T and transformed back, all on the device. The CG vectors stay
// on the host (merging.cpp's solver is shared by both paths); each application moves 2 M^3
// complex values across PCIe (17 MB at M = 81, ~1 ms), against two (2M)^3 FFTs on the host
// (about 0.25 s per CG step on 16 cores at M = 81). Used when the merge's context runs the
// CUDA engine. No CUDA types here: merging.cpp includes it with the host compiler.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>

namespace nufftmp::mtip::detail {

class GpuToeplitz {
 public:
  // kernel: Re(T) on the (2M)^3 lattice in FFT order (index = m mod 2M, x fastest), host
  // memory, read during the call. device: CUDA device (-1: the current one); stream: a
  // cudaStream_t to order the work on (nullptr: an own stream).
  GpuToeplitz(std::int64_t M, const std::complex<double>* kernel, int device, void* stream);
  ~GpuToeplitz();
  GpuToeplitz(const GpuToeplitz&) = delete;
  GpuToeplitz& operator=(const GpuToeplitz&) = delete;

  // out = T * in (M^3 values each, centred order, host memory). Blocks until out is written.
  void apply(const std::complex<double>* in, std::complex<double>* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace nufftmp::mtip::detail
