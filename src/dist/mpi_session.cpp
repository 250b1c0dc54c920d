// The apps' MPI session (see mpi_session.hpp).
#include "mpi_session.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

#include "mpi_check.hpp"

namespace nufftmp::dist::detail {

MpiSession::MpiSession(const char* prog, int* argc, char*** argv) {
  try {
    int initialised = 0;
    NUFFTMP_MPI_CHECK(MPI_Initialized(&initialised));
    if (!initialised) {
      NUFFTMP_MPI_CHECK(MPI_Init(argc, argv));
      owner_ = true;
    }
    NUFFTMP_MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank_));
    NUFFTMP_MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &size_));
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: %s\n", prog, e.what());
    std::exit(1);
  }
}

MpiSession::~MpiSession() {
  if (owner_) MPI_Finalize();
}

void MpiSession::abort(int status) const {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::exit(status);  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace nufftmp::dist::detail
