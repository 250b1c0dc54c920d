// Error check for the bench's CUDA runtime calls (CUDA-only files include this).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::bench {

inline void cuda_check(cudaError_t st, const char* what) {
  if (st == cudaSuccess) return;
  const ErrorCode code =
      st == cudaErrorMemoryAllocation ? ErrorCode::OutOfMemory : ErrorCode::CudaFailure;
  throw Error(code, std::string("nufftmp-bench: ") + what + ": " + cudaGetErrorString(st));
}

}  // namespace nufftmp::bench
