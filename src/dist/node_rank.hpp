// Which ranks share a node, and the default GPU binding: one home for both, used by Context
// and by the apps that pick a device before they make one (nufftmp-mtip). Internal API
// ("dist/node_rank.hpp").
#pragma once

#include <mpi.h>

namespace nufftmp::dist::detail {

// Collective over comm: the ranks of comm on this rank's node (MPI_COMM_TYPE_SHARED), in
// comm's rank order, with errors returned (thrown as Error(MpiFailure)). The caller frees it.
MPI_Comm split_node(MPI_Comm comm);
// Collective over comm: this rank's rank among the ranks of comm on its node.
int node_rank(MPI_Comm comm);
// The GPU a rank binds to unless told otherwise: round robin of the node-local ranks over the
// node's ndev (> 0) visible devices.
inline int round_robin_device(int node_rank, int ndev) { return node_rank % ndev; }

}  // namespace nufftmp::dist::detail
