// MPI helpers of the M-TIP tests that run on several ranks: this rank, and a path prefix in the
// test temp directory that all ranks agree on (rank 0's process id), so concurrent runs of the
// suite do not share files.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <string>

namespace mtip_test {

inline int rank_of() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Collective: ::testing::TempDir() + stem + "_" + rank 0's pid.
inline std::string shared_temp_prefix(const std::string& stem) {
  long pid = rank_of() == 0 ? static_cast<long>(getpid()) : 0;
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return ::testing::TempDir() + stem + "_" + std::to_string(pid);
}

}  // namespace mtip_test
