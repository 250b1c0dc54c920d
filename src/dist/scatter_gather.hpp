// Byte-level scatter and gather with 64-bit counts. MPI_Scatterv/MPI_Gatherv take int counts
// and int displacements: when every count and the total fit in max_piece bytes they are used
// directly; otherwise the data moves point to point in pieces of at most max_piece bytes
// (MPI keeps messages of one sender and tag in order, so pieces arrive in sequence).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "partition.hpp"

namespace nufftmp::dist::detail {

// Root receives bytes[r] bytes from every rank r, in rank order, into out (root only; it holds
// the sum of bytes). bytes: every rank's count (known on every rank).
void gather_bytes(MPI_Comm comm, const void* local, const std::vector<std::int64_t>& bytes,
                  void* out, int root, std::int64_t max_piece = kMaxMpiCount);
// Root sends bytes[r] bytes of `all` (rank order) to every rank r, into local.
void scatter_bytes(MPI_Comm comm, const void* all, const std::vector<std::int64_t>& bytes,
                   void* local, int root, std::int64_t max_piece = kMaxMpiCount);

}  // namespace nufftmp::dist::detail
