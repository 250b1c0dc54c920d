// The CPU engine's FFTW plans: plans of one shape share one FFTW plan (new-array execute),
// which is kept for the next plan of that shape, and the transform is the DFT it should be.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>

#include "common/test_data.hpp"
#include "cpu/fft_plan.hpp"

namespace nufftmp::test {
namespace {

TEST(CpuFftPlanCache, SameShapeSharesOnePlanAndResultsAgree) {
  using namespace nufftmp::detail::cpu;
  const std::int64_t nf[3] = {48, 20, 1};
  GridBuffer<double> a(48 * 20), b(48 * 20);
  auto rng = make_rng(salt_of("fft-cache"));
  const auto data = random_complex<double>(48 * 20, rng);
  std::copy(data.begin(), data.end(), a.data());
  std::copy(data.begin(), data.end(), b.data());
  const std::size_t before = fftw_plans_cached();
  {
    FftPlan<double> p(2, nf, 48, 1, 1, 1, a.data());
    FftPlan<double> q(2, nf, 48, 1, 1, 1, b.data());
    EXPECT_EQ(fftw_plans_cached(), before + 1);  // one FFTW plan for both
    p.execute();
    q.execute();
  }
  // Kept for the next plan of the shape (it is far below the default budget).
  EXPECT_EQ(fftw_plans_cached(), before + 1);
  {
    FftPlan<double> r(2, nf, 48, 1, -1, 1, a.data());  // the other sign: another plan
    EXPECT_EQ(fftw_plans_cached(), before + 2);
  }
  for (std::int64_t i = 0; i < 48 * 20; ++i) ASSERT_EQ(a.data()[i], b.data()[i]);
  // The transform itself: a 2D DFT with exp(+i ...), against the sum at a few frequencies.
  for (int k0 : {0, 7, 47})
    for (int k1 : {0, 3, 19}) {
      std::complex<double> s = 0;
      for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 48; ++x)
          s += data[y * 48 + x] * std::polar(1.0, 2 * kPi * (double(k0) * x / 48 + double(k1) * y / 20));
      EXPECT_LT(std::abs(s - a.data()[k1 * 48 + k0]), 1e-10 * 48 * 20);
    }
}

}  // namespace
}  // namespace nufftmp::test
