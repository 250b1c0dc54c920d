// Point-to-point bytes in int-sized pieces (see mpi_pieces.hpp).
#include "mpi_pieces.hpp"

#include "mpi_check.hpp"

namespace nufftmp::dist::detail {

void isend_bytes(MPI_Comm comm, const void* buf, std::int64_t n, int peer, int tag,
                 std::int64_t max_piece, std::vector<MPI_Request>& reqs) {
  const char* b = static_cast<const char*>(buf);
  for_each_piece(n, max_piece, [&](std::int64_t off, int count) {
    reqs.push_back(MPI_REQUEST_NULL);
    NUFFTMP_MPI_CHECK(MPI_Isend(b + off, count, MPI_BYTE, peer, tag, comm, &reqs.back()));
  });
}

void irecv_bytes(MPI_Comm comm, void* buf, std::int64_t n, int peer, int tag,
                 std::int64_t max_piece, std::vector<MPI_Request>& reqs) {
  char* b = static_cast<char*>(buf);
  for_each_piece(n, max_piece, [&](std::int64_t off, int count) {
    reqs.push_back(MPI_REQUEST_NULL);
    NUFFTMP_MPI_CHECK(MPI_Irecv(b + off, count, MPI_BYTE, peer, tag, comm, &reqs.back()));
  });
}

void wait_all(std::vector<MPI_Request>& reqs) {
  if (reqs.empty()) return;
  std::vector<MPI_Request> pending;
  pending.swap(reqs);
  NUFFTMP_MPI_CHECK(
      MPI_Waitall(static_cast<int>(pending.size()), pending.data(), MPI_STATUSES_IGNORE));
}

}  // namespace nufftmp::dist::detail
