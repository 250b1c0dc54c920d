// The collectives on plain arrays that the layers above use (src/dist/collectives.hpp): sums,
// maxima, the barrier, the engine agreement, the minimum with its rank, broadcasts of volumes
// and all-gathers of unequal parts (one empty), each with a tiny piece size too (the chunked
// paths of arrays past 2^31 elements); and, on a machine with GPUs, the forms over a Context
// on device memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "collectives.hpp"
#include "dist/dist_test_util.hpp"
#include "nufftmp/dist.hpp"
#include "nufftmp/plan.hpp"
#ifdef NUFFTMP_TEST_HAVE_CUDA
#include "cuda/cuda_check.hpp"
#include "cuda/device_buffer.hpp"
#endif

using namespace nufftmp;
using namespace nufftmp::test;
namespace ddet = nufftmp::dist::detail;

class Collectives : public ::testing::TestWithParam<std::int64_t> {};

TEST_P(Collectives, SumsMinimaBroadcastsAndGathers) {
  const std::int64_t piece = GetParam();
  const int P = world_size(), me = world_rank();
  EXPECT_EQ(ddet::comm_rank(MPI_COMM_WORLD), me);
  EXPECT_EQ(ddet::comm_size(MPI_COMM_WORLD), P);

  std::vector<double> v(17);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 100.0 * me + static_cast<double>(i);
  ddet::allreduce_sum(MPI_COMM_WORLD, v.data(), static_cast<std::int64_t>(v.size()), piece);
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(v[i], 100.0 * P * (P - 1) / 2 + static_cast<double>(P * i));
  std::int64_t count = me + 1, where = me == 0 ? 42 : -1;
  ddet::allreduce_sum(MPI_COMM_WORLD, &count, 1, piece);
  EXPECT_EQ(count, static_cast<std::int64_t>(P) * (P + 1) / 2);
  ddet::bcast(MPI_COMM_WORLD, &where, 1, 0, piece);
  EXPECT_EQ(where, 42);

  // The maximum of each entry, from a different rank for each (entry i peaks on rank i % P);
  // then every rank passes the barrier.
  std::vector<double> hi(13);
  for (std::size_t i = 0; i < hi.size(); ++i)
    hi[i] = static_cast<int>(i) % P == me ? 1000.0 + static_cast<double>(i) : -1.0 * me;
  ddet::allreduce_max(MPI_COMM_WORLD, hi.data(), static_cast<std::int64_t>(hi.size()), piece);
  for (std::size_t i = 0; i < hi.size(); ++i) EXPECT_EQ(hi[i], 1000.0 + static_cast<double>(i));
  ddet::barrier(MPI_COMM_WORLD);

  EXPECT_TRUE(ddet::all_true(MPI_COMM_WORLD, true));
  EXPECT_FALSE(ddet::all_true(MPI_COMM_WORLD, me != P - 1));  // false on the last rank

  // The lowest value, and of equal values the lowest rank.
  const ddet::RankValue m = ddet::min_with_rank(MPI_COMM_WORLD, me == P - 1 ? -1.0 : 5.0 + me);
  EXPECT_EQ(m.value, -1.0);
  EXPECT_EQ(m.rank, P - 1);
  const ddet::RankValue tie = ddet::min_with_rank(MPI_COMM_WORLD, 3.0);
  EXPECT_EQ(tie.rank, 0);

  // A volume from the last rank, its size unknown elsewhere.
  std::vector<double> vol;
  if (me == P - 1) vol.assign(1000, 0.0);
  for (std::size_t i = 0; i < vol.size(); ++i) vol[i] = 0.5 * static_cast<double>(i);
  ddet::bcast_vector(MPI_COMM_WORLD, vol, P - 1, piece);
  ASSERT_EQ(vol.size(), 1000u);
  for (std::size_t i = 0; i < vol.size(); ++i) EXPECT_EQ(vol[i], 0.5 * static_cast<double>(i));

  // Rank r contributes 3 r + 1 values, in rank order on every rank (the last rank none with
  // more than one rank: an empty share must work).
  const auto n_of = [P](int r) { return P > 1 && r == P - 1 ? 0 : 3 * r + 1; };
  std::vector<double> mine(n_of(me));
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = 1000.0 * me + static_cast<double>(i);
  std::int64_t total = 0;
  for (int r = 0; r < P; ++r) total += n_of(r);
  std::vector<double> all(total, -1);
  ddet::allgather(MPI_COMM_WORLD, mine.data(), static_cast<std::int64_t>(mine.size()), all.data(),
                  piece);
  std::int64_t k = 0;
  for (int r = 0; r < P; ++r)
    for (int i = 0; i < n_of(r); ++i) EXPECT_EQ(all[k++], 1000.0 * r + i) << "rank " << r;
  std::vector<float> f(2, static_cast<float>(me)), fall(2 * P);
  ddet::allgather(MPI_COMM_WORLD, f.data(), 2, fall.data(), piece);
  for (int r = 0; r < P; ++r) EXPECT_EQ(fall[2 * r + 1], static_cast<float>(r));
}

