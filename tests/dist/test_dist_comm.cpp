// MPI pieces without the engine: the host communicator (with 64-bit chunking forced by a tiny
// piece size), scatter/gather (collective and point-to-point paths), the status and parameter
// agreement, and the Context over sub-communicators.
#include <gtest/gtest.h>

#include <complex>
#include <numeric>

#include "agree.hpp"
#include "communicator.hpp"
#include "dist/dist_test_util.hpp"
#include "nufftmp/dist.hpp"
#include "rebalance.hpp"
#include "scatter_gather.hpp"

using namespace nufftmp;
using namespace nufftmp::dist;
using namespace nufftmp::test;
namespace ddet = nufftmp::dist::detail;

namespace {

std::vector<double> ramp(int rank, int n) {
  std::vector<double> v(n);
  for (int i = 0; i < n; ++i) v[i] = 1000.0 * rank + i;
  return v;
}

}  // namespace

class HostCommunicator : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(HostCommunicator, AllreduceReduceBcastMatchTheSums) {
  const int P = world_size(), me = world_rank(), n = 23;
  auto cm = ddet::make_mpi_host_communicator(MPI_COMM_WORLD, GetParam());
  std::vector<double> expect(n, 0.0);
  for (int r = 0; r < P; ++r) {
    const auto v = ramp(r, n);
    for (int i = 0; i < n; ++i) expect[i] += v[i];
  }
  auto a = ramp(me, n);
  cm->allreduce(a.data(), n, ddet::Scalar::F64);
  EXPECT_EQ(a, expect);

  const int root = P - 1;
  auto b = ramp(me, n);
  cm->reduce(b.data(), n, ddet::Scalar::F64, root);
  EXPECT_EQ(b, me == root ? expect : ramp(me, n));  // non-roots keep their input

  std::vector<float> c(n, me == root ? 2.5f : -1.0f);
  cm->bcast(c.data(), n, ddet::Scalar::F32, root);
  EXPECT_EQ(c, std::vector<float>(n, 2.5f));

  // Pipelined forms: several started, one wait.
  auto d1 = ramp(me, n), d2 = ramp(me, n);
  cm->allreduce_start(d1.data(), n, ddet::Scalar::F64);
  cm->reduce_start(d2.data(), n, ddet::Scalar::F64, 0);
  cm->wait();
  EXPECT_EQ(d1, expect);
  if (me == 0) EXPECT_EQ(d2, expect);
}

// 7 forces several MPI calls per array (the path taken above INT_MAX elements).
INSTANTIATE_TEST_SUITE_P(Pieces, HostCommunicator, ::testing::Values(std::int64_t(7), std::int64_t(2147483647)));

class ScatterGather : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(ScatterGather, BytesRoundTripWithUnevenCounts) {
  const int P = world_size(), me = world_rank(), root = P / 2;
  const auto counts = uneven_counts(101, P);
  std::vector<std::int64_t> bytes(counts);
  for (auto& b : bytes) b *= 8;
  std::vector<double> all(101);
  std::iota(all.begin(), all.end(), 0.0);
  std::vector<double> mine(counts[me], -1.0);
  ddet::scatter_bytes(MPI_COMM_WORLD, me == root ? all.data() : nullptr, bytes, mine.data(),
                        root, GetParam());
  for (std::int64_t i = 0; i < counts[me]; ++i)
    EXPECT_EQ(mine[i], double(offset_of(counts, me) + i));
  std::vector<double> back(me == root ? 101 : 0);
  ddet::gather_bytes(MPI_COMM_WORLD, mine.data(), bytes, back.data(), root, GetParam());
  if (me == root) EXPECT_EQ(back, all);
}

// 5 bytes forces the point-to-point path in pieces (taken when counts pass INT_MAX bytes).
INSTANTIATE_TEST_SUITE_P(Pieces, ScatterGather, ::testing::Values(std::int64_t(5), std::int64_t(2147483647)));

TEST(ScatterGather, ScatterPointsAndGatherToRoot) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  const int P = ctx.size(), me = ctx.rank();
  const std::int64_t M = 2 * P + 1;
  std::vector<float> x(M), y(M);
  for (std::int64_t i = 0; i < M; ++i) x[i] = float(i), y[i] = -float(i);
  const bool root = me == 0;
  auto lp = scatter_points<float>(ctx, 2, root ? M : 0, root ? x.data() : nullptr,
                                  root ? y.data() : nullptr, nullptr);
  EXPECT_TRUE(lp.z.empty());
  std::int64_t total = lp.size();
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, M);
  for (std::int64_t i = 0; i < lp.size(); ++i) {
    EXPECT_EQ(lp.x[i], float(lp.offset + i));
    EXPECT_EQ(lp.y[i], -float(lp.offset + i));
  }
  std::vector<std::complex<double>> c(lp.size());
  for (std::int64_t i = 0; i < lp.size(); ++i) c[i] = {double(lp.offset + i), 1.0};
  const auto g = gather_to_root(ctx, c.data(), lp.size());
  if (root) {
    ASSERT_EQ(std::int64_t(g.size()), M);
    for (std::int64_t i = 0; i < M; ++i) EXPECT_EQ(g[i], std::complex<double>(double(i), 1.0));
  } else {
    EXPECT_TRUE(g.empty());
  }
}

