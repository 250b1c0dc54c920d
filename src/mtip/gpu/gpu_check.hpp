// CUDA runtime, cuBLAS and cuFFT statuses of src/mtip/gpu as typed nufftmp errors
// (CudaFailure / CufftFailure / OutOfMemory) carrying the status, the call and file:line.
// A local copy of the pattern of src/core/cuda/cuda_check.hpp: src/mtip sees only the public
// headers of the layers below it (architecture.md), so it does not include core's private ones.
// CUDA builds only; readable by the host compiler.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::mtip::detail {

[[noreturn]] inline void throw_cuda(cudaError_t st, const char* call, const char* file, int line) {
  const ErrorCode code =
      st == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::CudaFailure;
  throw Error(code, std::string(call) + " failed: " + cudaGetErrorName(st) + " (" +
                        cudaGetErrorString(st) + ", status " + std::to_string(int(st)) + ") at " +
                        file + ":" + std::to_string(line));
}

// cuBLAS has no error code of its own in ErrorCode: its failures are CUDA library failures.
[[noreturn]] inline void throw_cublas(cublasStatus_t st, const char* call, const char* file,
                                      int line) {
  const ErrorCode code =
      st == CUBLAS_STATUS_ALLOC_FAILED ? ErrorCode::OutOfMemory : ErrorCode::CudaFailure;
  throw Error(code, std::string(call) + " failed: " + cublasGetStatusName(st) + " (status " +
                        std::to_string(int(st)) + ") at " + file + ":" + std::to_string(line));
}

[[noreturn]] inline void throw_cufft(cufftResult st, const char* call, const char* file, int line) {
  const ErrorCode code =
      st == CUFFT_ALLOC_FAILED ? ErrorCode::OutOfMemory : ErrorCode::CufftFailure;
  throw Error(code, std::string(call) + " failed: cuFFT status " + std::to_string(int(st)) +
                        " at " + file + ":" + std::to_string(line));
}

}  // namespace nufftmp::mtip::detail

#define MTIP_CUDA_TRY(call)                                                          \
  do {                                                                               \
    const cudaError_t mtip_st_ = (call);                                             \
    if (mtip_st_ != cudaSuccess)                                                     \
      ::nufftmp::mtip::detail::throw_cuda(mtip_st_, #call, __FILE__, __LINE__);      \
  } while (0)

// After a kernel launch: a bad configuration (or an earlier sticky error), without a sync.
#define MTIP_CUDA_CHECK_LAUNCH(name)                                                 \
  do {                                                                               \
    const cudaError_t mtip_st_ = cudaGetLastError();                                 \
    if (mtip_st_ != cudaSuccess)                                                     \
      ::nufftmp::mtip::detail::throw_cuda(mtip_st_, "launch of " name, __FILE__,     \
                                          __LINE__);                                 \
  } while (0)

#define MTIP_CUBLAS_TRY(call)                                                        \
  do {                                                                               \
    const cublasStatus_t mtip_st_ = (call);                                          \
    if (mtip_st_ != CUBLAS_STATUS_SUCCESS)                                           \
      ::nufftmp::mtip::detail::throw_cublas(mtip_st_, #call, __FILE__, __LINE__);    \
  } while (0)

#define MTIP_CUFFT_TRY(call)                                                         \
  do {                                                                               \
    const cufftResult mtip_st_ = (call);                                             \
    if (mtip_st_ != CUFFT_SUCCESS)                                                   \
      ::nufftmp::mtip::detail::throw_cufft(mtip_st_, #call, __FILE__, __LINE__);     \
  } while (0)
