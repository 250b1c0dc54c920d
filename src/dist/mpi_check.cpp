// The MPI failure exception (see mpi_check.hpp), and the MPI datatypes of the scalars.
#include "mpi_check.hpp"

#include "communicator.hpp"

namespace nufftmp::dist::detail {

void throw_mpi_error(int code, const char* call, const char* file, int line) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) len = 0;
  throw Error(ErrorCode::MpiFailure, std::string(call) + " failed: " +
                                         (len > 0 ? std::string(text, len) : "unknown error") +
                                         " (code " + std::to_string(code) + ") at " + file + ":" +
                                         std::to_string(line));
}

MPI_Datatype mpi_type(Scalar s) { return s == Scalar::F32 ? MPI_FLOAT : MPI_DOUBLE; }

}  // namespace nufftmp::dist::detail
