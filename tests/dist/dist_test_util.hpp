// Helpers of the distributed tests: uneven shares (with an empty rank), the whole problem
// drawn identically on every rank, and tolerances for "equal to rounding".
#pragma once

#include <mpi.h>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "common/test_data.hpp"
#include "nufftmp/dist.hpp"

namespace nufftmp::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// The CPU tests pin the CPU engine (on a GPU machine Auto would pick CUDA).
inline dist::ContextOptions cpu_context() {
  dist::ContextOptions o;
  o.backend = Backend::Cpu;
  return o;
}

// A CUDA context with the given comm backend, or null when this build lacks it (every rank
// agrees: the error is thrown on every rank).
inline std::unique_ptr<dist::Context> make_gpu_context(dist::CommBackend comm) {
  dist::ContextOptions o;
  o.backend = Backend::Cuda;
  o.comm = comm;
  try {
    return std::make_unique<dist::Context>(MPI_COMM_WORLD, o);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::NotAvailable || e.code() == ErrorCode::RemoteFailure) {
      if (world_rank() == 0)
        std::cout << "comm " << dist::comm_backend_name(comm) << ": " << e.what() << "\n";
      return nullptr;
    }
    throw;
  }
}

// Uneven shares of M: rank r weighs r + 1, and with more than one rank the last rank gets
// nothing (a rank without points must work). Sums to M.
inline std::vector<std::int64_t> uneven_counts(std::int64_t M, int P) {
  std::vector<std::int64_t> c(P, 0);
  const int used = P > 1 ? P - 1 : 1;
  std::int64_t wsum = 0;
  for (int r = 0; r < used; ++r) wsum += r + 1;
  std::int64_t given = 0;
  for (int r = 0; r < used; ++r) {
    c[r] = r + 1 == used ? M - given : M * (r + 1) / wsum;
    given += c[r];
  }
  return c;
}

inline std::int64_t offset_of(const std::vector<std::int64_t>& counts, int rank) {
  std::int64_t o = 0;
  for (int r = 0; r < rank; ++r) o += counts[r];
  return o;
}

// Relative difference allowed between a distributed result and the single-rank plan's:
// both are sums of the same terms in another order (separate FFTs, then a reduction).
template <typename T> constexpr double rounding_tol() { return sizeof(T) == 4 ? 2e-5 : 1e-11; }

}  // namespace nufftmp::test
