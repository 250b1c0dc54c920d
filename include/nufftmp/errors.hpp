// Typed errors of nufftmp. User errors (a bad parameter, named with its value) are kept apart
// from failures of the libraries underneath (CUDA, cuFFT, FFTW, MPI, NCCL), which carry the
// raw status and the file:line where they were seen.
#pragma once

#include <stdexcept>
#include <string>

namespace nufftmp {

enum class ErrorCode {
  InvalidArgument = 1,  // a parameter out of its range (size, tolerance, type, dim, null pointer)
  BadPoints,            // a coordinate that is NaN, Inf or outside [-3pi, 3pi] (plan.hpp)
  ToleranceTooSmall,    // tolerance below what the precision can reach
  OutOfMemory,          // host or device allocation failed
  NotAvailable,         // backend or feature not built in, or no device present
  CudaFailure,
  CufftFailure,
  FftwFailure,
  MpiFailure,
  NcclFailure,
  RemoteFailure,        // another MPI rank failed; this rank stopped with it
  IoFailure,            // HDF5 / file errors
  Internal,
};

const char* error_code_name(ErrorCode code) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace nufftmp
