// Every MPI return code is checked: a failure becomes Error(MpiFailure) carrying MPI's own
// message, the code and the file:line of the call.
#pragma once

#include <mpi.h>

#include <string>

#include "nufftmp/errors.hpp"

namespace nufftmp::dist::detail {

[[noreturn]] void throw_mpi_error(int code, const char* call, const char* file, int line);

}  // namespace nufftmp::dist::detail

#define NUFFTMP_MPI_CHECK(call)                                                       \
  do {                                                                                \
    const int nufftmp_mpi_rc_ = (call);                                               \
    if (nufftmp_mpi_rc_ != MPI_SUCCESS)                                               \
      ::nufftmp::dist::detail::throw_mpi_error(nufftmp_mpi_rc_, #call, __FILE__, __LINE__); \
  } while (0)