TEST(ScatterGather, NullPointsOnRootFailEverywhere) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  try {
    scatter_points<double>(ctx, 1, 10, nullptr, nullptr, nullptr);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ctx.rank() == 0 ? ErrorCode::InvalidArgument : ErrorCode::RemoteFailure);
    EXPECT_NE(std::string(e.what()).find("x is null"), std::string::npos) << e.what();
  }
}

TEST(Agreement, OneFailingRankMakesEveryRankThrow) {
  const int P = world_size(), me = world_rank(), bad = P - 1;
  for (int round = 0; round < 3; ++round) {  // and the communicator stays usable
    try {
      ddet::agreed(MPI_COMM_WORLD, [&] {
        if (me == bad) throw Error(ErrorCode::BadPoints, "x[17] = nan");
      });
      FAIL() << "rank " << me << " did not throw";
    } catch (const Error& e) {
      if (me == bad) {
        EXPECT_EQ(e.code(), ErrorCode::BadPoints);
        EXPECT_STREQ(e.what(), "x[17] = nan");
      } else {
        EXPECT_EQ(e.code(), ErrorCode::RemoteFailure);
        EXPECT_EQ(std::string(e.what()),
                  "rank " + std::to_string(bad) + " failed (bad nonuniform points): x[17] = nan");
      }
    }
  }
  EXPECT_NO_THROW(ddet::agreed(MPI_COMM_WORLD, [] {}));
}

TEST(Agreement, TheLowestFailingRankIsReported) {
  const int me = world_rank();
  try {
    ddet::agreed(MPI_COMM_WORLD, [&] { throw std::runtime_error("rank " + std::to_string(me)); });
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Internal);  // every rank failed: each reports its own
    EXPECT_EQ(std::string(e.what()), "rank " + std::to_string(me));
  }
}

TEST(Agreement, ParameterMismatchThrowsOnEveryRank) {
  const int me = world_rank();
  const double tol = (world_size() > 1 && me == 1) ? 1e-5 : 1e-6;
  try {
    ddet::require_same_parameters(MPI_COMM_WORLD, "DistPlan",
                                    {{"type", {1}}, {"tol", {tol}}});
    EXPECT_EQ(world_size(), 1);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("parameter tol differs"), std::string::npos) << e.what();
  }
}

TEST(ContextTest, CpuBindingAndSubCommunicators) {
  Context ctx(MPI_COMM_WORLD, cpu_context());
  EXPECT_EQ(ctx.backend(), Backend::Cpu);
  EXPECT_EQ(ctx.comm_backend(), CommBackend::MpiHost);
  EXPECT_EQ(ctx.device(), -1);
  EXPECT_EQ(ctx.stream(), nullptr);
  EXPECT_FALSE(ctx.gpu_shared());
  EXPECT_EQ(ctx.size(), world_size());
  EXPECT_EQ(ctx.rank(), world_rank());
  EXPECT_GE(ctx.local_rank(), 0);
  EXPECT_LT(ctx.local_rank(), ctx.local_size());
  const auto b = ctx.binding();
  EXPECT_EQ(b.rfind("rank " + std::to_string(ctx.rank()) + " -> node ", 0), 0u) << b;
  EXPECT_NE(b.find(", CPU"), std::string::npos) << b;

  // A context over half of the ranks: ranks and sizes are those of the sub-communicator.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank() % 2, world_rank(), &half);
  {
    Context sub(half, cpu_context());
    int hs = 0, hr = 0;
    MPI_Comm_size(half, &hs);
    MPI_Comm_rank(half, &hr);
    EXPECT_EQ(sub.size(), hs);
    EXPECT_EQ(sub.rank(), hr);
    EXPECT_NE(sub.comm(), half);  // a duplicate: our traffic never mixes with the caller's
  }
  MPI_Comm_free(&half);
}

TEST(ContextTest, NcclOnTheCpuBackendIsRefusedEverywhere) {
  ContextOptions o;
  o.backend = Backend::Cpu;
  o.comm = CommBackend::Nccl;
  try {
    Context ctx(MPI_COMM_WORLD, o);
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_TRUE(e.code() == ErrorCode::InvalidArgument || e.code() == ErrorCode::RemoteFailure);
    EXPECT_NE(std::string(e.what()).find("comm = nccl needs backend = cuda"), std::string::npos)
        << e.what();
  }
}

TEST(Rebalance, ForwardEvensOutAndBackwardRestores) {
  const int P = world_size(), me = world_rank();
  const auto counts = uneven_counts(50, P);  // the last rank brings nothing
  const std::int64_t off = offset_of(counts, me);
  std::vector<std::int64_t> mine(counts[me]);
  for (std::int64_t i = 0; i < counts[me]; ++i) mine[i] = off + i;
  ddet::Rebalancer rb(MPI_COMM_WORLD, counts[me]);
  EXPECT_EQ(rb.count_before(), counts[me]);
  EXPECT_EQ(rb.count_after(), ddet::share_count(50, P, me));
  std::vector<std::int64_t> even(rb.count_after(), -1);
  rb.forward(mine.data(), even.data(), sizeof(std::int64_t));
  const std::int64_t even_off = ddet::share_offset(50, P, me);
  for (std::int64_t i = 0; i < rb.count_after(); ++i) EXPECT_EQ(even[i], even_off + i);
  std::vector<std::int64_t> back(counts[me], -1);
  rb.backward(even.data(), back.data(), sizeof(std::int64_t));
  EXPECT_EQ(back, mine);
}
