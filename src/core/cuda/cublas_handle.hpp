// cuBLAS statuses as typed errors (the NUFFTMP_CUDA_TRY family of cuda_check.hpp) and an RAII
// handle bound to a stream. Header-only: only the code that includes it links CUDA::cublas.
#pragma once

#include <cublas_v2.h>

#include <string>

#include "cuda/cuda_check.hpp"
#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

// cuBLAS has no code of its own in ErrorCode: its failures are CUDA library failures
// (CUBLAS_STATUS_ALLOC_FAILED is OutOfMemory).
[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* what,
                                            const char* file, int line) {
  const std::string msg = "cuBLAS error " + std::to_string(static_cast<int>(status)) + " (" +
                          cublasGetStatusName(status) + ") in " + what + " at " + file + ":" +
                          std::to_string(line);
  throw Error(status == CUBLAS_STATUS_ALLOC_FAILED ? ErrorCode::OutOfMemory
                                                   : ErrorCode::CudaFailure,
              msg);
}

}  // namespace nufftmp::detail

#define NUFFTMP_CUBLAS_TRY(call)                                                          \
  do {                                                                                    \
    const cublasStatus_t nufftmp_status_ = (call);                                        \
    if (nufftmp_status_ != CUBLAS_STATUS_SUCCESS)                                         \
      ::nufftmp::detail::throw_cublas_error(nufftmp_status_, #call, __FILE__, __LINE__);  \
  } while (0)

namespace nufftmp::detail {

class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    NUFFTMP_CUBLAS_TRY(cublasCreate(&handle_));
    const cublasStatus_t st = cublasSetStream(handle_, stream);
    if (st != CUBLAS_STATUS_SUCCESS) {
      cublasDestroy(handle_);
      throw_cublas_error(st, "cublasSetStream", __FILE__, __LINE__);
    }
  }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const noexcept { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace nufftmp::detail
