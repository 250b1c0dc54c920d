// main() of every GPU test: exit 77 (CTest SKIP_RETURN_CODE) when no CUDA device is visible,
// so CPU-only machines (CI) build these tests and report them skipped.
#include <gtest/gtest.h>

#include <cstdio>

#include "nufftmp/plan.hpp"

int main(int argc, char** argv) {
  if (nufftmp::cuda_device_count() == 0) {
    std::printf("no CUDA device visible: skipping\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
