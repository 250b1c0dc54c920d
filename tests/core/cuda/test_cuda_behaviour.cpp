// The CUDA engine's life cycle and errors: batches, re-set points, device pointers on a user
// stream, device choice, bad points found on the device, out-of-memory without leaks.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include "common/reference_check.hpp"
#include "cuda/cufft_handle_pool.hpp"
#include "cuda_test_util.hpp"
#include "scoped_env.hpp"
#include "common/test_data.hpp"
#include "nufftmp/plan.hpp"

namespace nufftmp::test {
namespace {


// ntransf = 5 with maxbatchsize 2 (two full batches and a tail) equals five single transforms.
TEST(CudaBehaviour, BatchesMatchSingleTransforms) {
  for (int type : {1, 2}) {
    auto rng = make_rng(salt_of("batch") + type);
    const std::vector<std::int64_t> N{20, 16};
    const int nt = 5;
    const std::int64_t M = 700, nm = 20 * 16;
    Options o = cuda_opts(Method::SM);
    o.maxbatchsize = 2;
    Plan<double> batched(type, N, 1, nt, 1e-9, o);
    Plan<double> single(type, N, 1, 1, 1e-9, cuda_opts(Method::SM));
    const auto pts = uniform_points<double>(2, M, rng);
    batched.set_points_host(M, pts.x(), pts.y());
    single.set_points_host(M, pts.x(), pts.y());
    auto c = random_complex<double>(nt * M, rng);
    auto f = random_complex<double>(nt * nm, rng);
    auto cb = c, fb = f;
    batched.execute_host(cb.data(), fb.data());
    for (int t = 0; t < nt; ++t) {
      std::vector<std::complex<double>> c1(c.begin() + t * M, c.begin() + (t + 1) * M);
      std::vector<std::complex<double>> f1(f.begin() + t * nm, f.begin() + (t + 1) * nm);
      single.execute_host(c1.data(), f1.data());
      if (type == 1)
        EXPECT_LE(rel_l2(fb.data() + t * nm, f1.data(), nm), 1e-13) << "vector " << t;
      else
        EXPECT_LE(rel_l2(cb.data() + t * M, c1.data(), M), 1e-13) << "vector " << t;
    }
  }
}

// New points on the same plan (more, then fewer) give the direct sum's answer each time.
TEST(CudaBehaviour, ResetPoints) {
  auto rng = make_rng(salt_of("reset"));
  Plan<float> plan(1, {16, 12, 10}, -1, 1, 1e-5, cuda_opts(Method::Output));
  for (std::int64_t M : {500, 3000, 40}) {
    const auto pts = uniform_points<float>(3, M, rng);
    const auto r = check_transform(plan, 0, pts, rng, 500);
    EXPECT_LE(r.rel_err, 1e-4) << "M = " << M;
    EXPECT_EQ(plan.num_points(), M);
  }
}

// The method at set_points (heuristics.hpp): a 1D float type 1 plan with the method left to the
// library spreads uniform points with SM and points crowded into one bin with the output-driven
// tile, switching back and forth on one plan, each answer against the direct sum;
// NUFFTMP_CUDA_REFINE=0 keeps the plan's SM, and a method the user named is kept.
TEST(CudaBehaviour, MethodRefinedAtSetPoints) {
  auto rng = make_rng(salt_of("refine"));
  const std::vector<std::int64_t> N{100000};  // ~200 bins of 1024 cells
  const std::int64_t M = 50000;
  Plan<float> plan(1, N, 1, 1, 1e-5, cuda_opts());
  EXPECT_EQ(plan.method(), Method::SM);
  const auto uniform = uniform_points<float>(1, M, rng);
  const auto crowded = clustered_points<float>(1, M, plan.fine_grid(), rng);
  const std::pair<const Points<float>*, Method> steps[] = {
      {&uniform, Method::SM}, {&crowded, Method::Output}, {&uniform, Method::SM},
      {&crowded, Method::Output}};
  for (const auto& [pts, want] : steps) {
    const auto r = check_transform(plan, 0, *pts, rng, 500);
    EXPECT_EQ(plan.method(), want);
    EXPECT_LE(r.rel_err, 10 * 1e-5) << method_name(want);
  }
  Plan<float> named(1, N, 1, 1, 1e-5, cuda_opts(Method::SM));
  EXPECT_LE(check_transform(named, 0, crowded, rng, 500).rel_err, 10 * 1e-5);
  EXPECT_EQ(named.method(), Method::SM);
  setenv("NUFFTMP_CUDA_REFINE", "0", 1);
  Plan<float> off(1, N, 1, 1, 1e-5, cuda_opts());
  unsetenv("NUFFTMP_CUDA_REFINE");
  EXPECT_LE(check_transform(off, 0, crowded, rng, 500).rel_err, 10 * 1e-5);
  EXPECT_EQ(off.method(), Method::SM);
}

// Type 2 on crowded points (heuristics.hpp refine_alternative): in 3D set_points switches the
// dealt gather to the thread gather over each subproblem's points in cell order
// (cell_order.hpp); 2D keeps the dealt gather unless the order is forced, and in float sorts
// the points again into 16^2 bins (unless a gather is named). A point's sum is the same arithmetic in either gather, in
// any order and any bins, so the results are equal bit for bit whether the library chooses,
// the order is forced on under a named gather (no refinement then), or off; the library's is
// checked against the direct sum on crowded and on uniform points, and its debug line says
// which it took (the uniform points back in the plan's bins). maxsub 100 leaves a partial last
// subproblem (padded keys in the block sort).
template <typename T>
void check_cell_order(int dim, int maxsub, double tol) {
  SCOPED_TRACE(std::to_string(dim) + "D, " + (sizeof(T) == 4 ? "float" : "double") +
               ", maxsub " + std::to_string(maxsub));
  auto rng = make_rng(salt_of("cell order") + dim * 10 + sizeof(T) + maxsub);
  const std::vector<std::int64_t> N(dim, dim == 2 ? 96 : 24);
  const std::int64_t M = 9000;
  Options o = cuda_opts();
  o.maxsubprobsize = maxsub;
  o.debug = 1;
  std::int64_t nm = 1;
  for (auto n : N) nm *= n;
  const auto f = random_complex<T>(nm, rng);
  const auto crowded = clustered_points<T>(dim, M, Plan<T>(2, N, 1, 1, tol, o).fine_grid(), rng, 5.0);
  const auto uniform = uniform_points<T>(dim, M, rng);
  auto set_points = [&](Plan<T>& plan, const Points<T>& pts) {  // returns the debug lines
    std::ostringstream said;
    std::streambuf* old = std::cerr.rdbuf(said.rdbuf());
    plan.set_points_host(M, pts.x(), pts.y(), pts.z());
    std::cerr.rdbuf(old);
    return said.str();
  };
  const char* const modes[][2] = {{"auto", nullptr}, {"on", "dealt"}, {"on", "thread"},
                                  {"off", nullptr}};
  std::vector<std::vector<std::complex<T>>> results;
  for (const auto& m : modes) {
    ScopedEnv order("NUFFTMP_CUDA_CELL_ORDER", m[0]);
    ScopedEnv variant("NUFFTMP_CUDA_VARIANT", m[1]);
    Plan<T> plan(2, N, 1, 1, tol, o);
    const std::string said = set_points(plan, crowded);
    const bool library = std::string(m[0]) == "auto", chosen = library && dim == 3;
    // The finer bins whenever no gather is named (the cell order's setting is not theirs).
    const bool finer = m[1] == nullptr && dim == 2 && sizeof(T) == 4;
    EXPECT_EQ(said.find("points in cell order") != std::string::npos, chosen) << m[0] << said;
    if (dim == 2)
      EXPECT_EQ(said.find("bins 16x16") != std::string::npos, finer) << m[0] << said;
    std::vector<std::complex<T>> c(static_cast<std::size_t>(M));
    auto fin = f;
    plan.execute_host(c.data(), fin.data());
    results.push_back(c);
    if (!library) continue;
    EXPECT_LE(check_transform(plan, 0, crowded, rng, 400).rel_err, 10 * tol);
    std::ostringstream quiet;
    std::streambuf* old = std::cerr.rdbuf(quiet.rdbuf());
    const double err = check_transform(plan, 0, uniform, rng, 400).rel_err;
    std::cerr.rdbuf(old);
    EXPECT_LE(err, 10 * tol);
    EXPECT_EQ(quiet.str().find("points in cell order"), std::string::npos) << quiet.str();
    EXPECT_EQ(quiet.str().find("bins 16x16"), std::string::npos) << quiet.str();
  }
  for (std::size_t k = 1; k < results.size(); ++k)
    EXPECT_EQ(0, std::memcmp(results[0].data(), results[k].data(),
                             sizeof(std::complex<T>) * results[0].size()))
        << "mode " << modes[k][0] << "/" << (modes[k][1] ? modes[k][1] : "-")
        << " differs from the library's choice";
}

TEST(CudaBehaviour, CellOrderOfCrowdedType2Points) {
  for (int dim : {2, 3})
    for (int maxsub : {0, 100}) {
      check_cell_order<float>(dim, maxsub, 1e-5);
      check_cell_order<double>(dim, maxsub, 1e-9);
    }
}

// A plan's cuFFT handles wait, when it ends, for the next plan of the same layout
// (cufft_handle_pool.hpp): the next plan of the shape takes one (on another stream too), a
// plan made while that one lives makes its own, a plan of another shape takes none, and each
// answers as the direct sum does.
TEST(CudaBehaviour, IdleCufftHandlesServeTheNextPlan) {
  auto rng = make_rng(salt_of("cufft pool"));
  const std::vector<std::int64_t> N{40, 36};
  const double tol = 1e-5;
  auto check = [&](Plan<float>& plan, const char* what) {
    const auto pts = uniform_points<float>(2, 3000, rng);
    EXPECT_LE(check_transform(plan, 0, pts, rng, 300).rel_err, 10 * tol) << what;
  };
  {
    Plan<float> first(2, N, 1, 1, tol, cuda_opts());
    check(first, "first");
  }
  const std::size_t idle = detail::idle_cufft_handles();
  ASSERT_GE(idle, 1u) << "the first plan's handle was not kept";
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  {
    Options o = cuda_opts();
    o.cuda_stream = s;
    Plan<float> again(2, N, 1, 1, tol, o);
    EXPECT_EQ(detail::idle_cufft_handles(), idle - 1) << "the next plan of the shape took none";
    check(again, "again, on the user's stream");
    Plan<float> beside(2, N, 1, 1, tol, cuda_opts());
    EXPECT_EQ(detail::idle_cufft_handles(), idle - 1);
    check(beside, "beside it");
    Plan<float> other(2, {N[0] + 8, N[1]}, 1, 1, tol, cuda_opts());
    EXPECT_EQ(detail::idle_cufft_handles(), idle - 1) << "a plan of another shape took one";
    check(other, "another shape");
    check(again, "again, after the others");
  }
  EXPECT_GE(detail::idle_cufft_handles(), idle);
  EXPECT_LE(detail::idle_cufft_handles(), detail::kCufftPoolSize);
  CUDA_OK(cudaStreamDestroy(s));
}

// Device pointers on a stream of the user's, on an explicitly chosen device.
TEST(CudaBehaviour, DevicePointersOnUserStream) {
  auto rng = make_rng(salt_of("stream"));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Options o = cuda_opts(Method::GMSort);
  o.cuda_stream = s;
  o.gpu_device = 0;
  const std::int64_t M = 2000;
  const std::vector<std::int64_t> N{64};
  // The plan frees its buffers in order on its stream: it must go before the stream does.
  auto plan_ptr = std::make_unique<Plan<double>>(2, N, 1, 1, 1e-10, o);
  Plan<double>& plan = *plan_ptr;
  EXPECT_EQ(plan.memory_space(), MemorySpace::Device);
  const auto pts = uniform_points<double>(1, M, rng, -3 * kPi, 3 * kPi);  // folding too
  auto f = random_complex<double>(64, rng);
  double* dx;
  std::complex<double>*dc, *df;
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&dx), M * sizeof(double)));
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&dc), M * sizeof(std::complex<double>)));
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&df), 64 * sizeof(std::complex<double>)));
  CUDA_OK(cudaMemcpyAsync(dx, pts.x(), M * sizeof(double), cudaMemcpyHostToDevice, s));
  CUDA_OK(cudaMemcpyAsync(df, f.data(), 64 * sizeof(std::complex<double>), cudaMemcpyHostToDevice, s));
  plan.set_points(M, dx);
  plan.execute(dc, df);
  std::vector<std::complex<double>> c(M);
  CUDA_OK(cudaMemcpyAsync(c.data(), dc, M * sizeof(std::complex<double>), cudaMemcpyDeviceToHost, s));
  CUDA_OK(cudaStreamSynchronize(s));
  const auto idx = sample_indices(M, 300, rng);
  const std::int64_t Nm[3] = {64, 1, 1};
  const auto exact = reference::type2<double>(1, pts.x(), nullptr, nullptr, f.data(), 1, Nm, 0, idx);
  EXPECT_LE(reference::rel_l2_error<double>(exact, c.data(), idx), 1e-9);
  int cur = -1;
  CUDA_OK(cudaGetDevice(&cur));
  EXPECT_EQ(cur, 0) << "the plan must leave the caller's device current";
  plan_ptr.reset();
  cudaFree(dx);
  cudaFree(dc);
  cudaFree(df);
  cudaStreamDestroy(s);
}

