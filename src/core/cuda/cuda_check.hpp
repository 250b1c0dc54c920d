// Turning CUDA and cuFFT statuses into typed nufftmp errors that carry the raw status, the
// failing call and file:line. Every runtime call and every kernel launch goes through these.
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <cstddef>
#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::detail {

// Throws Error(CudaFailure), or Error(OutOfMemory) for cudaErrorMemoryAllocation.
void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line);
// Throws Error(CufftFailure), or Error(OutOfMemory) for CUFFT_ALLOC_FAILED.
void throw_cufft_error(cufftResult status, const char* what, const char* file, int line);
const char* cufft_status_name(cufftResult status) noexcept;
// "1.50 GiB (1610612736 bytes)"
std::string format_bytes(std::size_t bytes);

}  // namespace nufftmp::detail

#define NUFFTMP_CUDA_TRY(call)                                                           \
  do {                                                                                   \
    const cudaError_t nufftmp_status_ = (call);                                          \
    if (nufftmp_status_ != cudaSuccess)                                                  \
      ::nufftmp::detail::throw_cuda_error(nufftmp_status_, #call, __FILE__, __LINE__);   \
  } while (0)

// After a kernel launch: catches bad launch configurations (and earlier sticky errors)
// without synchronizing.
#define NUFFTMP_CUDA_CHECK_LAUNCH(name)                                                  \
  do {                                                                                   \
    const cudaError_t nufftmp_status_ = cudaGetLastError();                              \
    if (nufftmp_status_ != cudaSuccess)                                                  \
      ::nufftmp::detail::throw_cuda_error(nufftmp_status_, "launch of " name, __FILE__,  \
                                          __LINE__);                                     \
  } while (0)

#define NUFFTMP_CUFFT_TRY(call)                                                          \
  do {                                                                                   \
    const cufftResult nufftmp_status_ = (call);                                          \
    if (nufftmp_status_ != CUFFT_SUCCESS)                                                \
      ::nufftmp::detail::throw_cufft_error(nufftmp_status_, #call, __FILE__, __LINE__);  \
  } while (0)
