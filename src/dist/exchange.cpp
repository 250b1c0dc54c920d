// exchange_bytes: counts by MPI_Alltoall, then the blocks point to point (see exchange.hpp).
#include "exchange.hpp"

#include <cstring>

#include "agree.hpp"
#include "mpi_check.hpp"
#include "mpi_pieces.hpp"
#include "nufftmp/errors.hpp"
#include "partition.hpp"

namespace nufftmp::dist::detail {

namespace {
constexpr int kTag = 7302;
}  // namespace

Exchanged exchange_bytes(MPI_Comm comm, const void* send,
                         const std::vector<std::int64_t>& send_bytes, std::int64_t max_piece) {
  int rank = 0, size = 1;
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  NUFFTMP_MPI_CHECK(MPI_Comm_size(comm, &size));
  if (static_cast<int>(send_bytes.size()) != size)
    throw Error(ErrorCode::Internal, "exchange_bytes: " + std::to_string(send_bytes.size()) +
                                         " send counts for " + std::to_string(size) + " ranks");
  Exchanged out;
  out.recv_bytes.assign(static_cast<std::size_t>(size), 0);
  NUFFTMP_MPI_CHECK(MPI_Alltoall(send_bytes.data(), 1, MPI_INT64_T, out.recv_bytes.data(), 1,
                                 MPI_INT64_T, comm));
  const auto sdispl = displacements(send_bytes);
  const auto rdispl = displacements(out.recv_bytes);
  // A rank that cannot hold what it is sent fails with every rank, before any block moves.
  agreed(comm, [&] { out.data.resize(static_cast<std::size_t>(rdispl.back())); });

  const char* s = static_cast<const char*>(send);
  char* r = out.data.data();
  std::vector<MPI_Request> reqs;
  for (int p = 0; p < size; ++p)
    if (p != rank) irecv_bytes(comm, r + rdispl[p], out.recv_bytes[p], p, kTag, max_piece, reqs);
  for (int p = 0; p < size; ++p)
    if (p != rank) isend_bytes(comm, s + sdispl[p], send_bytes[p], p, kTag, max_piece, reqs);
  if (send_bytes[rank] > 0)
    std::memcpy(r + rdispl[rank], s + sdispl[rank], static_cast<std::size_t>(send_bytes[rank]));
  wait_all(reqs);
  return out;
}

}  // namespace nufftmp::dist::detail
