// Collectives on plain arrays for the layers above (see collectives.hpp).
#include "collectives.hpp"

#include "all_gather.hpp"
#include "context_impl.hpp"
#include "mpi_check.hpp"
#include "mpi_pieces.hpp"

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

namespace {
template <typename V>
void allreduce_of(MPI_Comm comm, V* v, std::int64_t n, std::int64_t max_piece,
                  MPI_Datatype type, MPI_Op op) {
  for_each_piece(n, max_piece, [&](std::int64_t off, int count) {
    NUFFTMP_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v + off, count, type, op, comm));
  });
}
template <typename V>
void bcast_of(MPI_Comm comm, V* v, std::int64_t n, int root, std::int64_t max_piece,
              MPI_Datatype type) {
  for_each_piece(n, max_piece, [&](std::int64_t off, int count) {
    NUFFTMP_MPI_CHECK(MPI_Bcast(v + off, count, type, root, comm));
  });
}
}  // namespace

void allreduce_sum(MPI_Comm comm, double* v, std::int64_t n, std::int64_t max_piece) {
  allreduce_of(comm, v, n, max_piece, MPI_DOUBLE, MPI_SUM);
}

void allreduce_sum(MPI_Comm comm, std::int64_t* v, std::int64_t n, std::int64_t max_piece) {
  allreduce_of(comm, v, n, max_piece, MPI_INT64_T, MPI_SUM);
}

void allreduce_max(MPI_Comm comm, double* v, std::int64_t n, std::int64_t max_piece) {
  allreduce_of(comm, v, n, max_piece, MPI_DOUBLE, MPI_MAX);
}

void barrier(MPI_Comm comm) { NUFFTMP_MPI_CHECK(MPI_Barrier(comm)); }

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
  bcast_of(comm, v, n, root, max_piece, MPI_DOUBLE);
}

void bcast(MPI_Comm comm, std::int64_t* v, std::int64_t n, int root, std::int64_t max_piece) {
  bcast_of(comm, v, n, root, max_piece, MPI_INT64_T);
}

void bcast_vector(MPI_Comm comm, std::vector<double>& v, int root, std::int64_t max_piece) {
  std::int64_t n = static_cast<std::int64_t>(v.size());
  NUFFTMP_MPI_CHECK(MPI_Bcast(&n, 1, MPI_INT64_T, root, comm));
  v.resize(static_cast<std::size_t>(n));
  bcast(comm, v.data(), n, root, max_piece);
}

template <typename V>
void allgather(MPI_Comm comm, const V* local, std::int64_t n_local, V* all,
               std::int64_t max_piece) {
  const AllGather ag(comm, n_local);
  const auto cm = make_mpi_host_communicator(comm, max_piece);
  ag.gather(*cm, local, all, scalar_of<V>(), 1);
}
template void allgather(MPI_Comm, const float*, std::int64_t, float*, std::int64_t);
template void allgather(MPI_Comm, const double*, std::int64_t, double*, std::int64_t);

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
