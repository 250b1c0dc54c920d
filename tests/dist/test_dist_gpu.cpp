// The distributed plan on GPUs (device machine: 2 ranks on 2 GPUs, 4 ranks on 2 GPUs). Every
// communicator backend that this build has (NCCL, MPI CUDA-aware or staged, staged forced)
// gives the CPU single-rank answer to the plan's accuracy, for both types and precisions,
// with pipelined type 1 batches; errors on one rank still reach every rank.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <iostream>

#include "dist/dist_test_util.hpp"
#include "nufftmp/dist.hpp"

using namespace nufftmp;
using namespace nufftmp::dist;
using namespace nufftmp::test;

namespace {

const char* comm_name(CommBackend c) {
  switch (c) {
    case CommBackend::Auto: return "auto";
    case CommBackend::Nccl: return "nccl";
    case CommBackend::Mpi: return "mpi";
    case CommBackend::MpiHost: return "mpi-host";
  }
  return "?";
}

template <typename T>
void check(Context& ctx, int type, int dim, Reduction red) {
  const int P = ctx.size(), me = ctx.rank();
  const std::vector<std::int64_t> modes =
      dim == 1 ? std::vector<std::int64_t>{200} : dim == 2 ? std::vector<std::int64_t>{40, 36}
                                                           : std::vector<std::int64_t>{16, 14, 12};
  const int ntransf = 4;
  const double tol = sizeof(T) == 4 ? 1e-5 : 1e-9;
  const std::int64_t M = 5000;
  auto rng = make_rng(salt_of("gpu" + std::to_string(type * 10 + dim) + std::to_string(sizeof(T))));
  const auto pts = uniform_points<T>(dim, M, rng);
  Options cpu;
  cpu.backend = Backend::Cpu;
  Plan<T> single(type, modes, +1, ntransf, tol, cpu);
  const std::int64_t nm = single.num_modes();
  const auto c_all = random_complex<T>(ntransf * M, rng);
  const auto f_all = random_complex<T>(ntransf * nm, rng);
  auto ref_c = c_all;
  auto ref_f = f_all;
  single.set_points_host(M, pts.x(), pts.y(), pts.z());
  single.execute_host(ref_c.data(), ref_f.data());

  DistOptions d;
  d.reduction = red;
  DistPlan<T> plan(ctx, type, modes, +1, ntransf, tol, Options(), d);
  EXPECT_EQ(plan.local_plan().backend(), Backend::Cuda);
  const auto counts = uneven_counts(M, P);
  const std::int64_t off = offset_of(counts, me), Ml = counts[me];
  std::array<std::vector<T>, 3> mine;
  for (int k = 0; k < dim; ++k)
    mine[k].assign(pts.xyz[k].begin() + off, pts.xyz[k].begin() + off + Ml);
  auto ptr = [&](int k) { return k < dim && Ml > 0 ? mine[k].data() : nullptr; };
  plan.set_points_host(Ml, ptr(0), ptr(1), ptr(2));
  std::vector<std::complex<T>> c(ntransf * Ml);
  for (int t = 0; t < ntransf; ++t)
    for (std::int64_t j = 0; j < Ml; ++j) c[t * Ml + j] = c_all[t * M + off + j];
  const double allowed = 20 * tol;
  if (type == 1) {
    std::vector<std::complex<T>> f(ntransf * nm);
    plan.execute_host(c.data(), f.data());
    if (red == Reduction::AllReduce || me == 0)
      EXPECT_LT(rel_l2(f.data(), ref_f.data(), ntransf * nm), allowed)
          << "type 1, " << dim << "D, rank " << me;
  } else {
    auto f = f_all;
    plan.execute_host(c.data(), me == 0 ? f.data() : nullptr);
    for (int t = 0; t < ntransf; ++t)
      EXPECT_LT(rel_l2(c.data() + t * Ml, ref_c.data() + t * M + off, Ml), allowed)
          << "type 2, " << dim << "D, rank " << me;
  }
  const auto tm = plan.last_timings();
  if (me == 0)
    std::cout << "  type " << type << " " << dim << "D " << (sizeof(T) == 4 ? "float" : "double")
              << ": compute " << tm.compute_ms << " ms, comm " << tm.comm_ms << " ms, total "
              << tm.total_ms << " ms\n";
}

}  // namespace

class GpuComm : public ::testing::TestWithParam<CommBackend> {};

TEST_P(GpuComm, MatchesSingleRankCpu) {
  auto ctx = make_gpu_context(GetParam());
  if (!ctx) GTEST_SKIP() << "backend not in this build";
  std::cout << ctx->binding() << ", comm " << comm_name(ctx->comm_backend()) << "\n";
  EXPECT_GE(ctx->device(), 0);
  EXPECT_NE(ctx->stream(), nullptr);
  for (int dim = 1; dim <= 3; ++dim) {
    check<float>(*ctx, 1, dim, Reduction::AllReduce);
    check<double>(*ctx, 1, dim, Reduction::Reduce);
    check<float>(*ctx, 2, dim, Reduction::AllReduce);
    check<double>(*ctx, 2, dim, Reduction::AllReduce);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuComm,
                         ::testing::Values(CommBackend::Auto, CommBackend::Nccl, CommBackend::Mpi,
                                           CommBackend::MpiHost),
                         [](const auto& info) {
                           std::string n = comm_name(info.param);
                           for (auto& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(GpuBinding, RoundRobinAndSharing) {
  Context ctx;  // Auto: CUDA when every rank sees a device
  EXPECT_EQ(ctx.backend(), Backend::Cuda);
  const int ndev = cuda_device_count();
  EXPECT_EQ(ctx.device(), ctx.local_rank() % ndev);
  // Device d serves local ranks d, d + ndev, ...: shared when d + ndev is a local rank too.
  EXPECT_EQ(ctx.gpu_shared(), ctx.local_rank() % ndev + ndev < ctx.local_size());
  // More ranks than GPUs on a node: some GPU is shared, and Auto then avoids plain NCCL.
  int shared = ctx.gpu_shared() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (ctx.local_size() > ndev) EXPECT_EQ(shared, 1);
  if (shared) EXPECT_EQ(ctx.comm_backend(), CommBackend::Mpi);
}

TEST(GpuErrors, NanPointOnOneRankThrowsOnEveryRank) {
  Context ctx;
  const int me = ctx.rank(), bad = ctx.size() - 1;
  DistPlan<float> plan(ctx, 1, {32, 32}, +1, 1, 1e-5);
  auto rng = make_rng(41 + me);
  auto pts = uniform_points<float>(2, 100, rng);
  if (me == bad) pts.xyz[0][3] = std::nanf("");
  try {
    plan.set_points_host(100, pts.x(), pts.y());
    FAIL() << "rank " << me << " did not throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), me == bad ? ErrorCode::BadPoints : ErrorCode::RemoteFailure) << e.what();
  }
}
