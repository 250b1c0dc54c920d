// The merging CG's Toeplitz operator on the GPU (src/mtip/gpu/toeplitz_gpu.cpp, cuFFT) against
// a direct Toeplitz sum, a Merger on the CUDA engine against one on the CPU engine (FFTW): the
// same normal operator to NUFFT tolerance and the same solution to CG tolerance; and the
// reconstruction's device-resident path (points computed on the device from orientations,
// data read from the uploaded images) against the host Merger on the same slices.
// Label gpu: exits 77 without a device.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "cuda/cuda_stream.hpp"
#include "gpu/device_images.hpp"
#include "gpu/merger_gpu.hpp"
#include "gpu/toeplitz_gpu.hpp"
#include "toeplitz_side.hpp"
#include "nufftmp/mtip.hpp"
#include "sim_fixture.hpp"

using namespace nufftmp::mtip;
using cplx = std::complex<double>;

namespace {
double rel_diff(const std::vector<cplx>& a, const std::vector<cplx>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += std::norm(a[i] - b[i]), den += std::norm(b[i]);
  return std::sqrt(num / den);
}
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += (a[i] - b[i]) * (a[i] - b[i]), den += b[i] * b[i];
  return std::sqrt(num / den);
}
nufftmp::Options with_backend(nufftmp::Backend b) {
  nufftmp::Options o;
  o.backend = b;
  return o;
}
}  // namespace

// out_k = sum_k' K[(k - k') mod L] in_k' over the M^3 modes (centred), by plain loops; any
// complex kernel, even and odd M, the embedding's side L = toeplitz_side(M) odd (M = 5: 9 =
// 2M - 1) and even (M = 6, 7: 2M).
TEST(MtipGpuMerging, ToeplitzEqualsDirectSum) {
  for (std::int64_t M : {5, 6, 7}) {
    const std::int64_t L = nufftmp::mtip::detail::toeplitz_side(M), nm = M * M * M;
    std::mt19937_64 rng(100 + M);
    std::normal_distribution<double> g;
    std::vector<cplx> kernel(L * L * L), in(nm), out(nm), expect(nm, 0.0);
    for (auto& v : kernel) v = {g(rng), g(rng)};
    for (auto& v : in) v = {g(rng), g(rng)};
    nufftmp::mtip::detail::GpuToeplitz op(M, kernel.data(), /*device=*/-1, /*stream=*/nullptr);
    op.apply(in.data(), out.data());
    const auto mod = [L](std::int64_t d) { return ((d % L) + L) % L; };
    for (std::int64_t k3 = 0; k3 < M; ++k3)
      for (std::int64_t k2 = 0; k2 < M; ++k2)
        for (std::int64_t k1 = 0; k1 < M; ++k1) {
          cplx sum = 0;
          for (std::int64_t j3 = 0; j3 < M; ++j3)
            for (std::int64_t j2 = 0; j2 < M; ++j2)
              for (std::int64_t j1 = 0; j1 < M; ++j1)
                sum += kernel[(mod(k3 - j3) * L + mod(k2 - j2)) * L + mod(k1 - j1)] *
                       in[(j3 * M + j2) * M + j1];
          expect[(k3 * M + k2) * M + k1] = sum;
        }
    EXPECT_LT(rel_diff(out, expect), 1e-12) << "M = " << M;
    // Applying again reuses the buffers (the grid is cleared each time).
    std::vector<cplx> again(nm);
    op.apply(in.data(), again.data());
    EXPECT_LT(rel_diff(again, out), 1e-15) << "M = " << M;
  }
}

// A Merger on the CUDA engine (NUFFTs and the CG's convolution on the GPU) and one on the CPU
// engine give the same normal operator (to the NUFFT tolerance of the kernel T) and the same
// merged model (to the CG tolerance).
template <typename T>
void merger_cpu_vs_gpu(double nufft_tol, double cg_tol, double op_tol, double ac_tol) {
  const auto s = mtip_test::simulate(17, 40, 16, /*fluence=*/1000);
  const std::int64_t n = s.n_images * s.npix, M = s.M, nm = M * M * M;
  std::vector<T> x(n), y(n), z(n), w(n);
  slice_points(s.positions, s.orient.data(), s.n_images, s.scale, x.data(), y.data(), z.data());
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.2, 1.0);
  for (auto& v : w) v = static_cast<T>(u(rng));
  MergeOptions mo;
  mo.lambda = 3e-2;  // converges well inside max_iter here (CPU: 130 steps at 1e-9, double)
  mo.nufft_tol = nufft_tol;
  mo.tol = cg_tol;
  Merger<T> cpu(MPI_COMM_SELF, M, mo, with_backend(nufftmp::Backend::Cpu));
  Merger<T> gpu(MPI_COMM_SELF, M, mo, with_backend(nufftmp::Backend::Cuda));
  cpu.set_points(n, x.data(), y.data(), z.data(), w.data());
  gpu.set_points(n, x.data(), y.data(), z.data(), w.data());
  std::vector<cplx> f(nm), a, b;
  std::normal_distribution<double> g;
  for (auto& v : f) v = {g(rng), 0.0};
  cpu.apply_normal(f, a);
  gpu.apply_normal(f, b);
  const double d_op = rel_diff(b, a);
  std::vector<T> data(s.images.begin(), s.images.end());
  std::vector<double> ac_cpu, ac_gpu;
  const MergeReport rc = cpu.solve(data.data(), ac_cpu);
  const MergeReport rg = gpu.solve(data.data(), ac_gpu);
  const double d_ac = rel_diff(ac_gpu, ac_cpu);
  std::printf("%s: operator rel diff %.2e, model rel diff %.2e, CG %d / %d it (cpu / gpu), "
              "residual %.1e / %.1e, CG time %.1f / %.1f ms\n",
              sizeof(T) == 4 ? "float" : "double", d_op, d_ac, rc.iterations, rg.iterations,
              rc.residual, rg.residual, rc.cg_ms, rg.cg_ms);
  EXPECT_EQ(rg.engine, nufftmp::Backend::Cuda);  // not a silent host fallback
  EXPECT_EQ(rc.engine, nufftmp::Backend::Cpu);
  EXPECT_LT(d_op, op_tol);
  EXPECT_LT(d_ac, ac_tol);
  EXPECT_LE(rg.residual, cg_tol);
  EXPECT_NEAR(rg.iterations, rc.iterations, 2 + rc.iterations / 10);
  EXPECT_NEAR(gpu.weight_sum(), cpu.weight_sum(), 1e-6 * cpu.weight_sum());
}

