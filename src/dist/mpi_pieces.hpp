// MPI on 64-bit counts. MPI's counts are int, so a longer array moves in pieces of at most
// max_piece elements (mpi_chunks' rule, partition.hpp): the one home of the loop over those
// pieces, for collectives (each piece its own collective; every rank cuts the same n alike)
// and for point-to-point blocks of bytes (the pieces of one block keep their order: same peer,
// tag and communicator).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "partition.hpp"

namespace nufftmp::dist::detail {

// call(offset, count) for each piece of n elements, in order; offset counts elements.
template <typename F>
void for_each_piece(std::int64_t n, std::int64_t max_piece, F&& call) {
  std::int64_t offset = 0;
  for (const std::int64_t piece : mpi_chunks(n, max_piece)) {
    call(offset, static_cast<int>(piece));
    offset += piece;
  }
}

// Non-blocking: n bytes of buf to (isend_bytes) or from (irecv_bytes) peer, one request per
// piece appended to reqs.
void isend_bytes(MPI_Comm comm, const void* buf, std::int64_t n, int peer, int tag,
                 std::int64_t max_piece, std::vector<MPI_Request>& reqs);
void irecv_bytes(MPI_Comm comm, void* buf, std::int64_t n, int peer, int tag,
                 std::int64_t max_piece, std::vector<MPI_Request>& reqs);
// Completes every request of reqs (checked) and empties it.
void wait_all(std::vector<MPI_Request>& reqs);

}  // namespace nufftmp::dist::detail
