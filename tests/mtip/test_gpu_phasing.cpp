// Phasing on the GPU (src/mtip/gpu/phasing_gpu: the schedule of phasing_schedule.hpp on cuFFT)
// against the host engine (FFTW): from the same start the same iterates up to the FFTs'
// rounding on a short schedule (HIO amplifies last-bit differences by about 1.4x per step:
// measured on the host, a 2e-16 relative change of the model grows to 5e-12 over 20 HIO steps
// and 3e-3 over 80), and the full default schedule recovers the density. Each result says it
// ran on the GPU. Label gpu: exits 77 without a device.
#include <gtest/gtest.h>

#include <cmath>

#include "nufftmp/mtip.hpp"
#include "nufftmp/plan.hpp"

using namespace nufftmp::mtip;

namespace {
double rel_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) num += (a[i] - b[i]) * (a[i] - b[i]), den += b[i] * b[i];
  return std::sqrt(num / den);
}
nufftmp::Options cuda() {
  nufftmp::Options o;
  o.backend = nufftmp::Backend::Cuda;
  return o;
}
}  // namespace

// Odd and even M, a fresh start and a continuation, with two cycles of 10 HIO and 5 ER steps.
TEST(MtipGpuPhasing, EqualsHostOnAShortSchedule) {
  for (std::int64_t M : {20, 21}) {
    const auto rho = density_on_grid(clustered_molecule(25, M, 0.6, 3), M);
    const auto ac = autocorrelation(rho, M);
    PhaseOptions po;
    po.cycles = 2;
    po.hio_iter = 10;
    po.er_iter = 5;
    po.seed = 9;
    const PhaseResult host = phase(ac, M, po);
    const PhaseResult gpu = phase(ac, M, po, {}, cuda());
    EXPECT_EQ(host.engine, nufftmp::Backend::Cpu);
    EXPECT_EQ(gpu.engine, nufftmp::Backend::Cuda);
    EXPECT_EQ(gpu.iterations, host.iterations);
    EXPECT_LT(rel_diff(gpu.density, host.density), 1e-6) << "M = " << M;
    EXPECT_NEAR(gpu.fourier_error, host.fourier_error, 1e-6 * host.fourier_error) << "M = " << M;
    EXPECT_EQ(gpu.support, host.support) << "M = " << M;
    // A continuation from the host's result (the start is kept when the new run ends worse).
    const PhaseResult host2 = phase(ac, M, po, host.density);
    const PhaseResult gpu2 = phase(ac, M, po, host.density, cuda());
    EXPECT_LT(rel_diff(gpu2.density, host2.density), 1e-6) << "M = " << M;
    EXPECT_NEAR(gpu2.fourier_error, host2.fourier_error, 1e-6 * host2.fourier_error);
    std::printf("M = %lld: fresh rel diff %.2e (error %.6f / %.6f), continuation %.2e\n",
                (long long)M, rel_diff(gpu.density, host.density), gpu.fourier_error,
                host.fourier_error, rel_diff(gpu2.density, host2.density));
  }
}

// The default schedule (10 cycles of 40 HIO + 10 ER, shrink-wrap) on the GPU, as the host test
// RecoversDensityFromTrueIntensity of test_phasing.cpp.
TEST(MtipGpuPhasing, RecoversDensityFromTrueIntensity) {
  const std::int64_t M = 29;
  const auto rho = density_on_grid(random_molecule(30, M, 0.8, 11), M);
  const auto ac = autocorrelation(rho, M);
  PhaseOptions po;
  po.attempts = 2;
  const PhaseResult res = phase(ac, M, po, {}, cuda());
  const double c = aligned_correlation(res.density, rho, M);
  std::printf("GPU phasing: correlation %.4f after alignment, Fourier error %.4f\n", c,
              res.fourier_error);
  EXPECT_EQ(res.engine, nufftmp::Backend::Cuda);
  EXPECT_GE(c, 0.9);
  for (double v : res.density) EXPECT_GE(v, 0.0);
}
