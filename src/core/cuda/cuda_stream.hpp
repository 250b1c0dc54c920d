// A CUDA stream owned for a scope (non-blocking: the legacy default stream would serialise
// with every other library's work), or a caller's stream borrowed as it is. Host compiler.
#pragma once

#include <cuda_runtime_api.h>

#include "cuda/cuda_check.hpp"
#include "cuda/device_guard.hpp"

namespace nufftmp::detail {

class CudaStream {
 public:
  // An own non-blocking stream on `device`.
  explicit CudaStream(int device) : device_(device), owned_(true) {
    DeviceGuard guard(device);
    NUFFTMP_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  // `borrowed` when given (not destroyed here), else an own stream on `device`.
  CudaStream(int device, void* borrowed) : device_(device) {
    if (borrowed) {
      stream_ = static_cast<cudaStream_t>(borrowed);
      return;
    }
    DeviceGuard guard(device);
    NUFFTMP_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    owned_ = true;
  }
  ~CudaStream() {
    if (owned_) cudaStreamDestroy(stream_);  // returns at once; pending work still completes
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }
  int device() const noexcept { return device_; }
  void synchronize() const { NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
  int device_ = 0;
  bool owned_ = false;
};

}  // namespace nufftmp::detail