// INT_MAX (one MPI call each) and 5 elements per call (the chunked paths).
INSTANTIATE_TEST_SUITE_P(Pieces, Collectives, ::testing::Values(ddet::kMaxPiece, 5));

// Device memory through the Context's device communicator (NCCL or MPI on device buffers).
TEST(Collectives, DeviceFormsOverAContext) {
#ifdef NUFFTMP_TEST_HAVE_CUDA
  int have = cuda_device_count() > 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!have) GTEST_SKIP() << "no CUDA device on every rank";
  dist::ContextOptions co;
  co.backend = Backend::Cuda;
  dist::Context ctx(MPI_COMM_WORLD, co);
  const int P = world_size(), me = world_rank();
  const std::int64_t n = 1000;
  std::vector<double> h(n);
  for (std::int64_t i = 0; i < n; ++i) h[i] = me + 0.25 * static_cast<double>(i);
  auto stream = static_cast<cudaStream_t>(ctx.stream());
  nufftmp::detail::DeviceBuffer<double> d(n, ctx.device(), stream, "test volume");
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(d.get(), h.data(), sizeof(double) * n, cudaMemcpyHostToDevice,
                                   stream));
  ddet::allreduce_sum(ctx, d.get(), n, MemorySpace::Device);
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(h.data(), d.get(), sizeof(double) * n, cudaMemcpyDeviceToHost,
                                   stream));
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream));
  for (std::int64_t i = 0; i < n; ++i)
    EXPECT_EQ(h[i], P * (P - 1) / 2.0 + P * 0.25 * static_cast<double>(i));
  if (me == 0)
    for (std::int64_t i = 0; i < n; ++i) h[i] = -static_cast<double>(i);
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(d.get(), h.data(), sizeof(double) * n, cudaMemcpyHostToDevice,
                                   stream));
  ddet::bcast(ctx, d.get(), n, 0, MemorySpace::Device);
  NUFFTMP_CUDA_TRY(cudaMemcpyAsync(h.data(), d.get(), sizeof(double) * n, cudaMemcpyDeviceToHost,
                                   stream));
  NUFFTMP_CUDA_TRY(cudaStreamSynchronize(stream));
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(h[i], -static_cast<double>(i));
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

// A context of the CPU engine has no device communicator: a clear error, not a crash.
TEST(Collectives, DeviceFormOnACpuContextIsAnError) {
  dist::Context ctx(MPI_COMM_WORLD, cpu_context());
  double x = 1;
  EXPECT_THROW(ddet::allreduce_sum(ctx, &x, 1, MemorySpace::Device), Error);
  ddet::allreduce_sum(ctx, &x, 1, MemorySpace::Host);
  EXPECT_EQ(x, world_size());
}
