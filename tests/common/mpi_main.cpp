// GoogleTest main of the MPI tests (tests/dist, tests/mtip): MPI is initialised for all of them
// (collective functions need it, also on one rank); every rank runs every test and the exit
// status is the worst of all ranks.
// GPU tests (NUFFTMP_TEST_NEEDS_GPU) exit 77, CTest's "skipped", on every rank when any rank
// sees no CUDA device.
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
  int rc = RUN_ALL_TESTS(), worst = 0;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
