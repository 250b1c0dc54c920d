#include "cuda/cuda_check.hpp"

#include <cstdio>
#include <sstream>

namespace nufftmp::detail {

namespace {
std::string where(const char* what, const char* file, int line) {
  std::ostringstream os;
  os << what << " at " << file << ":" << line;
  return os.str();
}
}  // namespace

void throw_cuda_error(cudaError_t status, const char* what, const char* file, int line) {
  // Clear a non-sticky error so the next call on this thread does not report it again.
  (void)cudaGetLastError();
  std::ostringstream os;
  os << "CUDA error " << static_cast<int>(status) << " (" << cudaGetErrorName(status) << ": "
     << cudaGetErrorString(status) << ") in " << where(what, file, line);
  if (status == cudaErrorMemoryAllocation) throw Error(ErrorCode::OutOfMemory, os.str());
  throw Error(ErrorCode::CudaFailure, os.str());
}

const char* cufft_status_name(cufftResult status) noexcept {
  switch (status) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cuFFT status";
  }
}

void throw_cufft_error(cufftResult status, const char* what, const char* file, int line) {
  std::ostringstream os;
  os << "cuFFT error " << static_cast<int>(status) << " (" << cufft_status_name(status)
     << ") in " << where(what, file, line);
  if (status == CUFFT_ALLOC_FAILED) throw Error(ErrorCode::OutOfMemory, os.str());
  throw Error(ErrorCode::CufftFailure, os.str());
}

std::string format_bytes(std::size_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GiB (%zu bytes)", static_cast<double>(bytes) / (1 << 30),
                bytes);
  return buf;
}

}  // namespace nufftmp::detail
