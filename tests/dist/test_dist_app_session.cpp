// What the apps use of the distributed layer instead of MPI calls of their own: the MPI
// session (src/dist/mpi_session.hpp; MPI is already up here, so the session must neither
// initialise nor finalise it), the node-local rank and the default GPU binding
// (node_rank.hpp, the one rule Context uses too), and every rank's string on the root
// (gather_to_root of chars, as nufftmp-bench gathers the ranks' bindings).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "collectives.hpp"
#include "dist/dist_test_util.hpp"
#include "mpi_session.hpp"
#include "node_rank.hpp"
#include "nufftmp/dist.hpp"

using namespace nufftmp;
using namespace nufftmp::test;
namespace ddet = nufftmp::dist::detail;

TEST(AppSession, JoinsARunningMpiWithoutFinalisingIt) {
  int argc = 0;
  char** argv = nullptr;
  {
    const ddet::MpiSession mpi("test", &argc, &argv);
    EXPECT_FALSE(mpi.owner());
    EXPECT_EQ(mpi.rank(), world_rank());
    EXPECT_EQ(mpi.size(), world_size());
  }
  int finalized = 1;
  MPI_Finalized(&finalized);
  EXPECT_EQ(finalized, 0);
  ddet::barrier(MPI_COMM_WORLD);  // MPI still works on every rank
}

TEST(AppSession, NodeRankIsTheContextsLocalRank) {
  const int local = ddet::node_rank(MPI_COMM_WORLD);
  const dist::Context ctx(MPI_COMM_WORLD, cpu_context());
  EXPECT_EQ(local, ctx.local_rank());
  EXPECT_GE(local, 0);
  EXPECT_LT(local, ctx.local_size());
  // The ranks of this node, counted through the node's communicator, are the context's.
  MPI_Comm node = ddet::split_node(MPI_COMM_WORLD);
  EXPECT_EQ(ddet::comm_size(node), ctx.local_size());
  EXPECT_EQ(ddet::comm_rank(node), local);
  MPI_Comm_free(&node);
  // Every node-local rank gets a device; neighbours get different ones while there are enough.
  EXPECT_EQ(ddet::round_robin_device(0, 2), 0);
  EXPECT_EQ(ddet::round_robin_device(1, 2), 1);
  EXPECT_EQ(ddet::round_robin_device(2, 2), 0);
  EXPECT_EQ(ddet::round_robin_device(5, 1), 0);
}

TEST(AppSession, EveryRanksStringReachesTheRoot) {
  const dist::Context ctx(MPI_COMM_WORLD, cpu_context());
  const int P = world_size(), me = world_rank();
  // Rank r sends r copies of a letter (rank 0 nothing: an empty share), longer than 160
  // characters on the last rank of three or more.
  const std::string mine(static_cast<std::size_t>(me) * 90, static_cast<char>('a' + me));
  const std::vector<char> all = dist::gather_to_root(ctx, mine.data(),
                                                     static_cast<std::int64_t>(mine.size()));
  if (me != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  std::string expect;
  for (int r = 0; r < P; ++r) expect += std::string(static_cast<std::size_t>(r) * 90, 'a' + r);
  EXPECT_EQ(std::string(all.begin(), all.end()), expect);
}
