// The ranks of a node (see node_rank.hpp).
#include "node_rank.hpp"

#include "mpi_check.hpp"

namespace nufftmp::dist::detail {

MPI_Comm split_node(MPI_Comm comm) {
  int rank = 0;
  NUFFTMP_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_Comm node = MPI_COMM_NULL;
  NUFFTMP_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  try {
    NUFFTMP_MPI_CHECK(MPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN));
  } catch (...) {
    MPI_Comm_free(&node);
    throw;
  }
  return node;
}

int node_rank(MPI_Comm comm) {
  MPI_Comm node = split_node(comm);
  int rank = 0;
  const int rc = MPI_Comm_rank(node, &rank);
  MPI_Comm_free(&node);
  NUFFTMP_MPI_CHECK(rc);
  return rank;
}

}  // namespace nufftmp::dist::detail
