// A failure injected on one rank (src/mtip/fault_injection.hpp) must stop every rank of a
// reconstruction: the failing rank with its own error, every other with RemoteFailure naming
// it. A rank left in a collective would hang the test (CTest's timeout fails it).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "mpi_fixture.hpp"
#include "nufftmp/mtip.hpp"

namespace mtip_test {

inline void expect_failure_stops_every_rank(const nufftmp::mtip::ReconstructOptions& ro,
                                            const std::string& point, int failing_rank) {
  const std::string spec = point + "@" + std::to_string(failing_rank);
  setenv("NUFFTMP_MTIP_INJECT_FAILURE", spec.c_str(), 1);
  bool threw = false;
  try {
    nufftmp::mtip::reconstruct(MPI_COMM_WORLD, ro);
  } catch (const nufftmp::Error& e) {
    threw = true;
    const std::string msg = e.what();
    if (rank_of() == failing_rank) {
      EXPECT_EQ(e.code(), nufftmp::ErrorCode::Internal) << msg;
      EXPECT_NE(msg.find("injected failure at " + point), std::string::npos) << msg;
    } else {
      EXPECT_EQ(e.code(), nufftmp::ErrorCode::RemoteFailure) << msg;
      EXPECT_NE(msg.find("rank " + std::to_string(failing_rank) + " failed"), std::string::npos)
          << msg;
    }
  }
  unsetenv("NUFFTMP_MTIP_INJECT_FAILURE");
  EXPECT_TRUE(threw) << "no error on rank " << rank_of() << " with " << spec;
}

}  // namespace mtip_test
