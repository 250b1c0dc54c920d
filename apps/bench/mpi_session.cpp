#include "mpi_session.hpp"

#include <mpi.h>

#include <cstdlib>

#include "nufftmp/errors.hpp"

namespace nufftmp::bench {

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!initialised) {
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
      throw Error(ErrorCode::MpiFailure, "nufftmp-bench: MPI_Init failed");
    owner_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  if (owner_) MPI_Finalize();
}

void MpiSession::abort(int status) const {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace nufftmp::bench