TEST(CudaBehaviour, DeviceIdOutOfRange) {
  Options o = cuda_opts();
  o.gpu_device = cuda_device_count();
  try {
    Plan<float> plan(1, {32}, 1, 1, 1e-5, o);
    FAIL() << "expected InvalidArgument";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("gpu_device"), std::string::npos) << e.what();
  }
}

// A NaN at index 17 of y and an out-of-range x at 40: the first bad index is named, with its axis.
TEST(CudaBehaviour, BadPointsFoundOnDevice) {
  for (Method m : {Method::GM, Method::SM}) {
    auto rng = make_rng(salt_of("bad"));
    Plan<float> plan(1, {16, 16}, 1, 1, 1e-4, cuda_opts(m));
    auto pts = uniform_points<float>(2, 100, rng);
    pts.xyz[1][17] = std::nanf("");
    pts.xyz[0][40] = 20.0f;
    try {
      plan.set_points_host(100, pts.x(), pts.y());
      FAIL() << "expected BadPoints";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::BadPoints);
      EXPECT_NE(std::string(e.what()).find("y[17]"), std::string::npos) << e.what();
    }
    std::vector<std::complex<float>> c(100), f(256);
    EXPECT_THROW(plan.execute_host(c.data(), f.data()), Error) << "points were rejected";
  }
}