// Bounds from the CPU engine against itself at two NUFFT tolerances (1e-11 vs 1e-10: operator
// 2.6e-11, model 6.6e-10; float 1e-6 vs 1e-5: 2.1e-6 and 2.3e-5), with margin.
TEST(MtipGpuMerging, DoubleMergerEqualsCpu) {
  merger_cpu_vs_gpu<double>(1e-11, 1e-9, 1e-9, 1e-7);
}
TEST(MtipGpuMerging, FloatMergerEqualsCpu) { merger_cpu_vs_gpu<float>(1e-6, 1e-5, 2e-5, 1e-3); }

// GpuMerger::set_orientations (slice points on the device, per-slice weights times per-pixel
// weights - a detector correction C_p - spread on the device) and solve_device (strengths from the uploaded images) against a host Merger given
// slice_points() and the per-point weights of the same slices. Then a warm start from the
// solution needs (almost) no CG steps.
TEST(MtipGpuMerging, DeviceOrientationsEqualHostPoints) {
  const auto s = mtip_test::simulate(17, 40, 16, /*fluence=*/1000);
  const std::int64_t n = s.n_images * s.npix, M = s.M;
  std::vector<double> slice_w(s.n_images);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.5, 2.0);
  for (auto& v : slice_w) v = u(rng);
  std::vector<double> pixel_w(s.npix);
  for (auto& v : pixel_w) v = u(rng);
  std::vector<float> x(n), y(n), z(n), w(n);
  slice_points(s.positions, s.orient.data(), s.n_images, s.scale, x.data(), y.data(), z.data());
  for (std::int64_t i = 0; i < n; ++i)
    w[i] = static_cast<float>(slice_w[i / s.npix] * pixel_w[i % s.npix]);
  MergeOptions mo;
  mo.lambda = 3e-2;
  mo.nufft_tol = 1e-6;
  mo.tol = 1e-5;
  Merger<float> cpu(MPI_COMM_SELF, M, mo, with_backend(nufftmp::Backend::Cpu));
  cpu.set_points(n, x.data(), y.data(), z.data(), w.data());
  std::vector<double> ac_cpu, ac_gpu;
  const MergeReport rc = cpu.solve(s.images.data(), ac_cpu);

  nufftmp::dist::ContextOptions co;
  co.backend = nufftmp::Backend::Cuda;
  nufftmp::dist::Context ctx(MPI_COMM_SELF, co);
  detail::GpuMerger<float> gpu(ctx, M, mo, with_backend(nufftmp::Backend::Cuda), mo.nufft_tol);
  const detail::DeviceImages img(ctx.device(), static_cast<cudaStream_t>(ctx.stream()),
                                 s.images.data(), s.n_images, s.positions);
  gpu.set_orientations(img, s.scale, s.orient.data(), s.n_images, slice_w, pixel_w);
  EXPECT_EQ(gpu.num_points(), n);
  EXPECT_NEAR(gpu.weight_sum(), cpu.weight_sum(), 1e-6 * cpu.weight_sum());
  const MergeReport rg = gpu.solve_device(img.images(), ac_gpu);
  const double d = rel_diff(ac_gpu, ac_cpu);
  std::printf("device orientations: model rel diff %.2e, CG %d / %d it (cpu / gpu)\n", d,
              rc.iterations, rg.iterations);
  EXPECT_EQ(rg.engine, nufftmp::Backend::Cuda);
  EXPECT_EQ(rc.engine, nufftmp::Backend::Cpu);
  EXPECT_LT(d, 1e-3);  // float NUFFTs at 1e-6, CG at 1e-5 (FloatMergerEqualsCpu's bound)
  EXPECT_NEAR(rg.iterations, rc.iterations, 2 + rc.iterations / 10);
  std::vector<double> warm = ac_gpu;
  const MergeReport rw = gpu.solve_device(img.images(), warm);
  EXPECT_LE(rw.iterations, 5);  // the recursive residual drifts a little from the true one
  EXPECT_LT(rel_diff(warm, ac_gpu), 1e-3);
}
