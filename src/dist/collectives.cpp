// Collectives on plain arrays for the layers above (see collectives.hpp).
#include "collectives.hpp"

#include "context_impl.hpp"
#include "mpi_check.hpp"
#include "partition.hpp"

namespace nufftmp::dist::detail {

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}

int comm_size(MPI_Comm comm) {
  int size = 1;
  NUFFTMP_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

void allreduce_sum(MPI_Comm comm, double* v, std::int64_t n, std::int64_t max_piece) {
  std::int64_t off = 0;
  for (auto piece : mpi_chunks(n, max_piece)) {
    NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v + off, static_cast<int>(piece), MPI_DOUBLE,
                                    MPI_SUM, comm));
    off += piece;
  }
}

bool all_true(MPI_Comm comm, bool mine) {
  int v = mine ? 1 : 0;
  NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, comm));
  return v != 0;
}

RankValue min_with_rank(MPI_Comm comm, double value) {
  struct {
    double value;
    int rank;
  } mine{value, comm_rank(comm)}, best{0, 0};
  NUFFTMP_MPI_CHECK(MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
  return {best.value, best.rank};
}

void bcast(MPI_Comm comm, double* v, std::int64_t n, int root, std::int64_t max_piece) {
  std::int64_t off = 0;
  for (auto piece : mpi_chunks(n, max_piece)) {
    NUFFTMP_MPI_CHECK(MPI_Bcast(v + off, static_cast<int>(piece), MPI_DOUBLE, root, comm));
    off += piece;
  }
}

void bcast_vector(MPI_Comm comm, std::vector<double>& v, int root, std::int64_t max_piece) {
  std::int64_t n = static_cast<std::int64_t>(v.size());
  NUFFTMP_MPI_CHECK(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm));
  v.resize(static_cast<std::size_t>(n));
  bcast(comm, v.data(), n, root, max_piece);
}

std::vector<std::int64_t> allgather_counts(MPI_Comm comm, std::int64_t n_local) {
  std::vector<std::int64_t> n(static_cast<std::size_t>(comm_size(comm)));
  NUFFTMP_MPI_CHECK(MPI_Allgather(&n_local, 1, MPI_INT64_T, n.data(), 1, MPI_INT64_T, comm));
  return n;
}

void allgather_bytes(MPI_Comm comm, const void* local, const std::vector<std::int64_t>& bytes,
                     void* out, std::int64_t max_piece) {
  const auto displs = displacements(bytes);
  const std::int64_t total = displs.back();
  char* o = static_cast<char*>(out);
  const int rank = comm_rank(comm);
  if (total <= max_piece) {  // then every count and displacement fits an int too
    std::vector<int> counts(bytes.begin(), bytes.end()), d(displs.begin(), displs.end() - 1);
    NUFFTMP_MPI_CHECK(MPI_Allgatherv(local, counts[rank], MPI_BYTE, o, counts.data(), d.data(),
                                     MPI_BYTE, comm));
    return;
  }
  // Past 2^31 bytes: each rank's part is broadcast from it, in int-sized pieces.
  if (bytes[rank] > 0) std::memcpy(o + displs[rank], local, static_cast<std::size_t>(bytes[rank]));
  for (int r = 0; r < static_cast<int>(bytes.size()); ++r) {
    std::int64_t off = displs[r];
    for (auto piece : mpi_chunks(bytes[r], max_piece)) {
      NUFFTMP_MPI_CHECK(MPI_Bcast(o + off, static_cast<int>(piece), MPI_BYTE, r, comm));
      off += piece;
    }
  }
}

namespace {
Communicator& communicator(const Context& ctx, MemorySpace space) {
  if (space == MemorySpace::Device && !ctx.impl().device_comm)
    throw Error(ErrorCode::InvalidArgument,
                "collective on device memory over a context of the cpu engine (no device)");
  return ctx.impl().communicator(space);
}
}  // namespace

void allreduce_sum(const Context& ctx, double* v, std::int64_t n, MemorySpace space) {
  communicator(ctx, space).allreduce(v, n, Scalar::F64);
}

void allreduce_sum(const Context& ctx, float* v, std::int64_t n, MemorySpace space) {
  communicator(ctx, space).allreduce(v, n, Scalar::F32);
}

void bcast(const Context& ctx, double* v, std::int64_t n, int root, MemorySpace space) {
  communicator(ctx, space).bcast(v, n, Scalar::F64, root);
}

}  // namespace nufftmp::dist::detail
