// main() of the MPI tests: every rank runs every test (every rank prints); the job fails when
// any rank fails. GPU tests (NUFFTMP_TEST_NEEDS_GPU) exit 77, CTest's "skipped", on every
// rank when any rank sees no CUDA device.
#include <gtest/gtest.h>
#include <mpi.h>

#include "nufftmp/plan.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
#ifdef NUFFTMP_TEST_NEEDS_GPU
  int have = nufftmp::cuda_device_count() > 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!have) {
    MPI_Finalize();
    return 77;
  }
#endif
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
