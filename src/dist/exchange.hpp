// All-to-all exchange of variable-size byte blocks with 64-bit counts: every rank sends
// send_bytes[r] bytes (blocks in rank order, concatenated) to each rank r and receives what
// every rank sent it, concatenated in rank order. Built on point-to-point MPI in pieces that
// fit int counts (MPI_Alltoallv's counts and displacements are int); empty blocks send
// nothing, and the block to this rank itself is a copy. The counts travel first (one
// MPI_Alltoall of int64), so the receiver needs to know nothing in advance.
// Host memory only. Collective over comm; every MPI status is checked; the receive buffer is
// allocated under a status agreement (a rank out of memory fails on every rank).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "partition.hpp"

namespace nufftmp::dist::detail {

struct Exchanged {
  std::vector<char> data;                 // the received blocks, concatenated in rank order
  std::vector<std::int64_t> recv_bytes;   // bytes received from each rank
};

Exchanged exchange_bytes(MPI_Comm comm, const void* send,
                         const std::vector<std::int64_t>& send_bytes,
                         std::int64_t max_piece = kMaxMpiCount);

}  // namespace nufftmp::dist::detail
