// RAII owners of the CUDA resources of src/mtip/gpu: the current device for a scope, a stream
// (owned or borrowed), device arrays, a cuBLAS handle and a cuFFT plan. Host compiler.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <utility>

#include "gpu_check.hpp"

namespace nufftmp::mtip::detail {

// Makes `device` current for the scope (-1: leave the caller's) and restores the caller's
// device after, so the library does not change the thread's device behind its back.
// The second form never throws (for destructors): it switches when it can.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    MTIP_CUDA_TRY(cudaGetDevice(&previous_));
    if (device >= 0 && device != previous_) MTIP_CUDA_TRY(cudaSetDevice(device));
  }
  DeviceScope(int device, std::nothrow_t) noexcept {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (device >= 0 && device != previous_) cudaSetDevice(device);
  }
  ~DeviceScope() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// A stream: the given one (borrowed), or an own non-blocking one when given nullptr (the
// legacy default stream would serialise with every other library's work).
class StreamHandle {
 public:
  explicit StreamHandle(void* borrowed) : stream_(static_cast<cudaStream_t>(borrowed)) {
    if (!stream_) {
      MTIP_CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
      owned_ = true;
    }
  }
  ~StreamHandle() {
    if (owned_) cudaStreamDestroy(stream_);
  }
  StreamHandle(const StreamHandle&) = delete;
  StreamHandle& operator=(const StreamHandle&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { MTIP_CUDA_TRY(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
  bool owned_ = false;
};

// A device array of n elements of T (uninitialised). grow() keeps at least n, reallocating
// only upward, so a batch loop allocates once. Out of memory throws Error(OutOfMemory) naming
// the array and its size.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(const char* name, std::int64_t n = 0) : name_(name) { grow(n); }
  ~DeviceArray() { release(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  void grow(std::int64_t n) {
    if (n <= capacity_) return;
    release();
    void* p = nullptr;
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n);
    const cudaError_t st = cudaMalloc(&p, bytes);
    if (st != cudaSuccess) {
      cudaGetLastError();  // clear the (non-sticky) allocation error
      throw Error(st == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory
                                                  : ErrorCode::CudaFailure,
                  std::string("GPU array '") + name_ + "' of " + std::to_string(bytes) +
                      " bytes: cudaMalloc failed: " + cudaGetErrorString(st));
    }
    data_ = static_cast<T*>(p);
    capacity_ = n;
  }
  T* data() const { return data_; }
  std::int64_t capacity() const { return capacity_; }

 private:
  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    capacity_ = 0;
  }
  const char* name_;
  T* data_ = nullptr;
  std::int64_t capacity_ = 0;
};

class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    MTIP_CUBLAS_TRY(cublasCreate(&h_));
    const cublasStatus_t st = cublasSetStream(h_, stream);
    if (st != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(h_);
      throw_cublas(st, "cublasSetStream", __FILE__, __LINE__);
    }
  }
  ~CublasHandle() { cublasDestroy(h_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

// A 3D complex-to-complex double plan of an n^3 cube on a stream.
class CufftCubeZ2Z {
 public:
  CufftCubeZ2Z(std::int64_t n, cudaStream_t stream) {
    MTIP_CUFFT_TRY(cufftPlan3d(&plan_, static_cast<int>(n), static_cast<int>(n),
                               static_cast<int>(n), CUFFT_Z2Z));
    const cufftResult st = cufftSetStream(plan_, stream);
    if (st != CUFFT_SUCCESS) {
      cufftDestroy(plan_);
      throw_cufft(st, "cufftSetStream", __FILE__, __LINE__);
    }
  }
  ~CufftCubeZ2Z() { cufftDestroy(plan_); }
  CufftCubeZ2Z(const CufftCubeZ2Z&) = delete;
  CufftCubeZ2Z& operator=(const CufftCubeZ2Z&) = delete;
  // In place; direction CUFFT_FORWARD (exp(-i...)) or CUFFT_INVERSE (exp(+i...)), unnormalised.
  void run(cufftDoubleComplex* data, int direction) const {
    MTIP_CUFFT_TRY(cufftExecZ2Z(plan_, data, data, direction));
  }

 private:
  cufftHandle plan_ = 0;
};

}  // namespace nufftmp::mtip::detail
