// CUDA runtime and NCCL statuses as typed errors (CudaFailure / NcclFailure / OutOfMemory)
// carrying the status, the call and file:line. CUDA builds only.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::dist::detail {

[[noreturn]] inline void throw_cuda(cudaError_t st, const char* call, const char* file, int line) {
  const ErrorCode code =
      st == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::CudaFailure;
  throw Error(code, std::string(call) + " failed: " + cudaGetErrorName(st) + " (" +
                        cudaGetErrorString(st) + ", status " + std::to_string(int(st)) +
                        ") at " + file + ":" + std::to_string(line));
}

}  // namespace nufftmp::dist::detail

#define NUFFTMP_DIST_CUDA_TRY(call)                                                  \
  do {                                                                               \
    const cudaError_t nufftmp_st_ = (call);                                          \
    if (nufftmp_st_ != cudaSuccess)                                                  \
      ::nufftmp::dist::detail::throw_cuda(nufftmp_st_, #call, __FILE__, __LINE__);   \
  } while (0)