TEST(CudaBehaviour, ExecuteBeforeSetPoints) {
  Plan<float> plan(2, {32}, 1, 1, 1e-5, cuda_opts());
  std::vector<std::complex<float>> c(1), f(32);
  try {
    plan.execute_host(c.data(), f.data());
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  }
}

// No points: type 1 gives zeros, type 2 writes nothing.
TEST(CudaBehaviour, ZeroPoints) {
  Plan<double> plan(1, {8, 8}, 1, 1, 1e-6, cuda_opts(Method::Output));
  plan.set_points_host(0, nullptr, nullptr);
  std::vector<std::complex<double>> f(64, {3.0, 3.0});
  plan.execute_host(nullptr, f.data());
  for (auto& v : f) EXPECT_EQ(v, std::complex<double>(0, 0));
}

// A fine grid far beyond the device: Error(OutOfMemory) naming the size, and no memory kept.
TEST(CudaBehaviour, TooLargeIsOutOfMemoryWithoutLeak) {
  CUDA_OK(cudaDeviceSynchronize());
  size_t free0 = 0, total = 0;
  CUDA_OK(cudaMemGetInfo(&free0, &total));
  try {
    // 2048^3 modes -> 4096^3 fine grid of complex double: 1 TiB.
    Plan<double> plan(1, {2048, 2048, 2048}, 1, 1, 1e-6, cuda_opts());
    FAIL() << "expected OutOfMemory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::OutOfMemory) << e.what();
    EXPECT_NE(std::string(e.what()).find("GiB"), std::string::npos) << e.what();
  }
  CUDA_OK(cudaDeviceSynchronize());
  size_t free1 = 0;
  CUDA_OK(cudaMemGetInfo(&free1, &total));
  EXPECT_GE(free1 + (16u << 20), free0) << "device memory leaked: " << free0 << " -> " << free1;
}

}  // namespace
}  // namespace nufftmp::test
