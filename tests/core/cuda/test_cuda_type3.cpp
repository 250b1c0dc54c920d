// Type 3 and spread_interp_only on the CUDA engine: the accuracy table against the direct sum
// and against the CPU engine on the same inputs, the behaviour checks shared with the CPU
// tests, device pointers on a user stream (bad points found on the device), each method.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <vector>

#include "common/spread_only_check.hpp"
#include "common/type3_behaviour.hpp"
#include "cuda_test_util.hpp"

namespace nufftmp::test {
namespace {


class CudaType3Accuracy : public ::testing::TestWithParam<Type3Case> {};

TEST_P(CudaType3Accuracy, MatchesDirectSumAndCpu) {
  const Type3Case& c = GetParam();
  with_precision(c.prec, [&](auto t) {
    using T = decltype(t);
    const auto run = run_type3_case<T>(c, cuda_opts());
    // The same inputs through the CPU engine.
    Plan<T> cpu(3, c.dim, c.isign, 1, c.tol, cpu_options());
    cpu.set_points_host(run.src.M, run.src.x(), run.src.y(), run.src.z(), run.tgt.M,
                        run.tgt.x(), run.tgt.y(), run.tgt.z());
    auto c2 = run.result.c;
    std::vector<std::complex<T>> f2(run.result.f.size());
    cpu.execute_host(c2.data(), f2.data());
    EXPECT_LE(rel_l2(run.result.f.data(), f2.data(), run.tgt.M), run.bound)
        << type3_case_name(c) << ": CUDA vs CPU engine";
  });
}

INSTANTIATE_TEST_SUITE_P(AllCases, CudaType3Accuracy,
                         ::testing::ValuesIn(type3_cases({1e-3, 1e-6}, {1e-4, 1e-8, 1e-12})),
                         [](const ::testing::TestParamInfo<Type3Case>& info) {
                           return type3_case_name(info.param);
                         });

TEST(CudaType3, Batches) {
  type3_batches<double>(cuda_opts(), 5, 0, 1e-8);
  type3_batches<double>(cuda_opts(), 6, 4, 1e-8);
  type3_batches<float>(cuda_opts(), 7, 2, 1e-4);
}

TEST(CudaType3, NewPointsOnOnePlan) {
  type3_new_points<double>(cuda_opts(), 1e-9);
  type3_new_points<float>(cuda_opts(), 1e-5);
}

TEST(CudaType3, EmptySets) {
  type3_empty_sets<double>(cuda_opts());
  type3_empty_sets<float>(cuda_opts());
}

TEST(CudaType3, BadPointsNameArrayAndIndex) {
  type3_bad_points<double>(cuda_opts());
  type3_bad_points<float>(cuda_opts());
}

TEST(CudaType3, GivenBounds) {
  type3_given_bounds<double>(cuda_opts());
  type3_given_bounds<float>(cuda_opts());
}

// Each spreading method drives the inner plans.
TEST(CudaType3, EveryMethod) {
  for (Method m : {Method::GM, Method::GMSort, Method::SM, Method::Output})
    for (int dim : {1, 2, 3}) {
      const Type3Case c{dim, Prec::Float, 1e-5, Dist::Clustered, Dist::Uniform, false, -1};
      run_type3_case<float>(c, cuda_opts(m));
    }
}

// Device arrays on a user stream: the same values as the host path; a NaN in a device array is
// found on the device and named.
TEST(CudaType3, DevicePointersOnAUserStream) {
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Options o = cuda_opts();
  o.cuda_stream = s;
  auto rng = make_rng(salt_of("type3_device_pointers"));
  Points<double> src, tgt;
  type3_inputs<double>(2, 700, 500, rng, src, tgt);
  const std::int64_t M = src.M, N = tgt.M;
  auto c = random_complex<double>(M, rng);
  Plan<double> plan(3, 2, 1, 1, 1e-9, o);
  double* d[4] = {nullptr, nullptr, nullptr, nullptr};
  std::complex<double>*dc = nullptr, *df = nullptr;
  for (int i = 0; i < 4; ++i) {
    const std::int64_t n = i < 2 ? M : N;
    CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&d[i]), n * sizeof(double)));
    CUDA_OK(cudaMemcpy(d[i], (i < 2 ? src : tgt).xyz[i % 2].data(), n * sizeof(double),
                       cudaMemcpyHostToDevice));
  }
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&dc), M * sizeof(std::complex<double>)));
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&df), N * sizeof(std::complex<double>)));
  CUDA_OK(cudaMemcpy(dc, c.data(), M * sizeof(std::complex<double>), cudaMemcpyHostToDevice));
  plan.set_points(M, d[0], d[1], nullptr, N, d[2], d[3]);
  plan.execute(dc, df);
  plan.synchronize();
  std::vector<std::complex<double>> f(N), fh(N);
  CUDA_OK(cudaMemcpy(f.data(), df, N * sizeof(std::complex<double>), cudaMemcpyDeviceToHost));
  EXPECT_LE(type3_vector_error(plan, src, tgt, c, f, 0), 1e-8);
  Plan<double> host(3, 2, 1, 1, 1e-9, o);
  host.set_points_host(M, src.x(), src.y(), nullptr, N, tgt.x(), tgt.y());
  host.execute_host(c.data(), fh.data());
  EXPECT_LE(rel_l2(f.data(), fh.data(), N), 1e-13);
  // A NaN at t[123] on the device.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CUDA_OK(cudaMemcpy(d[3] + 123, &nan, sizeof nan, cudaMemcpyHostToDevice));
  expect_error([&] { plan.set_points(M, d[0], d[1], nullptr, N, d[2], d[3]); },
               ErrorCode::BadPoints, {"target t[123]", "nan"});
  for (auto* p : d) cudaFree(p);
  cudaFree(dc);
  cudaFree(df);
  cudaStreamDestroy(s);
}

// spread_interp_only on the device, each method, against the direct kernel sums.
TEST(CudaSpreadInterpOnly, MatchesDirectKernelSums) {
  const std::vector<std::int64_t> grids[3] = {{101}, {24, 33}, {24, 22, 27}};
  for (int dim : {1, 2, 3})
    for (int type : {1, 2})
      for (Method m : {Method::GM, Method::GMSort, Method::SM, Method::Output}) {
        if (type == 2 && m == Method::Output) continue;
        const std::string name = "cuda_spread_only_" + std::to_string(dim) + "_" +
                                 std::to_string(type) + "_" + method_name(m);
        auto rng = make_rng(salt_of(name));
        Options o = cuda_opts(m);
        o.spread_interp_only = true;
        Plan<double> pd(type, grids[dim - 1], 1, 1, 1e-9, o);
        const auto pts = uniform_points<double>(dim, 400, rng, -3 * kPi, 3 * kPi);
        EXPECT_LE(spread_only_error(pd, pts, rng), 1e-9) << name;
        Plan<float> pf(type, grids[dim - 1], 1, 1, 1e-5, o);
        const auto ptf = uniform_points<float>(dim, 400, rng);
        EXPECT_LE(spread_only_error(pf, ptf, rng), 1e-5) << name;
      }
}

}  // namespace
}  // namespace nufftmp::test
